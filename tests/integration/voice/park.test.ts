/**
 * Hold, park and pick up at the signalling level, against the real server: each person is a raw
 * PStream socket with a real WebRTC peer (werift, the server's own media code playing the browser's
 * part), so what each side hears is read from the RTP it receives: music (not silence) for the one
 * held, silence for the holder, the picker's audio after a pick-up. The REST controls refuse calls
 * that are not yours; of two pick-ups at once exactly one wins; a parked caller who hangs up leaves
 * /hold; a call parked too long rings back; history keeps the trail; nobody writes `holds` but the
 * server.
 */
import type { SyncMap } from 'twilio-sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offerLeg, type MediaLeg } from '../../../server/twins/voice/media';
import { GONE_SENTENCE, TAKEN_SENTENCE } from '../../../server/calls/refusals';
import { callRecord } from '../../../src/contracts/records/call';
import { holdRecord } from '../../../src/contracts/records/hold';
import { startServer, type RunningServer } from '../../support/server';
import { client, shutdownClients } from '../sync/support';
import {
  answerTo,
  attemptFor,
  closeLegs,
  connected,
  dial,
  hears,
  paramsOf,
  person as personAt,
  placeParams,
  post,
  type Person,
} from './media-support';
import { eventually, type Frame } from './support';

let server: RunningServer;
let ann: Person;
let bob: Person;
let cat: Person;
let dan: Person;
let holds: SyncMap;
const person = (email: string) => personAt(server.url, email);

beforeAll(async () => {
  server = await startServer({
    env: { SWITCHBOARD_VOICE_PARK_SECONDS: '5', SWITCHBOARD_VOICE_RING_SECONDS: '8' },
  });
  ann = await person('ann@example.com');
  bob = await person('bob@example.com');
  cat = await person('cat@example.com');
  dan = await person('dan@example.com');
  holds = await (await client(server.url, 'cat@example.com')).map('holds');
}, 60_000);

