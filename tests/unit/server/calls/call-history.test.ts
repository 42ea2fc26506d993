/**
 * Following calls through Twilio's callbacks to their `calls` history item, written through the
 * `twilio` package to the stand-in of Twilio's Sync REST API (the form-encoded requests it received
 * are what is checked): an answered call, voicemail (with the recording before and after the
 * row), a declined direct call, and a call this server did not see start. Every row is the call
 * record both backends write (src/contracts/records/call.ts). Also the audio Twilio fetches for
 * announcements and the voicemail recordings the browser plays (GET /api/voicemail/{id}, the route
 * the embedded backend serves its messages on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRecord } from '../../../../src/contracts/records/call';
import {
  ADA,
  ALICE,
  BOB,
  CAT,
  SALES_NUMBER,
  THU_HOLIDAY,
  WED_OPEN,
  seedTeam,
  vid,
} from './fixture';
import {
  ACCOUNT_SID,
  SERVICE_SID,
  browserCall,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from '../twilio/support';
import { actions, pathOf } from './twiml-support';

const CALLER = '+447700900123';
const SECOND = 1000;
let t: TwilioTestApp;
let cookies: Record<string, string>;

beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  cookies = await seedTeam(t);
}, 60_000);
afterAll(() => t.close());

const LIST = `/sync/v1/Services/${SERVICE_SID}/Lists/calls/Items`;

/** The `calls` items created through the REST API, as Twilio would store them; each a call record. */
function created(): Record<string, unknown>[] {
  return t.api.requests
    .filter((r) => r.method === 'POST' && r.path === LIST)
    .map((r) => {
      const row = JSON.parse(r.form.Data!) as Record<string, unknown>;
      expect(callRecord.check(row)).toMatchObject({ ok: true, value: row });
      return row;
    });
}

const post = (path: string, form: Record<string, string>, status = 200): Promise<string> =>
  t.post(path, form, status);

const leg = (parent: string, legSid: string, to: string, status: string) =>
  post(
    '/api/twilio/leg',
    {
      CallSid: legSid,
      ParentCallSid: parent,
      To: to,
      CallStatus: status,
      Direction: 'outbound-dial',
    },
    204,
  );

const ended = (callSid: string, from = CALLER, to = SALES_NUMBER, status = 'completed') =>
  post(
    '/api/twilio/status',
    {
      CallSid: callSid,
      CallStatus: status,
      CallDuration: '70',
      From: from,
      To: to,
      Direction: 'inbound',
    },
    204,
  );

