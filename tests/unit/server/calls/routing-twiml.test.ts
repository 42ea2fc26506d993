/**
 * Twilio's voice webhook answered for each routing case: recorded requests (the form Twilio posts to a
 * number's Voice URL and to the TwiML app's), signed with the test auth token, and the TwiML compared
 * with the expected document. A call is then followed through its `<Dial action>` URLs as Twilio
 * would, branch by branch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADA,
  ALICE,
  BOB,
  CAT,
  SALES_NUMBER,
  SUPPORT_NUMBER,
  THU_HOLIDAY,
  WED_CLOSED,
  WED_OPEN,
  seedTeam,
  vid,
} from './fixture';
import {
  ACCOUNT_SID,
  browserCall,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from '../twilio/support';
import { actions, doc, pathOf, readable } from './twiml-support';

const CALLER = '+447700900123';
const P = 'https://switchboard.example.com';
const LEG = `statusCallback="${P}/api/twilio/leg" statusCallbackEvent="ringing answered completed"`;
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>';
/** Friday 12 March 2027, 10:00 UTC: open. The tests' clock only moves forward (caches expire). */
const FRI_OPEN = Date.UTC(2027, 2, 12, 10, 0);
const MINUTE = 60_000;

let t: TwilioTestApp;

beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  await seedTeam(t);
}, 60_000);
afterAll(() => t.close());

async function call(
  to: string,
  at: number,
  from = CALLER,
): Promise<{ callSid: string; xml: string }> {
  expect(at).toBeGreaterThanOrEqual(t.clock.now);
  t.clock.now = at;
  const callSid = sid();
  const res = await t.webhook('/api/twilio/voice', incomingCall(callSid, from, to));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
  return { callSid, xml: await res.text() };
}

