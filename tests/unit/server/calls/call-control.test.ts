/**
 * Hold, park, pick-up and blind transfer on the Twilio backend, as the REST requests and TwiML they
 * make (server/twilio/control.ts): the server is the real one, Twilio's API a stand-in that records
 * the calls changed (`POST Calls/{sid}` with `Twiml`), the participants held and the messages told,
 * and Twilio's webhooks are posted signed, in the order Twilio sends them. The audio these requests
 * make is the voice twin's, proven in the browser suites on the twins (docs/twilio.md).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOLD_MUSIC } from '../../../../server/calls/control';
import {
  ADA,
  ALICE,
  BOB,
  CAT,
  SALES_NUMBER,
  SUPPORT_NUMBER,
  WED_OPEN,
  seedTeam,
  vid,
} from './fixture';
import {
  browserCall,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from '../twilio/support';
import { actions, pathOf } from './twiml-support';

let t: TwilioTestApp;
let cookies: Record<string, string>;

beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  cookies = await seedTeam(t);
}, 60_000);
afterAll(() => t.close());

const post = (path: string, form: Record<string, string>, status = 200): Promise<string> =>
  t.post(path, form, status);

/** A page's call control, as the signed-in person. */
async function control(
  who: string,
  callSid: string,
  action: 'hold' | 'resume' | 'park' | 'transfer',
  body?: object,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${t.url}/api/voice/calls/${callSid}/${action}`, {
    method: 'POST',
    headers: {
      Cookie: cookies[who]!,
      Origin: t.url,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
}

/** The calls {@link aliceCallsBob} made in the present test, ended after it. */
const opened: { call: string; bobLeg: string }[] = [];

/** Alice calls Bob from her browser and he answers: her call and his leg. */
async function aliceCallsBob(): Promise<{ xml: string; call: string; bobLeg: string }> {
  const call = sid();
  const bobLeg = sid();
  opened.push({ call, bobLeg });
  const xml = await post('/api/twilio/voice', browserCall(call, ALICE, 'Bob'));
  await legAnswered(bobLeg, call);
  return { xml, call, bobLeg };
}

/** Twilio's status callback for Bob's leg `legSid` of call `parentSid`: he answered. */
const legAnswered = (legSid: string, parentSid: string) =>
  post(
    '/api/twilio/leg',
    {
      CallSid: legSid,
      ParentCallSid: parentSid,
      To: `client:${vid(BOB)}`,
      CallStatus: 'in-progress',
      Direction: 'outbound-dial',
    },
    204,
  );
/** Twilio's status callback for Bob's leg `legSid` of call `parentSid`: it is over. */
const legEnded = (legSid: string, parentSid: string) =>
  post(
    '/api/twilio/leg',
    {
      CallSid: legSid,
      ParentCallSid: parentSid,
      To: `client:${vid(BOB)}`,
      CallStatus: 'completed',
    },
    204,
  );
/** Twilio's status callback for a browser's call through the app: it is over. */
const callEnded = (callSid: string, who: string, to: string, status = 'completed') =>
  post(
    '/api/twilio/status',
    { CallSid: callSid, CallStatus: status, From: `client:${vid(who)}`, To: to },
    204,
  );
const hasRow = (callSid: string): boolean =>
  (t.api.listData('calls') as { callSid: string }[]).some((r) => r.callSid === callSid);
const changesOf = (callSid: string) =>
  t.api.changed.filter((c) => c.callSid === callSid).map((c) => c.form);
/**
 * The ring a control last gave `callSid`: the call update names this server's ring URL (`Url`, not
 * inline `Twiml`), whose signed request answers it.
 */
async function ringGiven(callSid: string): Promise<string> {
  const change = changesOf(callSid).at(-1)!;
  expect(change.Twiml).toBeUndefined();
  expect(change.Method).toBe('POST');
  expect(pathOf(change.Url!)).toBe('/api/twilio/voice/ring');
  return post(pathOf(change.Url!), { CallSid: callSid });
}
const toldTo = (callSid: string) =>
  t.api.told.filter((m) => m.callSid === callSid).map((m) => m.content);
const conferenceOf = (twiml: string) => /<Conference[^>]*>([^<]+)<\/Conference>/.exec(twiml)?.[1];

// Each test's calls end after it, as Twilio reports them: Bob still on one would be busy for the
// next test's call (a direct call to someone on another call is refused).
afterEach(async () => {
  for (const { call, bobLeg } of opened.splice(0)) {
    await legEnded(bobLeg, call);
    await callEnded(call, ALICE, 'Bob', 'completed');
  }
});

// First: the legs later tests leave up would keep people on a call.
describe('on a call, in presence', () => {
  it('is written into the presence item of whoever answers, and cleared when their last call ends', async () => {
    const presence = (who: string) => t.api.maps.get('presence')?.get(who)?.data;
    const { call, bobLeg } = await aliceCallsBob();
    await expect.poll(() => presence(BOB)).toEqual({ status: 'available', onCall: true });
    // The caller's own call counts too.
    await expect.poll(() => presence(ALICE)).toEqual({ status: 'available', onCall: true });
    await legEnded(bobLeg, call);
    await callEnded(call, ALICE, 'Bob', 'completed');
    await expect.poll(() => presence(BOB)).toEqual({ status: 'available', onCall: false });
    await expect.poll(() => presence(ALICE)).toEqual({ status: 'available', onCall: false });
  });

  it('stays while Twilio lists another call of theirs (another server’s), and a leg this server never knew clears it when it ends', async () => {
    const presence = (who: string) => t.api.maps.get('presence')?.get(who)?.data;
    const { call, bobLeg } = await aliceCallsBob();
    await expect.poll(() => presence(BOB)).toEqual({ status: 'available', onCall: true });
    // Bob is on a second call too, which another server follows (its webhooks go there).
    const elsewhere = `CA${'e'.repeat(32)}`;
    t.api.calls.push({
      sid: elsewhere,
      to: `client:${vid(BOB)}`,
      from: '+15550100',
      status: 'in-progress',
    });
    await legEnded(bobLeg, call);
    await callEnded(call, ALICE, 'Bob', 'completed');
    await expect.poll(() => presence(ALICE)).toEqual({ status: 'available', onCall: false });
    await new Promise((r) => setTimeout(r, 100));
    expect(presence(BOB)).toEqual({ status: 'available', onCall: true });
    // That call ends; its leg's end is reported here (the other server went away, say).
    t.api.calls.splice(0);
    await legEnded(elsewhere, `CA${'f'.repeat(32)}`);
    await expect.poll(() => presence(BOB)).toEqual({ status: 'available', onCall: false });
  });
});

describe('hold on Twilio', () => {
  it('a caller on a phone is not sent messages: no Voice SDK is on their leg', async () => {
    // "A UserDefinedMessage subresource can only be created during an active call associated with
    // the Voice SDK" (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource).
    const call = sid();
    const bobLeg = sid();
    opened.push({ call, bobLeg });
    await post('/api/twilio/voice', incomingCall(call, '+447700900123', SALES_NUMBER));
    await legAnswered(bobLeg, call);
    expect((await control(BOB, bobLeg, 'hold')).status).toBe(204);
    expect((await control(BOB, bobLeg, 'resume')).status).toBe(204);
    await new Promise((r) => setTimeout(r, 200));
    expect(toldTo(call)).toEqual([]);
  });

  it('moves both legs into a conference that does not start; resume starts it; a later hold holds the participant', async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'hold')).status).toBe(204);

    // Bob's leg (the child) moves first, into a conference he waits in, hearing nothing.
    const [bobMove] = changesOf(bobLeg);
    expect(bobMove?.Twiml).toMatch(
      /<Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="false" beep="false" waitUrl="">hold-[0-9a-f]{16}<\/Conference><\/Dial>/,
    );
    const room = conferenceOf(bobMove!.Twiml!)!;
    // Alice's call was the parent: its <Dial> ends and its action puts her in the same
    // conference, waiting with the music; she is never changed through the API directly.
    expect(changesOf(call)).toEqual([]);
    const aliceMove = await post(pathOf(actions(xml)[0]!), {
      CallSid: call,
      DialCallStatus: 'completed',
      DialCallSid: bobLeg,
    });
    expect(aliceMove).toContain(
      `<Conference startConferenceOnEnter="false" endConferenceOnExit="false" beep="false" waitUrl="${HOLD_MUSIC}" waitMethod="GET">${room}</Conference>`,
    );
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'held', by: 'Bob' });

    // Alice cannot hold Bob back while he holds her: nothing changes.
    const refused = await control(ALICE, call, 'hold');
    expect(refused).toEqual({
      status: 409,
      json: {
        error: {
          code: 'held_by_them',
          message: 'The other side has put this call on hold; it can be held once they resume it.',
        },
      },
    });
    // Nobody else may touch it.
    expect((await control(CAT, bobLeg, 'hold')).status).toBe(403);

    // Resume: Bob joins again with startConferenceOnEnter: the conference starts.
    expect((await control(BOB, bobLeg, 'resume')).status).toBe(204);
    expect(changesOf(bobLeg).at(-1)?.Twiml).toContain(
      `<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${room}</Conference>`,
    );
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'resumed', by: 'Bob' });

    // Held again in the started conference: Alice is the participant held, with the music.
    const cf = `CF${'a'.repeat(32)}`;
    t.api.conferences.push({ sid: cf, friendly_name: room, status: 'in-progress' });
    expect((await control(BOB, bobLeg, 'hold')).status).toBe(204);
    expect(t.api.participants.at(-1)).toEqual({
      conferenceSid: cf,
      callSid: call,
      form: { Hold: 'true', HoldUrl: HOLD_MUSIC },
    });
    expect((await control(BOB, bobLeg, 'resume')).status).toBe(204);
    expect(t.api.participants.at(-1)?.form).toEqual({ Hold: 'false' });

    // One row when the last leg ends, with the trail.
    await legEnded(bobLeg, call);
    await callEnded(call, ALICE, 'Bob', 'completed');
    const rowsOf = () =>
      (
        t.api.listData('calls') as { callSid: string; trail: { action: string; by: string }[] }[]
      ).filter((r) => r.callSid === call);
    await expect.poll(() => rowsOf().length).toBe(1);
    const row = rowsOf();
    expect(row[0]!.trail.map((s) => `${s.action} ${s.by}`)).toEqual([
      `held ${BOB}`,
      `resumed ${BOB}`,
      `held ${BOB}`,
      `resumed ${BOB}`,
    ]);
  });

  it('a call that is not in progress here is refused with 404', async () => {
    expect((await control(BOB, sid(), 'hold')).status).toBe(404);
  });

  it('a hold asked before Twilio reports the answer waits for the report', async () => {
    const call = sid();
    const bobLeg = sid();
    await post('/api/twilio/voice', browserCall(call, ALICE, 'Bob'));
    // Bob's browser has answered; the leg's status callback is still on its way. Twilio's Calls
    // resource says the leg is in progress.
    t.api.callStatuses.set(bobLeg, 'in-progress');
    const asked = control(BOB, bobLeg, 'hold');
    await new Promise((r) => setTimeout(r, 100));
    expect(changesOf(bobLeg)).toEqual([]);
    await legAnswered(bobLeg, call);
    expect((await asked).status).toBe(204);
    expect(changesOf(bobLeg)).toHaveLength(1);
    await legEnded(bobLeg, call);
    await callEnded(call, ALICE, 'Bob', 'completed');
  });
});

describe('park and pick-up on Twilio', () => {
  it('parks the caller alone with the music, lists it in holds, and exactly one picker joins', async () => {
    const { call, bobLeg } = await aliceCallsBob();
    const parked = await control(BOB, bobLeg, 'park');
    expect(parked.status).toBe(200);
    expect(parked.json).toEqual({
      parked: { callId: call, caller: 'Alice', parkedBy: BOB, parkedAt: WED_OPEN },
    });
    // Alice's call (the parent) is given the park's conference: Bob's leg ends with it.
    // In a room of its own, its music asked with GET (a static file).
    const parkedIn = String(changesOf(call).at(-1)?.Twiml);
    const room =
      /beep="false" waitUrl="[^"]*" waitMethod="GET">(park-[0-9a-f]{16})<\/Conference>/.exec(
        parkedIn,
      )?.[1];
    expect(parkedIn).toContain(`waitUrl="${HOLD_MUSIC}" waitMethod="GET">${room}</Conference>`);
    expect(t.api.maps.get('holds')?.get(call)?.data).toEqual({
      caller: 'Alice',
      parkedBy: BOB,
      parkedAt: WED_OPEN,
    });
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'held', by: 'Bob' });
    await legEnded(bobLeg, call);

    // Cat and Bob both dial park:<call>: the first joins, starting the conference.
    const catCall = sid();
    const bobCall = sid();
    const cat = await post('/api/twilio/voice', browserCall(catCall, CAT, `park:${call}`));
    const bob = await post('/api/twilio/voice', browserCall(bobCall, BOB, `park:${call}`));
    expect(cat).toContain(
      `<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${room}</Conference>`,
    );
    expect(bob).toContain('<Reject reason="rejected"/>');
    await expect.poll(() => t.api.maps.get('holds')?.has(call)).toBe(false);
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'resumed', by: 'Cat' });
    await expect
      .poll(() => toldTo(catCall))
      .toContainEqual({ event: 'party', identity: ALICE, name: 'Alice' });

    // The loser's own row says why; the call's one row waits for its last leg.
    await post(
      '/api/twilio/status',
      { CallSid: bobCall, CallStatus: 'no-answer', From: `client:${vid(BOB)}`, To: `park:${call}` },
      204,
    );
    await expect.poll(() => hasRow(bobCall)).toBe(true);
    const bobRow = (t.api.listData('calls') as { callSid: string; reason: string }[]).find(
      (r) => r.callSid === bobCall,
    );
    expect(bobRow?.reason).toBe('A colleague already picked up this call.');
    await callEnded(call, ALICE, 'Bob', 'completed');
    expect(hasRow(call)).toBe(false);
    await post(
      '/api/twilio/status',
      { CallSid: catCall, CallStatus: 'completed', From: `client:${vid(CAT)}`, To: `park:${call}` },
      204,
    );
    await expect.poll(() => hasRow(call)).toBe(true);
    const rows = t.api.listData('calls') as {
      callSid: string;
      handledBy: string;
      trail: { action: string; by: string }[];
    }[];
    expect(rows.filter((r) => r.callSid === catCall)).toEqual([]);
    const row = rows.filter((r) => r.callSid === call);
    expect(row).toHaveLength(1);
    expect(row[0]!.handledBy).toBe(CAT);
    expect(row[0]!.trail.map((s) => `${s.action} ${s.by}`)).toEqual([
      `parked ${BOB}`,
      `pickedUp ${CAT}`,
    ]);
  });

  it('whoever parked a call may pick it up at once, before Twilio reports their leg over', async () => {
    const { call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'park')).status).toBe(200);
    const room = /(park-[0-9a-f]{16})<\/Conference>/.exec(
      String(changesOf(call).at(-1)?.Twiml),
    )?.[1];
    const bobCall = sid();
    const xml = await post('/api/twilio/voice', browserCall(bobCall, BOB, `park:${call}`));
    expect(xml).toContain(
      `<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${room}</Conference>`,
    );
    await legEnded(bobLeg, call);
    await callEnded(bobCall, BOB, `park:${call}`);
    await callEnded(call, ALICE, 'Bob');
    await expect.poll(() => hasRow(call)).toBe(true);
  });

  it('a parked caller who hangs up leaves holds; a later pick-up is told the caller is gone', async () => {
    const { call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'park')).status).toBe(200);
    await expect.poll(() => t.api.maps.get('holds')?.has(call)).toBe(true);
    await callEnded(call, ALICE, 'Bob', 'completed');
    await expect.poll(() => t.api.maps.get('holds')?.has(call)).toBe(false);
    const late = sid();
    expect(await post('/api/twilio/voice', browserCall(late, CAT, `park:${call}`))).toContain(
      '<Reject',
    );
    // Twilio ends the refused call (its TwiML app's status callback): Cat is not on it.
    await callEnded(late, CAT, `park:${call}`, 'busy');
  });
});

describe('blind transfer on Twilio', () => {
  it('the waiting side dials the target; a transfer not taken rings the transferrer back with the reason', async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'blind' })).status).toBe(204);
    // Alice's call (the parent) dials Cat, named as Alice; Bob's leg ends with the move.
    const dial = await ringGiven(call);
    expect(dial).toContain(`<Identity>${vid(CAT)}</Identity>`);
    expect(dial).toContain('<Parameter name="CallerName" value="Alice"/>');
    expect(actions(xml)).toHaveLength(1);
    // Cat declines: the <Dial>'s action rings Bob back, saying why.
    const back = await post(pathOf(actions(dial)[0]!), { CallSid: call, DialCallStatus: 'busy' });
    expect(back).toContain(`<Identity>${vid(BOB)}</Identity>`);
    expect(back).toContain('<Parameter name="RingBack" value="1"/>');
    expect(back).toContain('<Parameter name="RingBackReason" value="Cat declined the transfer"/>');
  });

  it('the ring URL asked for a leg given no ring (this server restarted since) hangs it up', async () => {
    expect(await post('/api/twilio/voice/ring', { CallSid: sid() })).toContain('<Hangup/>');
  });

  it('refuses what cannot be done with a sentence, changing nothing', async () => {
    const { call, bobLeg } = await aliceCallsBob();
    const before = t.api.changed.length;
    expect(await control(BOB, bobLeg, 'transfer', { to: 'Bob', mode: 'blind' })).toMatchObject({
      status: 400,
      json: { error: { message: 'You cannot transfer a call to yourself.' } },
    });
    expect(await control(BOB, bobLeg, 'transfer', { to: 'Alice', mode: 'blind' })).toMatchObject({
      status: 400,
      json: { error: { message: 'Alice is already on this call.' } },
    });
    expect(await control(BOB, bobLeg, 'transfer', { to: 'Nobody', mode: 'blind' })).toMatchObject({
      status: 404,
    });
    expect(t.api.changed.length).toBe(before);
    expect(changesOf(call)).toEqual([]);
  });
});

describe('a transfer to someone whose call Twilio has ended, its callbacks still on their way', () => {
  it('is refused while Twilio lists their call, and goes once it lists it ended', async () => {
    // Cat calls a customer's number and talks: this server has her on a call.
    const catCall = sid();
    const catLeg = sid();
    await post('/api/twilio/voice', browserCall(catCall, CAT, '+15559876543'));
    await post(
      '/api/twilio/leg',
      { CallSid: catLeg, ParentCallSid: catCall, To: '+15559876543', CallStatus: 'in-progress' },
      204,
    );
    for (const listed of t.api.calls) if (listed.sid === catCall) listed.status = 'in-progress';
    const { call, bobLeg } = await aliceCallsBob();
    expect(await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'blind' })).toMatchObject({
      status: 409,
      json: { error: { message: 'Cat is on another call.' } },
    });
    // Twilio ends her call; its status callbacks are late (separate requests: docs/twilio.md).
    for (const listed of t.api.calls)
      if (listed.sid === catCall || listed.sid === catLeg) listed.status = 'completed';
    expect((await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'blind' })).status).toBe(204);
    expect(await ringGiven(call)).toContain(`<Identity>${vid(CAT)}</Identity>`);
    // The callbacks come.
    await post(
      '/api/twilio/leg',
      { CallSid: catLeg, ParentCallSid: catCall, To: '+15559876543', CallStatus: 'completed' },
      204,
    );
    await callEnded(catCall, CAT, '+15559876543');
  });
});

describe('a blind transfer to a ring group on Twilio', () => {
  it('rings the members who can take it, the group named; nobody answering rings the sender back', async () => {
    const { call, bobLeg } = await aliceCallsBob();
    // Support rings Alice, Bob and Cat in order: Bob sends it and Alice waits, so Cat alone rings.
    expect(
      (await control(BOB, bobLeg, 'transfer', { to: SUPPORT_NUMBER, mode: 'blind' })).status,
    ).toBe(204);
    const dial = await ringGiven(call);
    expect(dial.match(/<Identity>[^<]+<\/Identity>/g)).toEqual([
      `<Identity>${vid(CAT)}</Identity>`,
    ]);
    expect(dial).toContain('<Parameter name="Group" value="Support"/>');
    expect(dial).toContain('<Parameter name="CallerName" value="Alice"/>');
    const back = await post(pathOf(actions(dial)[0]!), {
      CallSid: call,
      DialCallStatus: 'no-answer',
    });
    expect(back).toContain(`<Identity>${vid(BOB)}</Identity>`);
    expect(back).toContain(
      '<Parameter name="RingBackReason" value="Nobody in Support could take the call"/>',
    );
  });
});

describe('an attended transfer on Twilio', () => {
  const consultProgress = (live: string, callSid: string, status: string) =>
    post(`/api/twilio/voice/consult?call=${live}`, { CallSid: callSid, CallStatus: status }, 204);

  it("started by the caller's leg, moves each leg once: the parent is never redirected while its child's redirect may be pending", async () => {
    // Issue 42, finding 7: Twilio applies a call update after answering it, and a <Dial>'s parent
    // given new TwiML ends the <Dial>, hanging up a child not yet moved
    // (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource). Alice placed
    // the call (its parent); she asks Cat first.
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect((await control(ALICE, call, 'transfer', { to: 'Cat', mode: 'consult' })).status).toBe(
      204,
    );
    // Bob (the child) is moved once, to wait with the music; Alice's call is not updated at all:
    // her <Dial>'s action, asked when Bob's leg leaves it, takes her to the consultation.
    expect(changesOf(bobLeg)).toHaveLength(1);
    expect(changesOf(bobLeg)[0]!.Twiml).toContain(`waitUrl="${HOLD_MUSIC}"`);
    expect(changesOf(call)).toEqual([]);
    const aliceGoes = await post(pathOf(actions(xml)[0]!), {
      CallSid: call,
      DialCallStatus: 'completed',
    });
    const room = conferenceOf(aliceGoes)!;
    expect(room).toMatch(/^consult-/);
    expect(aliceGoes).not.toContain(HOLD_MUSIC);
    expect(t.api.placed.at(-1)!.form).toMatchObject({ To: `client:${vid(CAT)}` });
    expect(t.api.placed.at(-1)!.form.Twiml).toContain(`>${room}</Conference>`);
    expect((await control(ALICE, call, 'transfer/cancel' as 'hold')).status).toBe(204);
  });

  it("holds the caller, calls the colleague into the transferrer's own conference, then hands over", async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'consult' })).status).toBe(
      204,
    );
    // Alice waits with the music (her <Dial> action), Bob moves to a conference of his own.
    const aliceWaits = await post(pathOf(actions(xml)[0]!), {
      CallSid: call,
      DialCallStatus: 'completed',
    });
    expect(aliceWaits).toContain(`waitUrl="${HOLD_MUSIC}"`);
    const bobRoom = conferenceOf(changesOf(bobLeg).at(-1)!.Twiml!)!;
    expect(bobRoom).toMatch(/^consult-/);
    // Cat's browsers are called through the Calls resource, into Bob's conference, starting it.
    const placed = t.api.placed.at(-1)!;
    expect(placed.form).toMatchObject({
      To: `client:${vid(CAT)}`,
      From: `client:${vid(BOB)}`,
      StatusCallback: expect.stringContaining(`/api/twilio/voice/consult?call=${call}`),
    });
    expect(placed.form.Twiml).toContain(
      `<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${bobRoom}</Conference>`,
    );
    // Completing before Cat answers is refused.
    expect((await control(BOB, bobLeg, 'transfer/complete' as 'hold')).json).toMatchObject({
      error: {
        code: 'no_transfer',
        message: 'Cat has not answered yet: wait, or cancel the transfer.',
      },
    });
    await consultProgress(call, placed.sid, 'in-progress');
    await expect
      .poll(() => toldTo(bobLeg))
      .toContainEqual({ event: 'consultAnswered', name: 'Cat' });

    expect((await control(BOB, bobLeg, 'transfer/complete' as 'hold')).status).toBe(204);
    // Alice joins Bob's conference and Bob's leg ends.
    expect(changesOf(call).at(-1)?.Twiml).toContain(`>${bobRoom}</Conference>`);
    await expect.poll(() => changesOf(bobLeg).at(-1)).toEqual({ Status: 'completed' });
    await expect
      .poll(() => toldTo(call))
      .toContainEqual({ event: 'party', identity: CAT, name: 'Cat' });

    // Cat hangs up: Alice, alone, is hung up; one row, transferred to Cat by Bob.
    await consultProgress(call, placed.sid, 'completed');
    await expect.poll(() => changesOf(call).at(-1)).toEqual({ Status: 'completed' });
    await callEnded(call, ALICE, 'Bob', 'completed');
    await expect.poll(() => hasRow(call)).toBe(true);
    const row = (
      t.api.listData('calls') as {
        callSid: string;
        handledBy: string;
        trail: { action: string; by: string; to?: string }[];
      }[]
    ).find((r) => r.callSid === call)!;
    expect(row.handledBy).toBe(CAT);
    expect(row.trail.map((s) => `${s.action} ${s.by}${s.to ? ` ${s.to}` : ''}`)).toEqual([
      `held ${BOB}`,
      `transferred ${BOB} ${CAT}`,
    ]);
  });

  it('a colleague who declines ends the consultation: the transferrer is back with the caller, told why', async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect(await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'consult' })).toEqual({
      status: 204,
      json: null,
    });
    const aliceWaits = await post(pathOf(actions(xml)[0]!), {
      CallSid: call,
      DialCallStatus: 'completed',
    });
    const holdRoom = conferenceOf(aliceWaits)!;
    const placed = t.api.placed.at(-1)!;
    await consultProgress(call, placed.sid, 'busy');
    await expect
      .poll(() => toldTo(bobLeg))
      .toContainEqual({ event: 'consultEnded', reason: 'Cat declined.' });
    expect(changesOf(bobLeg).at(-1)?.Twiml).toContain(
      `<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${holdRoom}</Conference>`,
    );
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'resumed', by: 'Bob' });
    // Nothing is under way any more.
    expect((await control(BOB, bobLeg, 'transfer/cancel' as 'hold')).status).toBe(409);
  });

  it('a cancel stops the colleague ringing and tells the transferrer, back with the caller', async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    expect((await control(BOB, bobLeg, 'transfer', { to: 'Cat', mode: 'consult' })).status).toBe(
      204,
    );
    await post(pathOf(actions(xml)[0]!), { CallSid: call, DialCallStatus: 'completed' });
    const placed = t.api.placed.at(-1)!;
    expect((await control(BOB, bobLeg, 'transfer/cancel' as 'hold')).status).toBe(204);
    await expect.poll(() => changesOf(placed.sid).at(-1)).toEqual({ Status: 'canceled' });
    await expect
      .poll(() => toldTo(bobLeg))
      .toContainEqual({ event: 'consultEnded', reason: 'You cancelled the transfer to Cat.' });
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'resumed', by: 'Bob' });
  });

  it('to a group ringing all at once: its calls are placed one a second, each ringing until the turn ends, as a <Dial> turn', async () => {
    // Twilio places API calls at 1 per second and queues the rest (https://www.twilio.com/docs/glossary/cps),
    // and adds 5 s to a call's Timeout (https://www.twilio.com/docs/voice/api/call-resource).
    const allDay = { start: '00:00', end: '24:00' };
    t.api.setMapItem('groups', 'grp-all', {
      name: 'Everyone',
      number: '+442079460002',
      members: [ADA, CAT],
      strategy: 'simultaneous',
      ringTimeout: 20,
    });
    t.api.setDocument('schedule:grp-all', {
      timeZone: 'UTC',
      week: Object.fromEntries(
        ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [allDay]]),
      ),
    });
    // Ada's browser is on too (the team's seed has her offline).
    t.api.setMapItem('presence', ADA, { status: 'available', onCall: false }, 3600 * 24 * 365 * 5);
    t.clock.now += 60_000; // past the caches
    const { xml, call, bobLeg } = await aliceCallsBob();
    const before = t.api.placed.length;
    expect(
      (await control(BOB, bobLeg, 'transfer', { to: '+442079460002', mode: 'consult' })).status,
    ).toBe(204);
    await post(pathOf(actions(xml)[0]!), { CallSid: call, DialCallStatus: 'completed' });
    // One placed at once, ringing the turn's 20 s (Timeout 15, Twilio adding 5).
    const first = t.api.placed.slice(before);
    expect(first.map((p) => [p.form.To, p.form.Timeout])).toEqual([[`client:${vid(ADA)}`, '15']]);
    // A second later the next, ringing what is left of the turn.
    const placedAt = Date.now();
    t.clock.now += 1000;
    await expect.poll(() => t.api.placed.length - before, { timeout: 3000 }).toBe(2);
    expect(Date.now() - placedAt).toBeGreaterThan(700);
    const second = t.api.placed.at(-1)!;
    expect([second.form.To, second.form.Timeout]).toEqual([`client:${vid(CAT)}`, '14']);
    // Nobody answers: the transferrer is back, told why, once the last call is over.
    await consultProgress(call, first[0]!.sid, 'no-answer');
    expect(toldTo(bobLeg)).not.toContainEqual(expect.objectContaining({ event: 'consultEnded' }));
    await consultProgress(call, second.sid, 'no-answer');
    await expect
      .poll(() => toldTo(bobLeg))
      .toContainEqual({ event: 'consultEnded', reason: 'Nobody in Everyone could take the call.' });
    t.api.maps.get('presence')?.delete(ADA);
  });

  it("to a ring group: its members who can take it are called in the group's turns; nobody answering ends it, saying so", async () => {
    const { xml, call, bobLeg } = await aliceCallsBob();
    const before = t.api.placed.length;
    // Support rings Alice, Bob and Cat in order: Bob asks and Alice waits, so Cat alone is called.
    expect(
      (await control(BOB, bobLeg, 'transfer', { to: SUPPORT_NUMBER, mode: 'consult' })).status,
    ).toBe(204);
    await post(pathOf(actions(xml)[0]!), { CallSid: call, DialCallStatus: 'completed' });
    const placed = t.api.placed.slice(before);
    expect(placed.map((p) => p.form.To)).toEqual([`client:${vid(CAT)}`]);
    expect((await control(BOB, bobLeg, 'transfer/complete' as 'hold')).json).toMatchObject({
      error: { message: 'Support has not answered yet: wait, or cancel the transfer.' },
    });
    await consultProgress(call, placed[0]!.sid, 'no-answer');
    await expect
      .poll(() => toldTo(bobLeg))
      .toContainEqual({ event: 'consultEnded', reason: 'Nobody in Support could take the call.' });
    await expect.poll(() => toldTo(call)).toContainEqual({ event: 'resumed', by: 'Bob' });
  });
});