describe('an answered call', () => {
  it('keeps who answered and when, skips them while they talk, and appends one calls item', async () => {
    const callSid = sid();
    const bobLeg = sid();
    const xml = await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    t.clock.now += 5 * SECOND;
    await leg(callSid, bobLeg, `client:${vid(BOB)}`, 'in-progress');

    // While Bob talks, a second caller rings only Alice.
    t.clock.now += 5 * SECOND;
    const other = await post(
      '/api/twilio/voice',
      incomingCall(sid(), '+447700900999', SALES_NUMBER),
    );
    expect(other).toContain(`<Identity>${vid(ALICE)}</Identity>`);
    expect(other).not.toContain(`<Identity>${vid(BOB)}</Identity>`);

    t.clock.now += 55 * SECOND;
    const after = await post(pathOf(actions(xml)[0]!), {
      CallSid: callSid,
      DialCallStatus: 'completed',
      DialCallDuration: '60',
      From: CALLER,
      To: SALES_NUMBER,
    });
    expect(after).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
    await leg(callSid, bobLeg, `client:${vid(BOB)}`, 'completed');
    t.clock.now += 1 * SECOND;
    await ended(callSid);

    const request = t.api.requests.filter((r) => r.path === LIST).at(-1)!;
    expect(request.authorization).toMatch(/^Basic /);
    // Kept SWITCHBOARD_HISTORY_DAYS (365 by default): Sync's longest ttl, a year.
    expect(Object.keys(request.form)).toEqual(['Data', 'Ttl']);
    expect(request.form.Ttl).toBe('31536000');
    expect(created().at(-1)).toEqual({
      callSid,
      attempt: '',
      direction: 'inbound',
      from: CALLER,
      to: SALES_NUMBER,
      user: '',
      callee: null,
      group: 'grp-sales',
      groupName: 'Sales',
      handledBy: BOB,
      trail: [],
      startedAt: WED_OPEN,
      answeredAt: WED_OPEN + 5 * SECOND,
      endedAt: WED_OPEN + 66 * SECOND,
      duration: 61,
      outcome: 'answered',
      reason: 'Ringing Alice and Bob at once.',
      // The steps the caller was told, as the embedded backend keeps them (src/domain/routing/steps.ts).
      routing: [
        { kind: 'situation', text: 'Sales is open.', at: WED_OPEN },
        { kind: 'announce', text: 'Playing the greeting announcement.', at: WED_OPEN },
        { kind: 'ring', text: 'Ringing Alice and Bob at once.', at: WED_OPEN },
        { kind: 'answered', text: 'Bob answered.', at: WED_OPEN + 5 * SECOND },
      ],
      voicemail: null,
      forwardedTo: null,
      test: false,
      quality: [],
      relay: [],
    });

    // A caller from a phone has no Voice SDK: nothing is told ("A UserDefinedMessage subresource can
    // only be created during an active call associated with the Voice SDK"; a browser caller is told
    // each step: routing-twiml.test.ts).
    expect(t.api.told.filter((m) => m.callSid === callSid)).toEqual([]);

    // Bob is free again.
    t.clock.now += 10 * SECOND;
    expect(await post('/api/twilio/voice', incomingCall(sid(), CALLER, SALES_NUMBER))).toContain(
      `<Identity>${vid(BOB)}</Identity>`,
    );
  });
});

describe('status callbacks out of order', () => {
  // "Although events are fired in order, they are made as separate HTTP requests, and there is no
  // guarantee they will arrive in the same order" (SequenceNumber,
  // https://www.twilio.com/docs/voice/api/call-resource#statuscallbackevent).
  const legAt = (
    parent: string,
    legSid: string,
    status: string,
    sequence: number | null,
    more: Record<string, string> = {},
  ) =>
    post(
      '/api/twilio/leg',
      {
        CallSid: legSid,
        ParentCallSid: parent,
        To: `client:${vid(BOB)}`,
        CallStatus: status,
        Direction: 'outbound-dial',
        CallbackSource: 'call-progress-events',
        ...(sequence === null ? {} : { SequenceNumber: String(sequence) }),
        ...more,
      },
      204,
    );
  const ringsBob = async (): Promise<boolean> =>
    (await post('/api/twilio/voice', incomingCall(sid(), CALLER, SALES_NUMBER))).includes(
      `<Identity>${vid(BOB)}</Identity>`,
    );

  it("an answer that arrives after the leg's end (a lower SequenceNumber) leaves nobody on a call; the end says who answered", async () => {
    const callSid = sid();
    const bobLeg = sid();
    await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    t.clock.now += 5 * SECOND;
    // Fired answered (0) then completed (1, after 40 s of talk); they arrive the other way round.
    await legAt(callSid, bobLeg, 'completed', 1, { CallDuration: '40' });
    await legAt(callSid, bobLeg, 'in-progress', 0);
    await ended(callSid);
    t.clock.now += 1 * SECOND;
    expect(await ringsBob()).toBe(true);
    // A leg `completed` was answered ("The call was answered and has ended normally"): the row
    // says Bob took it, 40 s before its end.
    const row = created().find((r) => r.callSid === callSid)!;
    expect(row).toMatchObject({ handledBy: BOB, outcome: 'answered' });
    expect(Number(row.endedAt) - Number(row.answeredAt)).toBeGreaterThanOrEqual(40 * SECOND);
  });

  it('a leg that ended unanswered (no-answer) is not taken for an answer', async () => {
    const callSid = sid();
    const bobLeg = sid();
    await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    await legAt(callSid, bobLeg, 'no-answer', 1);
    await ended(callSid);
    expect(created().find((r) => r.callSid === callSid)).toMatchObject({ handledBy: null });
  });

  it('a leg reported over is never put on a call again, whatever its SequenceNumber says', async () => {
    const callSid = sid();
    const bobLeg = sid();
    await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    await legAt(callSid, bobLeg, 'completed', null);
    await legAt(callSid, bobLeg, 'in-progress', null);
    await ended(callSid);
    t.clock.now += 1 * SECOND;
    expect(await ringsBob()).toBe(true);
  });

  it('a callback sent twice is taken once', async () => {
    const callSid = sid();
    const bobLeg = sid();
    await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    await legAt(callSid, bobLeg, 'in-progress', 0);
    await legAt(callSid, bobLeg, 'in-progress', 0);
    expect(await ringsBob()).toBe(false);
    await legAt(callSid, bobLeg, 'completed', 1);
    await legAt(callSid, bobLeg, 'completed', 1);
    await ended(callSid);
    expect(await ringsBob()).toBe(true);
  });
});