/** What Twilio posts to a `<Dial action>` URL when the dial ended with `status`. */
async function dialEnded(
  actionUrl: string,
  callSid: string,
  status: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const res = await t.webhook(pathOf(actionUrl), {
    AccountSid: ACCOUNT_SID,
    CallSid: callSid,
    CallStatus: 'in-progress',
    DialCallStatus: status,
    DialCallSid: sid(),
    Direction: 'inbound',
    From: CALLER,
    To: SALES_NUMBER,
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('TwiML for each routing case', () => {
  it('open, all at once: the greeting, then one Dial with a Client per available member', async () => {
    const { xml } = await call(SALES_NUMBER, WED_OPEN);
    expect(readable(xml)).toBe(
      doc(`${HEAD}<Response>
        <Play>${P}/api/twilio/audio/gd-open.wav?signed</Play>
        <Dial timeout="15" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={no answer: voicemail grp-sales; busy: voicemail grp-sales}">
          <Client ${LEG}><Identity>${vid(ALICE)}</Identity><Parameter name="Group" value="Sales"/><Parameter name="GroupId" value="grp-sales"/></Client>
          <Client ${LEG}><Identity>${vid(BOB)}</Identity><Parameter name="Group" value="Sales"/><Parameter name="GroupId" value="grp-sales"/></Client>
        </Dial>
      </Response>`),
    );
  });

  it('open, in order: one Client per Dial, the next ring in its action, then the no-answer rule', async () => {
    const { callSid, xml } = await call(SUPPORT_NUMBER, WED_OPEN);
    const first = `${HEAD}<Response>
      <Dial timeout="10" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={ring ${BOB} 15s}">
        <Client ${LEG}><Identity>${vid(ALICE)}</Identity><Parameter name="Group" value="Support"/><Parameter name="GroupId" value="grp-support"/></Client>
      </Dial></Response>`;
    expect(readable(xml)).toBe(doc(first));

    // Alice does not answer: Bob rings. Bob declines (busy): Cat, the last, rings her full 15 s
    // (the no-answer rule's 40 s, the group having no no-answer time of its own, is already past).
    const second = await dialEnded(actions(xml)[0]!, callSid, 'no-answer');
    expect(readable(second)).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="10" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={ring ${CAT} 15s}">
          <Client ${LEG}><Identity>${vid(BOB)}</Identity><Parameter name="Group" value="Support"/><Parameter name="GroupId" value="grp-support"/></Client>
        </Dial></Response>`),
    );
    const third = await dialEnded(actions(second)[0]!, callSid, 'busy');
    expect(readable(third)).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="10" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={forward to +15551230000, dial +15551230000 15s}">
          <Client ${LEG}><Identity>${vid(CAT)}</Identity><Parameter name="Group" value="Support"/><Parameter name="GroupId" value="grp-support"/></Client>
        </Dial></Response>`),
    );
    // Cat does not answer: the no-answer rule dials out (the caller's own number shows), then voicemail.
    const fourth = await dialEnded(actions(third)[0]!, callSid, 'no-answer');
    expect(readable(fourth)).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="10" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={voicemail grp-support}">
          <Number ${LEG}>+15551230000</Number>
        </Dial></Response>`),
    );
    const fifth = await dialEnded(actions(fourth)[0]!, callSid, 'failed');
    expect(readable(fifth)).toBe(
      doc(`${HEAD}<Response>
        <Say>Nobody can take your call right now. Please leave a message after the tone, then hang up or press the hash key.</Say>
        <Record action="${P}/api/twilio/voicemail?group=grp-support" maxLength="120" playBeep="true" timeout="5" finishOnKey="#" recordingStatusCallback="${P}/api/twilio/recording?group=grp-support" recordingStatusCallbackEvent="completed"/>
        <Hangup/>
      </Response>`),
    );
  });

  it('closed: the closed announcement, then the closed rule rings a person', async () => {
    const { xml } = await call(SALES_NUMBER, WED_CLOSED);
    expect(readable(xml)).toBe(
      doc(`${HEAD}<Response>
        <Play>${P}/api/twilio/audio/gd-closed.wav?signed</Play>
        <Dial timeout="15" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={no answer: voicemail grp-sales; busy: voicemail grp-sales}">
          <Client ${LEG}><Identity>${vid(CAT)}</Identity><Parameter name="Group" value="Sales"/><Parameter name="GroupId" value="grp-sales"/></Client>
        </Dial></Response>`),
    );
  });

  it('what follows an announcement is asked for once it has played, each step told as it happens', async () => {
    t.clock.now = Math.max(t.clock.now, WED_CLOSED);
    const callSid = sid();
    const told = () => t.api.told.filter((m) => m.callSid === callSid).map((m) => m.content);
    // A colleague calls the group from their browser: their Voice SDK is told each step.
    const form = browserCall(callSid, ADA, SALES_NUMBER);
    const first = await (
      await t.webhook('/api/twilio/voice', form, {
        follow: false,
      })
    ).text();
    // The announcement, then a <Redirect> carrying the rest of the plan: no <Dial> yet.
    expect(first).toMatch(
      /<Play>[^<]*gd-closed\.wav[^<]*<\/Play><Redirect>https:\/\/switchboard\.example\.com\/api\/twilio\/voice\/continue\?plan=[^<]+<\/Redirect><\/Response>$/,
    );
    await expect
      .poll(() => told().map((m) => (m as { kind: string }).kind))
      .toEqual(['situation', 'announce']);
    const next = /<Redirect>([^<]+)<\/Redirect>/.exec(first)![1]!.replace(/&amp;/g, '&');
    const rest = await (await t.webhook(pathOf(next), form, { follow: false })).text();
    expect(rest).toContain(`<Identity>${vid(CAT)}</Identity>`);
    // The forward and the ring are told now, with their reasons (carried in the signed URL).
    await expect.poll(() => told().length).toBe(4);
    const [forward, ring] = told().slice(2) as { kind: string; text: string }[];
    expect(forward?.kind).toBe('forward');
    expect(forward?.text).toBe('Forwarded to Cat (rule: outside business hours).');
    expect(ring).toEqual({ event: 'routing', kind: 'ring', text: expect.stringMatching(/Cat/) });
    // A forged continuation is refused (the URL's signature covers the plan and the reasons).
    const forged = await t.webhook(pathOf(next.replace('why=', 'why=x')), form, {
      follow: false,
      signedUrl: next,
    });
    expect(forged.status).toBe(403);
  });

  it('holiday: the closed announcement (no holiday one), the voicemail greeting, then Record', async () => {
    const { xml } = await call(SALES_NUMBER, THU_HOLIDAY);
    expect(readable(xml)).toBe(
      doc(`${HEAD}<Response>
        <Play>${P}/api/twilio/audio/gd-closed.wav?signed</Play>
        <Play>${P}/api/twilio/audio/gd-vm.wav?signed</Play>
        <Record action="${P}/api/twilio/voicemail?group=grp-sales" maxLength="120" playBeep="true" timeout="5" finishOnKey="#" recordingStatusCallback="${P}/api/twilio/recording?group=grp-sales" recordingStatusCallbackEvent="completed"/>
        <Hangup/>
      </Response>`),
    );
  });

  it('an always rule to an outside number: Dial Number at once, voicemail if it does not answer', async () => {
    const { xml } = await call('203', THU_HOLIDAY + MINUTE);
    expect(readable(xml)).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="20" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={voicemail grp-out}">
          <Number ${LEG}>+15559870000</Number>
        </Dial></Response>`),
    );
  });

  it('a forwarding loop is cut to the voicemail of the group where it would close', async () => {
    const { xml } = await call('201', THU_HOLIDAY + 2 * MINUTE);
    expect(readable(xml)).toBe(
      doc(`${HEAD}<Response>
        <Say>Nobody can take your call right now. Please leave a message after the tone, then hang up or press the hash key.</Say>
        <Record action="${P}/api/twilio/voicemail?group=grp-b" maxLength="120" playBeep="true" timeout="5" finishOnKey="#" recordingStatusCallback="${P}/api/twilio/recording?group=grp-b" recordingStatusCallbackEvent="completed"/>
        <Hangup/>
      </Response>`),
    );
  });

  it('members offline, on do not disturb or on a call are not rung', async () => {
    t.api.setDocument(`settings:${BOB}`, { doNotDisturb: true });
    try {
      const { xml } = await call(SALES_NUMBER, FRI_OPEN);
      expect(readable(xml)).toContain(`<Identity>${vid(ALICE)}</Identity>`);
      expect(readable(xml)).not.toContain(`<Identity>${vid(BOB)}</Identity>`);
    } finally {
      t.api.documents.delete(`settings:${BOB}`);
    }
  });

  it('a number no group has: said so, and hung up', async () => {
    const { xml } = await call('+442079469999', FRI_OPEN + MINUTE);
    expect(xml).toBe(
      doc(`${HEAD}<Response><Say>Sorry, this number is not in service.</Say><Hangup/></Response>`),
    );
  });

  it('a member who went away, or turned on do not disturb, a second ago is not rung', async () => {
    // Who a call to Sales rings (Alice and Bob are its members).
    const rung = async (at: number) => {
      const xml = readable((await call(SALES_NUMBER, at)).xml);
      return [ALICE, BOB].filter((p) => xml.includes(`<Identity>${vid(p)}</Identity>`));
    };
    const at = FRI_OPEN + 2 * MINUTE;
    const available = { status: 'available', onCall: false };
    const year = 365 * 86_400;
    expect(await rung(at)).toEqual([ALICE, BOB]);
    // Alice picks Away: her browser writes her presence item, and the next call does not ring her.
    t.api.setMapItem('presence', ALICE, { ...available, status: 'away' }, year);
    try {
      expect(await rung(at + 1000)).toEqual([BOB]);
    } finally {
      t.api.setMapItem('presence', ALICE, available, year);
    }
    // Alice is back; Bob turns do not disturb on (his settings, mirrored in his presence item).
    t.api.setDocument(`settings:${BOB}`, { doNotDisturb: true });
    t.api.setMapItem('presence', BOB, { ...available, doNotDisturb: true }, year);
    try {
      expect(await rung(at + 2000)).toEqual([ALICE]);
    } finally {
      t.api.documents.delete(`settings:${BOB}`);
      t.api.setMapItem('presence', BOB, available, year);
    }
  });

  it('when Sync cannot be read, the caller is routed on the data last read, not turned away', async () => {
    t.api.failWith(503);
    try {
      const { xml } = await call(SALES_NUMBER, FRI_OPEN + 10 * MINUTE);
      expect(xml).not.toContain('Sorry, we cannot take your call');
      expect(readable(xml)).toContain(`<Identity>${vid(ALICE)}</Identity>`);
      expect(readable(xml)).toContain(
        'plan={no answer: voicemail grp-sales; busy: voicemail grp-sales}',
      );
    } finally {
      t.api.failWith(null);
    }
  });
});

