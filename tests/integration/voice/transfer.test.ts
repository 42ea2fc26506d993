/**
 * Transfer at the signalling level, against the real server, each person a raw PStream socket with a
 * real WebRTC peer (werift) so what each side hears is read from the RTP it receives. Blind: the
 * transferrer leaves at once, the target rings and talks to the caller; a target who declines sends
 * the call back to the transferrer. Attended: the caller waits with music while the transferrer talks
 * to the target on the same call, then completes (the target takes over) or cancels (back to the
 * caller); a target who declines does the same. Every refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_PARAMETERS } from '../../../src/contracts/call-parameters';
import { callRecord } from '../../../src/contracts/records/call';
import { personOfClientAddress } from '../../../src/contracts/voice-identity';
import { saveGroup } from '../../support/ring-groups';
import { serverWrites } from '../../support/server-writes';
import { startServer, type RunningServer } from '../../support/server';
import { client, shutdownClients, signIn } from '../sync/support';
import {
  answerTo,
  closeLegs,
  connected,
  hears,
  messageEvents as events,
  paramsOf,
  person as personAt,
  post as postAt,
  type Person,
} from './media-support';
import { eventually, type Frame } from './support';

let server: RunningServer;
let ann: Person;
let bob: Person;
let cat: Person;
let dan: Person;
const person = (email: string) => personAt(server.url, email);
const post = (who: Person, path: string, body?: unknown) => postAt(server.url, who, path, body);
const hearsSound = (leg: Parameters<typeof hears>[0]) => hears(leg, 'sound');

beforeAll(async () => {
  server = await startServer({
    env: { SWITCHBOARD_VOICE_RING_SECONDS: '6', SWITCHBOARD_SYNC_TEST_HOOKS: '1' },
  });
  ann = await person('ann@example.com');
  bob = await person('bob@example.com');
  cat = await person('cat@example.com');
  dan = await person('dan@example.com');
  // Ann signed in first: she is the admin who sets up the ring groups.
  const admin = {
    baseUrl: server.url,
    cookie: ann.cookie,
    sync: await client(server.url, 'ann@example.com'),
  };
  await saveGroup(admin, {
    id: 'support',
    name: 'Support',
    number: '700',
    members: ['cat@example.com', 'dan@example.com'],
  });
  // 2 s a turn, quicker than the group form allows: written as the server.
  const writes = await serverWrites(server.url);
  await saveGroup(
    admin,
    {
      id: 'desk',
      name: 'Desk',
      number: '701',
      members: ['cat@example.com', 'dan@example.com'],
      strategy: 'sequential',
      ringTimeout: 2,
    },
    writes,
  );
  writes.close();
  await saveGroup(admin, {
    id: 'solo',
    name: 'Solo',
    number: '702',
    members: ['bob@example.com', 'eve@example.com'],
  });
  await signIn(server.url, 'eve@example.com'); // on the team, never registered: offline
}, 60_000);

afterAll(async () => {
  await closeLegs();
  for (const p of [ann, bob, cat, dan]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

/**
 * Who an invite says is calling: its `From` as Twilio sends it to the Voice SDK (`client:` and the
 * caller's Voice identity), read back as their email.
 */
const callerOf = (invite: Frame): string | null =>
  personOfClientAddress(String((invite.payload.parameters as { From?: string }).From ?? ''));

/**
 * Ann's page is told, from frame `from` on: held, resumed, then who she talks to now (`party`, naming
 * `to`). Who answered her call at first is told by a message of its own (Twilio's user-defined
 * messages, sent once the answer is reported), which may come after the test's mark: a `party`
 * naming Bob before the `held` is that one, and nothing else may come before it.
 */