afterAll(async () => {
  await closeLegs();
  for (const p of [ann, bob, cat, dan]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

const control = (who: Person, callSid: string, action: 'hold' | 'resume' | 'park') =>
  post(server.url, who, `${callSid}/${action}`);

const messageOf = (f: Frame) => JSON.parse(String(f.payload.content)) as { event: string };

const pickUp = (who: Person, callId: string) => dial(who, `park:${callId}`);

/** A pick-up's `invite` as the SDK sends it, with `leg`'s offer. */
const pickUpInvite = (callsid: string, callId: string, leg: MediaLeg) => ({
  callsid,
  sdp: leg.localSdp,
  preflight: false,
  twilio: { accountsid: null, params: placeParams(`park:${callId}`, callsid) },
});

/**
 * A refused pick-up as the picker learns it. The app answers the pick-up's call with `<Reject>` (as on
 * Twilio), which the Voice SDK sees as a declined call (31603, with no sentence of its own). Nothing
 * rang first, so Twilio never told the SDK the CallSid: the `hangup` comes to the SDK's own temporary
 * id (issue 42, finding 8). The call card then shows the sentence from that call's history row
 * (src/ui/phone/rowReason.ts), found by the browser's `Attempt` id: the row must say why, and not as
 * an answered call.
 */
async function toldWhy(who: Person, ended: Frame, sentence: string): Promise<void> {
  expect(ended.type).toBe('hangup');
  expect(ended.payload.error).toMatchObject({ code: 31603 });
  const tempSid = String(ended.payload.callsid);
  expect(tempSid).toMatch(/^TJ/);
  const attempt = attemptFor(tempSid);
  const history = await (await client(server.url, who.identity)).list('calls');
  await eventually(
    async () => {
      const items = (await history.getItems({ order: 'desc', pageSize: 20 })).items;
      const row = items.find((i) => (i.data as { attempt?: string }).attempt === attempt);
      if (!row) return false;
      expect(callRecord.check(row.data)).toMatchObject({ ok: true, value: row.data });
      expect(row.data).toMatchObject({ from: who.identity, user: who.identity, reason: sentence });
      expect((row.data as { outcome: string }).outcome).not.toBe('answered');
      return true;
    },
    5000,
    `the row of ${who.identity}'s refused pick-up`,
  );
}

/** Until the history row of `callSid` is there, the call record, with `said`'s fields and trail. */
async function rowSays(
  callSid: string,
  fields: Record<string, string>,
  trail: string[],
): Promise<void> {
  const history = await (await client(server.url, 'ann@example.com')).list('calls');
  await eventually(
    async () => {
      const items = (await history.getItems({ order: 'desc', pageSize: 5 })).items;
      const row = items.find((i) => (i.data as { callSid?: string }).callSid === callSid);
      if (!row) return false;
      // The row is the call record both backends write.
      expect(callRecord.check(row.data)).toMatchObject({ ok: true, value: row.data });
      expect(row.data).toMatchObject(fields);
      expect((row.data as { trail: { action: string }[] }).trail.map((s) => s.action)).toEqual(
        trail,
      );
      return true;
    },
    5000,
    'the history row',
  );
}

async function holdKeys(): Promise<string[]> {
  const page = await holds.getItems({ pageSize: 100 });
  // Each item is the hold record the server writes.
  for (const item of page.items)
    expect(holdRecord.check(item.data)).toMatchObject({ ok: true, value: item.data });
  return page.items.map((i) => i.key);
}

describe('hold', () => {
  it('the held side hears music, the holder silence; resume connects them again', async () => {
    const { fromSid, toSid, fromLeg, toLeg } = await connected(ann, bob);
    await hears(fromLeg, 'sound');
    const mark = ann.frames.length;
    expect((await control(bob, toSid, 'hold')).status).toBe(204);
    const held = await ann.next((f) => f.type === 'message', mark);
    expect(held.payload.callsid).toBe(fromSid);
    expect(messageOf(held).event).toBe('held');
    // Bob's tone no longer reaches Ann (they are not bridged): what she hears is the music.
    await hears(fromLeg, 'sound');
    await hears(toLeg, 'silence');
    // Only Bob can take Ann off hold; Ann cannot hold Bob back meanwhile.
    expect(await control(ann, fromSid, 'resume')).toMatchObject({
      status: 409,
      body: { error: { code: 'held_by_them' } },
    });
    expect((await control(bob, toSid, 'resume')).status).toBe(204);
    expect(messageOf(await ann.next((f) => f.type === 'message', mark + 1)).event).toBe('resumed');
    await hears(toLeg, 'sound');
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
  });

  it('refuses a call that is not yours, one that has ended, and a malformed id', async () => {
    const { fromSid, toSid } = await connected(ann, bob);
    expect(await control(cat, toSid, 'park')).toMatchObject({
      status: 403,
      body: { error: { code: 'not_your_call', message: 'This call is not yours.' } },
    });
    expect(await control(cat, toSid, 'hold')).toMatchObject({ status: 403 });
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
    expect(await control(bob, toSid, 'park')).toMatchObject({
      status: 404,
      body: { error: { code: 'no_such_call', message: 'This call has ended.' } },
    });
    expect((await control(bob, 'CA..%2F..', 'hold')).status).toBe(400);
    expect(await holdKeys()).toEqual([]);
  });
});

describe('park and pick up', () => {
  it('parks: Bob is free, Ann waits with music on /hold; of two pick-ups at once one wins', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const [markAnn, markBob] = [ann.frames.length, bob.frames.length];
    const parked = await control(bob, toSid, 'park');
    expect(parked.status).toBe(200);
    const entry = parked.body.parked as { callId: string; caller: string; parkedBy: string };
    expect(entry).toMatchObject({ caller: 'ann', parkedBy: 'bob@example.com' });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, markBob);
    await eventually(async () => (await holdKeys()).includes(entry.callId), 5000, 'the hold row');
    await hears(fromLeg, 'sound');
    // Ann is told she is held (a `party` message may come first: who is on the other side).
    await ann.next((f) => f.type === 'message' && messageOf(f).event === 'held', markAnn);

    const [c, d] = await Promise.all([pickUp(cat, entry.callId), pickUp(dan, entry.callId)]);
    const won = [c, d].filter((r) => r.frame.type === 'answer');
    const lost = [c, d].filter((r) => r.frame.type === 'hangup');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    await toldWhy(lost[0] === c ? cat : dan, lost[0]!.frame, TAKEN_SENTENCE);
    await eventually(async () => !(await holdKeys()).includes(entry.callId), 5000, 'the row gone');
    // The winner and Ann hear each other.
    await hears(won[0]!.leg, 'sound');
    const winner = won[0] === c ? cat : dan;
    const winnerSid = String(won[0]!.frame.payload.callsid);
    // A late pick-up is told the same.
    const latecomer = won[0] === c ? dan : cat;
    await toldWhy(latecomer, (await pickUp(latecomer, entry.callId)).frame, TAKEN_SENTENCE);
    winner.send('hangup', { callsid: winnerSid });
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid);
    await rowSays(
      entry.callId,
      {
        from: 'ann@example.com',
        callee: 'bob@example.com',
        handledBy: winner.identity,
        outcome: 'answered',
      },
      ['parked', 'pickedUp'],
    );
  });

  it('the caller parks her own call (her leg moves it): the row waits for the pick-up and tells it', async () => {
    // Ann placed the call: her leg is the call's first, and the one that leaves when she parks.
    const { fromSid, toSid, toLeg } = await connected(ann, bob);
    const parked = await control(ann, fromSid, 'park');
    expect(parked.status).toBe(200);
    const callId = (parked.body.parked as { callId: string }).callId;
    expect(callId).toBe(toSid);
    await eventually(async () => (await holdKeys()).includes(callId), 5000, 'the hold row');
    await hears(toLeg, 'sound');
    const picked = await pickUp(cat, callId);
    expect(picked.frame.type).toBe('answer');
    await hears(picked.leg, 'sound');
    cat.send('hangup', { callsid: String(picked.frame.payload.callsid) });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
    await rowSays(
      fromSid,
      {
        from: 'ann@example.com',
        callee: 'bob@example.com',
        handledBy: cat.identity,
        outcome: 'answered',
      },
      ['parked', 'pickedUp'],
    );
  });

  it('whoever loses a pick-up race is told a colleague took it, even one who picked it up before', async () => {
    // Bob parks Ann's call, picks it up himself (so he has picked it up before) and parks it again.
    const { fromSid, toSid } = await connected(ann, bob);
    const first = await control(bob, toSid, 'park');
    const callId = (first.body.parked as { callId: string }).callId;
    const mine = await pickUp(bob, callId);
    expect(mine.frame.type).toBe('answer');
    expect((await control(bob, String(mine.frame.payload.callsid), 'park')).status).toBe(200);
    await eventually(async () => (await holdKeys()).includes(callId), 5000, 'the hold row');
    // Cat and Bob pick it up at the same moment, Cat's dial a hair first: her claim is in progress
    // (her audio being set up) when Bob's arrives. Whoever loses is told a colleague took it; Bob's
    // own earlier pick-up does not make it "You already picked up this call."
    const [catLeg, bobLeg] = await Promise.all([offerLeg(), offerLeg()]);
    const [catMark, bobMark] = [cat.frames.length, bob.frames.length];
    const race = Date.now();
    cat.send('invite', pickUpInvite(`TJ-race-cat-${race}`, callId, catLeg));
    bob.send('invite', pickUpInvite(`TJ-race-bob-${race}`, callId, bobLeg));
    const ended = (f: Frame) => (f.type === 'answer' || f.type === 'hangup') && !!f.payload.callsid;
    const [c, b] = await Promise.all([cat.next(ended, catMark), bob.next(ended, bobMark)]);
    expect([c, b].filter((f) => f.type === 'answer')).toHaveLength(1);
    const lost = [c, b].find((f) => f.type === 'hangup')!;
    await toldWhy(lost === c ? cat : bob, lost, TAKEN_SENTENCE);
    const [winner, won, winnerLeg] = c.type === 'answer' ? [cat, c, catLeg] : [bob, b, bobLeg];
    await winnerLeg.accept(String(won.payload.sdp));
    winner.send('hangup', { callsid: won.payload.callsid });
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid);
    for (const leg of [catLeg, bobLeg]) await leg.close();
  });

  it('a call parked again after a pick-up waits with the music again (a room of its own each park)', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const first = await control(bob, toSid, 'park');
    const callId = (first.body.parked as { callId: string }).callId;
    await hears(fromLeg, 'sound');
    const picked = await pickUp(cat, callId);
    expect(picked.frame.type).toBe('answer');
    const catSid = String(picked.frame.payload.callsid);
    await hears(picked.leg, 'sound');
    // Cat's phone goes quiet: whatever Ann hears from now on is not Cat.
    picked.leg.play(null);
    // Cat parks it again: her leg ends, and Ann waits alone, hearing the music (not silence: a
    // conference still going when she rejoins it plays no waitUrl).
    const catMark = cat.frames.length;
    const parkedAt = Date.now();
    expect((await control(cat, catSid, 'park')).status).toBe(200);
    await cat.next((f) => f.type === 'hangup' && f.payload.callsid === catSid, catMark);
    await eventually(async () => (await holdKeys()).includes(callId), 5000, 'the hold row');
    await hears(fromLeg, 'sound');
    // The music, not the ring-back to Cat once the park times out (5 s here) with Ann in silence.
    expect(Date.now() - parkedAt).toBeLessThan(4000);
    expect(await holdKeys()).toContain(callId);
    ann.send('hangup', { callsid: fromSid });
    await eventually(async () => !(await holdKeys()).includes(callId), 5000, 'the row gone');
  });

  it('a parked caller who hangs up leaves /hold for everyone, and a pick-up then is told', async () => {
    const { fromSid, toSid } = await connected(ann, bob);
    const { body } = await control(bob, toSid, 'park');
    const callId = (body.parked as { callId: string }).callId;
    await eventually(async () => (await holdKeys()).includes(callId), 5000, 'the hold row');
    ann.send('hangup', { callsid: fromSid });
    await eventually(async () => !(await holdKeys()).includes(callId), 5000, 'the row gone');
    const late = await pickUp(cat, callId);
    await toldWhy(cat, late.frame, GONE_SENTENCE);
  });

  it('a call parked too long leaves /hold and rings whoever parked it back', async () => {
    const { toSid, fromLeg } = await connected(ann, bob);
    const mark = bob.frames.length;
    const { body } = await control(bob, toSid, 'park');
    const callId = (body.parked as { callId: string }).callId;
    await eventually(async () => (await holdKeys()).includes(callId), 5000, 'the hold row');
    const invite = await bob.next((f) => f.type === 'invite', mark, 12_000);
    await eventually(async () => !(await holdKeys()).includes(callId), 5000, 'the row gone');
    const params = paramsOf(invite);
    expect(params.get('RingBack')).toBe('1');
    expect(params.get('RingBackReason')).toBe('The call was parked too long');
    expect(params.get('CallerName')).toBe('ann');
    const leg = await answerTo(bob, invite);
    await hears(fromLeg, 'sound');
    await hears(leg, 'sound');
    bob.send('hangup', { callsid: invite.payload.callsid });
  });

  it('nobody but the server writes the holds map', async () => {
    await expect(
      holds.set('CA-forged', { caller: 'x', parkedBy: 'cat@example.com', parkedAt: Date.now() }),
    ).rejects.toMatchObject({ status: 403, code: 54007 });
    expect(await holdKeys()).toEqual([]);
  });
});