describe('voicemail', () => {
  const RECORDING = `RE${'a'.repeat(32)}`;

  it('a message left on a holiday is on the row, and plays to the group and admins only', async () => {
    t.clock.now = THU_HOLIDAY;
    const callSid = sid();
    const xml = await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    const record = actions(xml)[0]!;
    expect(record).toBe('https://switchboard.example.com/api/twilio/voicemail?group=grp-sales');
    t.clock.now += 30 * SECOND;
    const thanks = await post(pathOf(record), {
      CallSid: callSid,
      RecordingSid: RECORDING,
      RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Recordings/${RECORDING}`,
      RecordingDuration: '14',
      Digits: 'hangup',
    });
    expect(thanks).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Thank you. Goodbye.</Say><Hangup/></Response>',
    );
    await ended(callSid);
    const row = created().at(-1)!;
    expect(row).toMatchObject({
      callSid,
      direction: 'inbound',
      group: 'grp-sales',
      groupName: 'Sales',
      handledBy: null,
      outcome: 'voicemail',
      duration: 0,
      reason: 'Left a voicemail (14 s).',
      voicemail: { id: RECORDING, seconds: 14 },
    });

    // The same route as the embedded backend's messages: /api/voicemail/{the row's voicemail.id}.
    t.api.recordings.set(RECORDING, Buffer.from('RIFF fake wav'));
    const play = (cookie?: string, id = RECORDING) =>
      fetch(`${t.url}/api/voicemail/${id}`, { headers: cookie ? { Cookie: cookie } : {} });
    for (const who of [ALICE, ADA]) {
      const res = await play(cookies[who]);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/wav');
      expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('RIFF fake wav');
    }
    // Not a member: the same answer as for no message at all.
    expect((await play(cookies[CAT])).status).toBe(404);
    expect((await play()).status).toBe(401);
    expect((await play(cookies[ADA], `RE${'f'.repeat(32)}`)).status).toBe(404);
    expect((await play(cookies[ADA], 'vm-0000000000000000')).status).toBe(404);
  });

  it('a message this server did not see left is found by its history row, for its group only', async () => {
    const earlier = `RE${'c'.repeat(32)}`;
    t.api.pushListItem('calls', {
      ...created().at(-1)!,
      callSid: sid(),
      voicemail: { id: earlier, seconds: 5 },
    });
    t.api.recordings.set(earlier, Buffer.from('ID3 earlier'));
    const play = (cookie: string) =>
      fetch(`${t.url}/api/voicemail/${earlier}`, { headers: { Cookie: cookie } });
    const res = await play(cookies[ALICE]!);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('ID3 earlier');
    expect((await play(cookies[CAT]!)).status).toBe(404);
  });

  it('a recording reported after the row was written updates that row', async () => {
    t.clock.now = THU_HOLIDAY + 10 * 60 * SECOND;
    const callSid = sid();
    await post('/api/twilio/voice', incomingCall(callSid, CALLER, SALES_NUMBER));
    await ended(callSid);
    expect(created().at(-1)).toMatchObject({ callSid, outcome: 'abandoned' });
    const before = t.api.requests.length;
    const late = `RE${'b'.repeat(32)}`;
    await post(
      '/api/twilio/recording?group=grp-sales',
      {
        CallSid: callSid,
        RecordingSid: late,
        RecordingStatus: 'completed',
        RecordingDuration: '9',
      },
      204,
    );
    const update = t.api.requests
      .slice(before)
      .find((r) => r.method === 'POST' && r.path.startsWith(LIST));
    const index = [...t.api.lists.get('calls')!.keys()].at(-1)!;
    expect(update?.path).toBe(`${LIST}/${index}`);
    const updated = JSON.parse(update!.form.Data!) as Record<string, unknown>;
    expect(callRecord.check(updated)).toMatchObject({ ok: true, value: updated });
    expect(updated).toMatchObject({
      callSid,
      outcome: 'voicemail',
      reason: 'Left a voicemail (9 s).',
      voicemail: { id: late, seconds: 9 },
    });
    expect(t.api.listData('calls').at(-1)).toMatchObject({ voicemail: { id: late } });
  });
});

describe('other endings', () => {
  it('a direct call the colleague declines is rejected, from the caller to the callee', async () => {
    t.clock.now = THU_HOLIDAY + 20 * 60 * SECOND;
    const callSid = sid();
    const xml = await post('/api/twilio/voice', browserCall(callSid, ALICE, BOB));
    await post(pathOf(actions(xml)[0]!), {
      CallSid: callSid,
      DialCallStatus: 'busy',
      From: `client:${vid(ALICE)}`,
      To: BOB,
    });
    await ended(callSid, `client:${vid(ALICE)}`, BOB);
    expect(created().at(-1)).toMatchObject({
      callSid,
      direction: 'outbound',
      from: ALICE,
      to: BOB,
      user: ALICE,
      callee: BOB,
      handledBy: null,
      outcome: 'rejected',
    });
  });

  it('a direct call to someone in do not disturb is recorded as do not disturb, not busy', async () => {
    t.api.setDocument(`settings:${CAT}`, { doNotDisturb: true });
    t.clock.now += 60 * SECOND; // past the do-not-disturb cache
    try {
      const callSid = sid();
      const xml = await post('/api/twilio/voice', browserCall(callSid, ALICE, CAT));
      expect(xml).toContain('<Reject reason="busy"/>');
      // Twilio reports a call refused with <Reject reason="busy"> as busy.
      await ended(callSid, `client:${vid(ALICE)}`, CAT, 'busy');
      expect(created().at(-1)).toMatchObject({
        callSid,
        from: ALICE,
        callee: CAT,
        outcome: 'doNotDisturb',
      });
    } finally {
      t.api.documents.delete(`settings:${CAT}`);
    }
  });

  it('a direct call to someone on another call is refused as busy, and the row says why', async () => {
    const before = t.api.maps.get('presence')!.get(CAT)!;
    t.api.setMapItem('presence', CAT, { status: 'available', onCall: true }, 3600 * 24 * 365 * 5);
    // Twilio lists Cat's call in progress (another server's, say).
    const catsCall = { sid: sid(), to: `client:${vid(CAT)}`, from: CALLER, status: 'in-progress' };
    t.api.calls.push(catsCall);
    t.clock.now += 60 * SECOND; // past the cached reads
    try {
      const callSid = sid();
      const xml = await post('/api/twilio/voice', browserCall(callSid, ALICE, CAT));
      expect(xml).toContain('<Reject reason="busy"/>');
      expect(xml).not.toContain('<Dial');
      await ended(callSid, `client:${vid(ALICE)}`, CAT, 'busy');
      expect(created().at(-1)).toMatchObject({
        callSid,
        from: ALICE,
        callee: CAT,
        outcome: 'busy',
        reason: 'Cat is on another call.',
      });
    } finally {
      t.api.calls.splice(t.api.calls.indexOf(catsCall), 1);
      t.api.setMapItem('presence', CAT, before.data, 3600 * 24 * 365 * 5);
    }
  });

  it("a refused call keeps the placing browser's attempt id, so its card finds the row without a CallSid", async () => {
    const attempt = '0123456789abcdef0123456789abcdef';
    const refused = sid();
    const xml = await post('/api/twilio/voice', {
      ...browserCall(refused, ALICE, ALICE),
      Attempt: attempt,
    });
    expect(xml).toContain('<Reject');
    await ended(refused, `client:${vid(ALICE)}`, ALICE, 'no-answer');
    expect(created().at(-1)).toMatchObject({ callSid: refused, attempt, user: ALICE });
    // Anything not shaped as the browser makes it is not kept.
    const odd = sid();
    await post('/api/twilio/voice', {
      ...browserCall(odd, ALICE, ALICE),
      Attempt: 'x'.repeat(500),
    });
    await ended(odd, `client:${vid(ALICE)}`, ALICE, 'no-answer');
    expect(created().at(-1)).toMatchObject({ callSid: odd, attempt: '' });
  });

  it("takes Twilio's word on who is on a call: a callee whose end was not reported yet is rung, one whose answer was not reported yet is refused as busy", async () => {
    const before = t.api.maps.get('presence')!.get(CAT)!;
    try {
      // Sync still says Cat is on a call, but Twilio lists none of hers in progress: she is rung.
      t.api.setMapItem('presence', CAT, { status: 'available', onCall: true }, 3600 * 24 * 365 * 5);
      t.clock.now += 60 * SECOND;
      const rung = sid();
      const xml = await post('/api/twilio/voice', browserCall(rung, ALICE, CAT));
      expect(xml).toContain(`<Identity>${vid(CAT)}</Identity>`);
      // Sync says she is free, but Twilio lists a call to her in progress: refused as busy.
      t.api.setMapItem('presence', CAT, { status: 'available' }, 3600 * 24 * 365 * 5);
      const catsCall = {
        sid: sid(),
        to: `client:${vid(CAT)}`,
        from: CALLER,
        status: 'in-progress',
      };
      t.api.calls.push(catsCall);
      t.clock.now += 60 * SECOND;
      try {
        const refused = await post('/api/twilio/voice', browserCall(sid(), ALICE, CAT));
        expect(refused).toContain('<Reject reason="busy"/>');
      } finally {
        t.api.calls.splice(t.api.calls.indexOf(catsCall), 1);
      }
    } finally {
      t.api.setMapItem('presence', CAT, before.data, 3600 * 24 * 365 * 5);
    }
  });

  it('a call this server did not see start: written from the status callback, its outcome unknown', async () => {
    const callSid = sid();
    await ended(callSid);
    const row = created().at(-1)!;
    expect(row).toMatchObject({
      callSid,
      direction: 'inbound',
      from: CALLER,
      group: 'grp-sales',
      groupName: 'Sales',
      outcome: 'unknown',
    });
    expect(row.reason).toMatch(/did not follow the call/);
  });
});

describe('announcement audio for Twilio', () => {
  it('the Play URL serves the rendered announcement; any other signature is not found', async () => {
    t.clock.now = WED_OPEN + 7 * 24 * 3600 * SECOND;
    const xml = await post('/api/twilio/voice', incomingCall(sid(), CALLER, SALES_NUMBER));
    const play = /<Play>([^<]+)<\/Play>/.exec(xml)![1]!.replace(/&amp;/g, '&');
    const res = await fetch(`${t.url}${pathOf(play)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await res.arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(8000);
    const forged = pathOf(play).replace(/s=[^&]+/, 's=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect((await fetch(`${t.url}${forged}`)).status).toBe(404);
    expect((await fetch(`${t.url}${pathOf(play).replace('gd-open', 'gd-closed')}`)).status).toBe(
      404,
    );
  });

  it("a text announcement the speech engine cannot render is spoken by Twilio's Say", async () => {
    t.api.setMapItem('guidance', 'gd-open', {
      kind: 'tts',
      text: 'Willkommen.',
      language: 'xx-nowhere',
    });
    t.clock.now += 60 * SECOND; // past the configuration cache
    const xml = await post('/api/twilio/voice', incomingCall(sid(), CALLER, SALES_NUMBER));
    expect(xml).toContain('<Say>Willkommen.</Say><Dial');
  });
});