async function toldAnn(from: number, to: string): Promise<void> {
  let seen: Record<string, unknown>[] = [];
  await eventually(
    () => {
      seen = ann.frames
        .slice(from)
        .filter((f) => f.type === 'message')
        .map((f) => JSON.parse(String(f.payload.content)) as Record<string, unknown>);
      const start = seen.findIndex((m) => m.event === 'held');
      if (start < 0) return Promise.resolve(false);
      expect(seen.slice(0, start)).toEqual(
        seen
          .slice(0, start)
          .map(() => ({ event: 'party', identity: 'bob@example.com', name: 'bob' })),
      );
      const after = seen.slice(start);
      return Promise.resolve(
        after.map((m) => m.event).join() === 'held,resumed,party' && after[2]?.identity === to,
      );
    },
    5000,
    `held, resumed, then who she is talking to now (party, ${to})`,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}: ${JSON.stringify(seen)}`);
  });
}

/** The history row of a call, by its id (the caller side's sid, which Ann's SDK knows). */
async function trailOf(callSid: string): Promise<Record<string, unknown>> {
  const history = await (await client(server.url, 'ann@example.com')).list('calls');
  let found: Record<string, unknown> = {};
  await eventually(
    async () => {
      const items = (await history.getItems({ order: 'desc', pageSize: 10 })).items;
      const row = items.find((i) => (i.data as { callSid?: string }).callSid === callSid);
      if (row) found = row.data as Record<string, unknown>;
      // The row is the call record both backends write.
      if (row) expect(callRecord.check(found)).toMatchObject({ ok: true, value: found });
      return row !== undefined;
    },
    5000,
    'the history row',
  );
  return found;
}

describe('blind transfer', () => {
  it('Bob sends Ann to Cat and leaves; Cat takes her; history says who', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const [mA, mB, mC] = [ann.frames.length, bob.frames.length, cat.frames.length];
    expect((await post(bob, `${toSid}/transfer`, { to: 'cat', mode: 'blind' })).status).toBe(204);
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, mB);
    const invite = await cat.next((f) => f.type === 'invite', mC);
    expect(callerOf(invite), 'Ann is who calls').toBe('ann@example.com');
    const catLeg = await answerTo(cat, invite);
    await hearsSound(catLeg);
    await hearsSound(fromLeg);
    await toldAnn(mA, 'cat@example.com');
    ann.send('hangup', { callsid: fromSid });
    await cat.next((f) => f.type === 'hangup', mC + 1);
    const row = await trailOf(fromSid);
    expect(row).toMatchObject({ callee: 'bob@example.com', handledBy: 'cat@example.com' });
    expect(row.trail).toMatchObject([
      { action: 'transferred', by: 'bob@example.com', to: 'cat@example.com' },
    ]);
  });

  it('Cat declines: the call rings Bob back and he talks to Ann again', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const [mB, mC] = [bob.frames.length, cat.frames.length];
    expect((await post(bob, `${toSid}/transfer`, { to: 'cat', mode: 'blind' })).status).toBe(204);
    const invite = await cat.next((f) => f.type === 'invite', mC);
    cat.send('reject', { callsid: invite.payload.callsid });
    const back = await bob.next((f) => f.type === 'invite', mB, 10_000);
    const params = paramsOf(back);
    expect(params.get('RingBack')).toBe('1');
    expect(params.get('RingBackReason')).toMatch(/declined the transfer$/);
    await answerTo(bob, back);
    await hearsSound(fromLeg);
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === back.payload.callsid, mB);
  });
});

describe('attended transfer', () => {
  it('Bob talks to Cat while Ann hears music, then completes: Ann and Cat talk, Bob is free', async () => {
    const { fromSid, toSid, fromLeg, toLeg } = await connected(ann, bob);
    const [mA, mB, mC] = [ann.frames.length, bob.frames.length, cat.frames.length];
    expect(await post(bob, `${toSid}/transfer/complete`), 'nothing to complete yet').toMatchObject({
      status: 409,
      body: { error: { code: 'no_transfer' } },
    });
    expect((await post(bob, `${toSid}/transfer`, { to: 'cat', mode: 'consult' })).status).toBe(204);
    const invite = await cat.next((f) => f.type === 'invite', mC);
    expect(callerOf(invite), 'Bob is who calls').toBe('bob@example.com');
    expect(await post(bob, `${toSid}/transfer/complete`)).toMatchObject({
      status: 409,
      body: { error: { message: 'cat has not answered yet: wait, or cancel the transfer.' } },
    });
    const catLeg = await answerTo(cat, invite);
    await eventually(
      () => Promise.resolve(events(bob, mB).includes('consultAnswered')),
      5000,
      'answered',
    );
    await hearsSound(toLeg); // Bob hears Cat
    await hearsSound(catLeg); // Cat hears Bob
    await hearsSound(fromLeg); // Ann hears the music
    // A second transfer, a hold or a park meanwhile is refused.
    expect(await post(bob, `${toSid}/park`)).toMatchObject({ status: 409 });
    expect(await post(ann, `${fromSid}/hold`)).toMatchObject({ status: 409 });
    expect((await post(bob, `${toSid}/transfer/complete`)).status).toBe(204);
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, mB);
    await toldAnn(mA, 'cat@example.com');
    await hearsSound(fromLeg);
    await hearsSound(catLeg);
    cat.send('hangup', { callsid: invite.payload.callsid });
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid, mA);
    const row = await trailOf(fromSid);
    expect(row).toMatchObject({ handledBy: 'cat@example.com' });
  });

  it('Bob cancels, or Cat declines: Bob and Ann talk again and Bob is told why', async () => {
    const { fromSid, toSid, toLeg } = await connected(ann, bob);
    const [mB, mC] = [bob.frames.length, cat.frames.length];
    await post(bob, `${toSid}/transfer`, { to: 'cat', mode: 'consult' });
    const invite = await cat.next((f) => f.type === 'invite', mC);
    await answerTo(cat, invite);
    await eventually(
      () => Promise.resolve(events(bob, mB).includes('consultAnswered')),
      5000,
      'answered',
    );
    expect((await post(bob, `${toSid}/transfer/cancel`)).status).toBe(204);
    await cat.next((f) => f.type === 'hangup' && f.payload.callsid === invite.payload.callsid, mC);
    await eventually(
      () => Promise.resolve(events(bob, mB).includes('consultEnded')),
      5000,
      'ended',
    );
    await hearsSound(toLeg);

    const mB2 = bob.frames.length;
    const mC2 = cat.frames.length;
    await post(bob, `${toSid}/transfer`, { to: 'cat', mode: 'consult' });
    const again = await cat.next((f) => f.type === 'invite', mC2);
    cat.send('reject', { callsid: again.payload.callsid });
    const ended = await bob.next(
      (f) => f.type === 'message' && String(f.payload.content).includes('consultEnded'),
      mB2,
    );
    expect(JSON.parse(String(ended.payload.content))).toEqual({
      event: 'consultEnded',
      reason: 'cat declined.',
    });
    await hearsSound(toLeg);
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, mB2);
  });
});

describe('transfers by the caller’s own leg (the call’s first, which leaves)', () => {
  it('blind: Ann sends Bob to Cat and leaves (his leg is given the ring by URL); Cat takes him; the row waits and says who', async () => {
    const { fromSid, toSid, toLeg } = await connected(ann, bob);
    const [mA, mB, mC] = [ann.frames.length, bob.frames.length, cat.frames.length];
    expect((await post(ann, `${fromSid}/transfer`, { to: 'cat', mode: 'blind' })).status).toBe(204);
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid, mA);
    const invite = await cat.next((f) => f.type === 'invite', mC);
    const catLeg = await answerTo(cat, invite);
    await hearsSound(catLeg);
    await hearsSound(toLeg);
    // Bob's own leg went on: his browser was never told it ended.
    expect(
      bob.frames.slice(mB).some((f) => f.type === 'hangup' && f.payload.callsid === toSid),
    ).toBe(false);
    bob.send('hangup', { callsid: toSid });
    await cat.next((f) => f.type === 'hangup', mC + 1);
    const row = await trailOf(fromSid);
    expect(row).toMatchObject({ callee: 'bob@example.com', handledBy: 'cat@example.com' });
    expect(row.trail).toMatchObject([
      { action: 'transferred', by: 'ann@example.com', to: 'cat@example.com' },
    ]);
  });

  it('attended: Ann talks to Cat while Bob hears music, then completes: Bob and Cat talk, the row says so', async () => {
    const { fromSid, toSid, fromLeg, toLeg } = await connected(ann, bob);
    const [mA, mC] = [ann.frames.length, cat.frames.length];
    expect((await post(ann, `${fromSid}/transfer`, { to: 'cat', mode: 'consult' })).status).toBe(
      204,
    );
    const invite = await cat.next((f) => f.type === 'invite', mC);
    const catLeg = await answerTo(cat, invite);
    await eventually(
      () => Promise.resolve(events(ann, mA).includes('consultAnswered')),
      5000,
      'answered',
    );
    await hearsSound(fromLeg); // Ann hears Cat
    await hearsSound(toLeg); // Bob hears the music
    expect((await post(ann, `${fromSid}/transfer/complete`)).status).toBe(204);
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid, mA);
    await hearsSound(toLeg);
    await hearsSound(catLeg);
    cat.send('hangup', { callsid: invite.payload.callsid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
    const row = await trailOf(fromSid);
    expect(row).toMatchObject({ callee: 'bob@example.com', handledBy: 'cat@example.com' });
    expect((row.trail as { action: string }[]).map((s) => s.action)).toContain('transferred');
  });
});

describe('transfer to a ring group', () => {
  it('blind, all at once: both members ring with the group named, Cat takes it, Dan stops', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const [mB, mC, mD] = [bob.frames.length, cat.frames.length, dan.frames.length];
    expect((await post(bob, `${toSid}/transfer`, { to: '700', mode: 'blind' })).status).toBe(204);
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, mB);
    const toCat = await cat.next((f) => f.type === 'invite', mC);
    const toDan = await dan.next((f) => f.type === 'invite', mD);
    expect(paramsOf(toCat).get(CALL_PARAMETERS.group)).toBe('Support');
    expect(paramsOf(toCat).get(CALL_PARAMETERS.groupId)).toBe('support');
    expect(callerOf(toCat)).toBe('ann@example.com');
    // Each <Client> a <Dial> rings is a call of its own (its own CallSid), both ringing at once.
    expect(paramsOf(toDan).get(CALL_PARAMETERS.group)).toBe('Support');
    expect(callerOf(toDan)).toBe('ann@example.com');
    const catLeg = await answerTo(cat, toCat);
    await dan.next((f) => f.type === 'cancel' && f.payload.callsid === toDan.payload.callsid, mD);
    await hearsSound(catLeg);
    await hearsSound(fromLeg);
    ann.send('hangup', { callsid: fromSid });
    await cat.next((f) => f.type === 'hangup', mC + 1);
    const row = await trailOf(fromSid);
    expect(row).toMatchObject({ handledBy: 'cat@example.com' });
    expect(row.trail).toMatchObject([
      { action: 'transferred', by: 'bob@example.com', to: 'cat@example.com' },
    ]);
  });

  it('blind, in order: Cat declines, Dan rings next and does not answer, the call rings Bob back', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const [mB, mC, mD] = [bob.frames.length, cat.frames.length, dan.frames.length];
    expect((await post(bob, `${toSid}/transfer`, { to: '701', mode: 'blind' })).status).toBe(204);
    const toCat = await cat.next((f) => f.type === 'invite', mC);
    expect(
      dan.frames.slice(mD).some((f) => f.type === 'invite'),
      'Dan waits his turn',
    ).toBe(false);
    cat.send('reject', { callsid: toCat.payload.callsid });
    const toDan = await dan.next((f) => f.type === 'invite', mD);
    expect(paramsOf(toDan).get(CALL_PARAMETERS.group)).toBe('Desk');
    expect(paramsOf(toDan).get(CALL_PARAMETERS.groupId)).toBe('desk');
    // Dan lets it ring past his turn: it comes back to Bob, not to nowhere. Twilio rings a <Dial> at
    // least 5 s plus its 5 s buffer (twiml.ts, dialSeconds), so the group's 2 s turn rings ~10 s.
    await dan.next(
      (f) => f.type === 'cancel' && f.payload.callsid === toDan.payload.callsid,
      mD,
      15_000,
    );
    const back = await bob.next((f) => f.type === 'invite', mB + 1, 10_000);
    expect(paramsOf(back).get('RingBack')).toBe('1');
    await answerTo(bob, back);
    await hearsSound(fromLeg);
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === back.payload.callsid, mB);
  });

  it('attended: Bob talks to whoever in the group answers, then completes', async () => {
    const { fromSid, toSid, fromLeg, toLeg } = await connected(ann, bob);
    const [mA, mB, mC, mD] = [
      ann.frames.length,
      bob.frames.length,
      cat.frames.length,
      dan.frames.length,
    ];
    expect((await post(bob, `${toSid}/transfer`, { to: '700', mode: 'consult' })).status).toBe(204);
    await cat.next((f) => f.type === 'invite', mC);
    const toDan = await dan.next((f) => f.type === 'invite', mD);
    expect(callerOf(toDan)).toBe('bob@example.com');
    const danLeg = await answerTo(dan, toDan);
    await cat.next((f) => f.type === 'cancel', mC);
    const answered = await bob.next(
      (f) => f.type === 'message' && String(f.payload.content).includes('consultAnswered'),
      mB,
    );
    expect(JSON.parse(String(answered.payload.content))).toEqual({
      event: 'consultAnswered',
      name: 'dan',
    });
    await hearsSound(toLeg); // Bob hears Dan
    await hearsSound(fromLeg); // Ann hears the music
    expect((await post(bob, `${toSid}/transfer/complete`)).status).toBe(204);
    await toldAnn(mA, 'dan@example.com');
    await hearsSound(danLeg);
    dan.send('hangup', { callsid: toDan.payload.callsid });
    await ann.next((f) => f.type === 'hangup' && f.payload.callsid === fromSid, mA);
    expect(await trailOf(fromSid)).toMatchObject({ handledBy: 'dan@example.com' });
  });

  it('a group with nobody else who can take it now is refused, saying who and why', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const mC = cat.frames.length;
    expect(await post(bob, `${toSid}/transfer`, { to: '702', mode: 'blind' })).toMatchObject({
      status: 409,
      body: { error: { message: 'Nobody else in Solo can take the call now (eve (offline)).' } },
    });
    expect(
      await post(bob, `${toSid}/transfer`, { to: 'test:support', mode: 'blind' }),
    ).toMatchObject({
      status: 404,
      body: { error: { message: 'Only admins can test a ring group.' } },
    });
    await hearsSound(fromLeg);
    expect(cat.frames.slice(mC).some((f) => f.type === 'invite')).toBe(false);
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
  });
});

describe('refusals change nothing', () => {
  it('nobody, yourself, the other party, someone offline, a bad body, a call not yours', async () => {
    const { fromSid, toSid, fromLeg } = await connected(ann, bob);
    const mC = cat.frames.length;
    const refused: [Person, string, unknown, number, string][] = [
      [
        bob,
        `${toSid}/transfer`,
        { to: '', mode: 'blind' },
        400,
        'Say who to transfer the call to.',
      ],
      [
        bob,
        `${toSid}/transfer`,
        { to: 'bob', mode: 'blind' },
        400,
        'You cannot transfer a call to yourself.',
      ],
      [
        bob,
        `${toSid}/transfer`,
        { to: 'ann', mode: 'consult' },
        400,
        'ann is already on this call.',
      ],
      [bob, `${toSid}/transfer`, { to: 'eve', mode: 'blind' }, 409, 'eve is offline.'],
      [
        bob,
        `${toSid}/transfer`,
        { to: 'Nobody', mode: 'blind' },
        404,
        'Nobody here is called "Nobody".',
      ],
      [
        bob,
        `${toSid}/transfer`,
        { to: 'cat', mode: 'sideways' },
        400,
        'mode must be "blind" or "consult".',
      ],
      [bob, `${toSid}/transfer`, { to: 7, mode: 'blind' }, 400, 'Say who to transfer the call to.'],
      [cat, `${toSid}/transfer`, { to: 'cat', mode: 'blind' }, 403, 'This call is not yours.'],
      [
        bob,
        `${toSid}/transfer/cancel`,
        undefined,
        409,
        'There is no transfer under way on this call.',
      ],
    ];
    for (const [who, path, body, status, message] of refused)
      expect(await post(who, path, body), JSON.stringify(body)).toMatchObject({
        status,
        body: { error: { message } },
      });
    // Still talking, and nobody else was rung.
    await hearsSound(fromLeg);
    expect(cat.frames.slice(mC).some((f) => f.type === 'invite')).toBe(false);
    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
  });
});