describe('calls from a browser (the TwiML app)', () => {
  async function fromBrowser(identity: string, to: string): Promise<string> {
    // Ten seconds on each time: past the presence cache.
    t.clock.now = Math.max(t.clock.now, FRI_OPEN + 20 * MINUTE) + 10_000;
    const res = await t.webhook('/api/twilio/voice', browserCall(sid(), identity, to));
    expect(res.status).toBe(200);
    return res.text();
  }

  it('to a colleague by email, extension or client: address: their Client, named after the caller', async () => {
    const expected = doc(`${HEAD}<Response>
      <Dial timeout="25" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={hang up}">
        <Client ${LEG}><Identity>${vid(BOB)}</Identity><Parameter name="CallerName" value="Alice"/></Client>
      </Dial></Response>`);
    expect(readable(await fromBrowser(ALICE, BOB))).toBe(expected);
    expect(readable(await fromBrowser(ALICE, `client:${BOB}`))).toBe(expected);
  });

  it("Test this group: an admin's test:<group> call is routed as an outside call, its members told it is a test; anyone else is refused", async () => {
    const xml = readable(await fromBrowser(ADA, 'test:grp-support'));
    expect(xml).toContain('<Parameter name="GroupId" value="grp-support"/>');
    expect(xml).toContain('<Parameter name="Test" value="1"/>');
    expect(await fromBrowser(CAT, 'test:grp-support')).toBe(
      doc(`${HEAD}<Response><Say>Only admins can test a ring group.</Say><Hangup/></Response>`),
    );
    expect(await fromBrowser(ADA, 'test:grp-gone')).toBe(
      doc(`${HEAD}<Response><Say>That ring group no longer exists.</Say><Hangup/></Response>`),
    );
  });

  it('Test this group reaches a group saved since the groups were last read', async () => {
    await fromBrowser(ADA, 'test:grp-support');
    t.api.setMapItem('groups', 'grp-new', {
      name: 'New desk',
      number: '209',
      members: [ALICE],
      strategy: 'simultaneous',
      ringTimeout: 20,
    });
    // At once, inside the groups' cache time.
    const res = await t.webhook('/api/twilio/voice', browserCall(sid(), ADA, 'test:grp-new'));
    const xml = await res.text();
    expect(xml).not.toContain('no longer exists');
    expect(xml).toContain('group=grp-new');
  });

  it('to an outside number: Dial Number with the team number as caller ID', async () => {
    expect(readable(await fromBrowser(ALICE, '+1 555 987 6543'))).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="55" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={hang up}" callerId="+442079460000">
          <Number ${LEG}>+15559876543</Number>
        </Dial></Response>`),
    );
  });

  it('to a ring group by number: routed like a call from outside, skipping whoever is on a call', async () => {
    // Cat calls her own group: she is on this call, and Alice is still on the calls she placed above
    // (no status callback ended them), so only Bob rings (the last one: until the no-answer rule's
    // 40 s), then the no-answer rule. Bob's phone names Cat, as on a direct call.
    expect(readable(await fromBrowser(CAT, SUPPORT_NUMBER))).toBe(
      doc(`${HEAD}<Response>
        <Dial timeout="35" answerOnBridge="true" action="${P}/api/twilio/voice/next?plan={forward to +15551230000, dial +15551230000 15s}">
          <Client ${LEG}><Identity>${vid(BOB)}</Identity><Parameter name="Group" value="Support"/><Parameter name="GroupId" value="grp-support"/><Parameter name="CallerName" value="Cat"/></Client>
        </Dial></Response>`),
    );
  });

  it("what the caller's browser is told waits until its SDK knows the call: the Dial's leg rings", async () => {
    // The Voice SDK knows its call's CallSid only from Twilio's `ringing` or answer, and drops a
    // message naming it before (Call._onMessageReceived); a <Dial answerOnBridge> sends `ringing`
    // as its leg rings, which the leg's status callback reports.
    t.clock.now = Math.max(t.clock.now, FRI_OPEN + 20 * MINUTE) + 10_000;
    const callSid = sid();
    const told = () => t.api.told.filter((m) => m.callSid === callSid);
    const xml = await (
      await t.webhook('/api/twilio/voice', browserCall(callSid, CAT, SUPPORT_NUMBER))
    ).text();
    expect(xml).toMatch(/<Response><Dial [^>]*answerOnBridge="true"/);
    await new Promise((r) => setTimeout(r, 300));
    expect(told()).toEqual([]);
    const legSid = sid();
    await t.post(
      '/api/twilio/leg',
      {
        CallSid: legSid,
        ParentCallSid: callSid,
        To: `client:${vid(BOB)}`,
        CallStatus: 'ringing',
        Direction: 'outbound-dial',
      },
      204,
    );
    await expect
      .poll(() => told().map((m) => (m.content as { kind: string }).kind))
      .toContain('ring');
  });

  it('from someone who signed in a moment ago: placed, not refused as off the team', async () => {
    // The team is read at most once a second: this call reads it, and Eve joins within that second.
    await fromBrowser(ALICE, ADA);
    await t.signIn('eve@example.com', 'Eve');
    const res = await t.webhook('/api/twilio/voice', browserCall(sid(), 'eve@example.com', ALICE));
    const xml = await res.text();
    expect(xml).not.toContain('no longer on this team');
    // Routed to Alice as anyone's call is (rung, or refused as her state says).
    expect(xml).toMatch(/<Dial |<Reject /);
  });

  it('to someone who came online while Sync is slow: rung, not refused on the copy from before', async () => {
    // The last presence read is from before Dan came online; every read now takes 1.5 s, past the
    // second a read waits for fresh data before it takes the stale copy.
    const DAN = 'dan@example.com';
    await t.signIn(DAN, 'Dan');
    await fromBrowser(ALICE, BOB);
    t.api.setMapItem('presence', DAN, { status: 'available', onCall: false }, 3600 * 24 * 365 * 5);
    t.api.delay(1500);
    try {
      const xml = await fromBrowser(ALICE, DAN);
      expect(xml).toContain(`<Identity>${vid(DAN)}</Identity>`);
    } finally {
      t.api.delay(0);
      t.api.maps.get('presence')!.delete(DAN);
    }
  }, 20_000);

  it('to someone offline, to oneself or to nobody: refused before it is answered (the row says why)', async () => {
    expect(await fromBrowser(ALICE, ADA)).toBe(
      doc(`${HEAD}<Response><Reject reason="rejected"/></Response>`),
    );
    expect(await fromBrowser(ALICE, ALICE)).toBe(
      doc(`${HEAD}<Response><Reject reason="rejected"/></Response>`),
    );
    expect(await fromBrowser(ALICE, '020 7946 0000')).toBe(
      doc(`${HEAD}<Response><Reject reason="rejected"/></Response>`),
    );
  });

  it('to someone on do not disturb: rejected as busy', async () => {
    t.api.setDocument(`settings:${CAT}`, { doNotDisturb: true });
    try {
      expect(await fromBrowser(ALICE, CAT)).toBe(
        doc(`${HEAD}<Response><Reject reason="busy"/></Response>`),
      );
    } finally {
      t.api.documents.delete(`settings:${CAT}`);
    }
  });
});
