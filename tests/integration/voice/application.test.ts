/**
 * The voice twin playing Twilio for a TwiML application, with real media: the service runs in
 * process in application mode (as `SWITCHBOARD_BACKEND=twilio-twins` runs it), a tiny application
 * answers its webhooks with TwiML, people are raw signalling sockets with real WebRTC peers
 * (werift), and the REST API is driven through the `twilio` package. Shown here: a conference's
 * participants hear each other only once it starts, one held hears music and is not heard,
 * endConferenceOnExit ends everyone's `<Dial>`; a bridged callee redirected into a conference
 * keeps its call (the parent's `<Dial>` ends `completed` and its action runs); a parent redirected
 * out of a `<Dial>` hangs its callee up and asks the action without running its answer; a
 * `<Record>`ing is served by the Recordings resource after a restart, until it is deleted.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import twilio from 'twilio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../support/access-tokens';
import { TwinRequestClient } from '../../support/twin-request-client';
import { createVoiceService, type VoiceService } from '../../../server/twins/voice/service';
import { createVoicemailStore } from '../../../server/twins/voice/voicemail-store';
import { createNetwork, type NetworkOptions } from '../../../server/twins/voice/network';
import {
  answerAndHangUpAtOnce,
  answerTo,
  closeLegs,
  dial,
  hears,
  type Person,
} from './media-support';
import { eventually, RawSignal, type Frame } from './support';

const ACCOUNT = 'AC' + 'a'.repeat(32);
const AUTH_TOKEN = 'twin-auth-token';
const API_KEY = 'SK' + 'b'.repeat(32);
const API_SECRET = 'twin-api-secret';
const APPLICATION = 'AP' + 'c'.repeat(32);
const MUSIC = 'http://com.twilio.music.classical.s3.amazonaws.com/BusyStrings.mp3';

/** The three conference forms the server sends (docs/twins-voice.md). */
const park = (room: string) =>
  `<Response><Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false" waitUrl="${MUSIC}" waitMethod="GET">${room}</Conference></Dial></Response>`;
const waitSilently = (room: string) =>
  `<Response><Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="false" beep="false" waitUrl="">${room}</Conference></Dial></Response>`;
const start = (room: string) =>
  `<Response><Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${room}</Conference></Dial></Response>`;

interface Seen {
  path: string;
  params: Record<string, string>;
}

let dataDir: string;
let voice: VoiceService;
let twin: Server;
let appServer: Server;
let base = '';
let appBase = '';
let rest: twilio.Twilio;
const seen: Seen[] = [];
const log: string[] = [];
/** What the application answers at each path (the Voice URL is /voice, its `To` picks the TwiML). */
let routes: Record<string, (params: Record<string, string>) => string> = {};
const people: RawSignal[] = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req as AsyncIterable<Buffer>) text += chunk.toString();
  return text;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'voice-app-'));
  appServer = createServer((req, res) => {
    void body(req).then((text) => {
      const url = new URL(req.url ?? '/', 'http://app');
      const params = Object.fromEntries(new URLSearchParams(text));
      seen.push({ path: url.pathname, params });
      const route = routes[url.pathname];
      res.writeHead(route ? 200 : 404, { 'Content-Type': 'text/xml' });
      res.end(route ? route(params) : '');
    });
  });
  await new Promise<void>((r) => appServer.listen(0, '127.0.0.1', r));
  appBase = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;

  ({ voice, twin, base } = await startTwin());
  rest = twilio(ACCOUNT, AUTH_TOKEN, { httpClient: new TwinRequestClient(base) });
});

/** The voice twin in application mode over `dataDir`, served on a port of its own. */
async function startTwin(
  network?: NetworkOptions,
): Promise<{ voice: VoiceService; twin: Server; base: string }> {
  const voice = createVoiceService({
    ...(network ? { network } : {}),
    dataDir,
    voicemail: createVoicemailStore(dataDir),
    log: (m) => log.push(m),
    heartbeatMs: 60_000,
  });
  voice.useApplication({
    accountSid: ACCOUNT,
    applicationSid: APPLICATION,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    authToken: AUTH_TOKEN,
    voiceUrl: `${appBase}/voice`,
    voiceFallbackUrl: null,
    statusCallback: `${appBase}/status`,
  });
  const twin = createServer((req, res) => {
    // The `twilio` package keeps api.twilio.com's paths; the twin answers them under /twilio/api.
    if ((req.url ?? '').startsWith('/2010-04-01/')) req.url = `/twilio/api${req.url}`;
    if (!voice.handleRest(req, res)) res.writeHead(404).end();
  });
  twin.on('upgrade', (req, socket, head) => {
    if (!voice.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((r) => twin.listen(0, '127.0.0.1', r));
  return { voice, twin, base: `http://127.0.0.1:${(twin.address() as AddressInfo).port}` };
}

afterEach(async () => {
  await closeLegs();
  for (const p of people.splice(0)) p.close();
  seen.length = 0;
  routes = {};
});

afterAll(async () => {
  await voice.close();
  twin.close();
  appServer.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A registered phone for `identity`, its token signed with the account's API key, as Twilio's. */
async function phone(identity: string): Promise<Person> {
  const token = signToken(
    { accountSid: ACCOUNT, apiKey: API_KEY, apiSecret: API_SECRET },
    {
      identity,
      voice: { incoming: { allow: true }, outgoing: { application_sid: APPLICATION } },
    },
  );
  const s = await RawSignal.open(base);
  people.push(s);
  s.send('listen', { token, reconnectTimeout: 0 });
  await s.next((f) => f.type === 'connected');
  s.send('register', { media: { audio: true } });
  await s.next((f) => f.type === 'ready');
  return Object.assign(s, { identity, cookie: '' });
}

/** The application's Voice URL answers each `To` with its TwiML. */
function voiceUrl(byTo: Record<string, string>): void {
  routes['/voice'] = (p) => byTo[p.To ?? ''] ?? '<Response><Hangup/></Response>';
}

const hungUp = (p: Person, callSid: string, from = 0): Promise<Frame> =>
  p.next((f) => f.type === 'hangup' && f.payload.callsid === callSid, from, 10_000);

async function conferenceNamed(name: string) {
  const [found] = await rest.conferences.list({ friendlyName: name });
  return found!;
}

describe('<Dial><Conference> with media', () => {
  it('waits apart until a start participant joins, bridges the first two, holds with music, and ends everyone with endConferenceOnExit', async () => {
    const [ann, bob, cat] = await Promise.all([phone('ann'), phone('bob'), phone('cat')]);
    voiceUrl({ 'wait-ann': waitSilently('room-1'), 'wait-bob': waitSilently('room-1') });
    routes['/voice'] = (p) => (p.To === 'start' ? start('room-1') : waitSilently('room-1'));

    // Ann's phone plays a tone, Bob's and Cat's silence: whoever hears sound hears Ann (or music).
    const a = await dial(ann, 'wait-ann');
    expect(a.frame.type).toBe('answer');
    const b = await dial(bob, 'wait-bob');
    b.leg.play(null);
    const conference = await conferenceNamed('room-1');
    expect(conference.status).toBe('init');
    await hears(b.leg, 'silence');
    await hears(a.leg, 'silence');

    const c = await dial(cat, 'start');
    c.leg.play(null);
    await eventually(
      async () => (await rest.conferences(conference.sid).fetch()).status === 'in-progress',
      5000,
      'the conference to start',
    );
    await hears(b.leg, 'sound');
    await hears(c.leg, 'silence');
    const listed = await rest.conferences(conference.sid).participants.list();
    expect(listed.map((p) => [p.status, p.hold, p.startConferenceOnEnter])).toEqual([
      ['connected', false, false],
      ['connected', false, false],
      ['connected', false, true],
    ]);
    expect(log.some((m) => m.includes('bridges the first two only'))).toBe(true);

    // Ann held: she hears music (the others are silent), and Bob no longer hears her.
    const annSid = String(a.frame.payload.callsid);
    const held = await rest.conferences(conference.sid).participants(annSid).update({ hold: true });
    expect(held.hold).toBe(true);
    await hears(b.leg, 'silence');
    await hears(a.leg, 'sound');
    await rest.conferences(conference.sid).participants(annSid).update({ hold: false });
    await hears(b.leg, 'sound');
    await hears(a.leg, 'silence');

    // Cat (endConferenceOnExit) hangs up: the conference ends, Ann's and Bob's <Dial> end and,
    // with nothing after it, their calls hang up.
    const bobSid = String(b.frame.payload.callsid);
    const catSid = String(c.frame.payload.callsid);
    const [annMark, bobMark] = [ann.frames.length, bob.frames.length];
    cat.send('hangup', { callsid: catSid });
    await hungUp(ann, annSid, annMark);
    await hungUp(bob, bobSid, bobMark);
    expect((await rest.conferences(conference.sid).fetch()).status).toBe('completed');
    expect(await rest.conferences(conference.sid).participants.list()).toEqual([]);
  });

  it('a participant removed through the REST API leaves, and its TwiML goes on to the action', async () => {
    const [ann, bob] = await Promise.all([phone('ann'), phone('bob')]);
    routes['/voice'] = (p) =>
      p.To === 'park' ? park('room-2').replace('<Dial>', '<Dial action="/left">') : start('room-2');
    routes['/left'] = () => '<Response><Pause length="30"/></Response>';
    const a = await dial(ann, 'park');
    a.leg.play(null);
    // Alone and waiting, Ann hears the waitUrl (Twilio's music host: the built-in music).
    await hears(a.leg, 'sound');
    const b = await dial(bob, 'pick');
    await hears(a.leg, 'sound');
    b.leg.play(null);
    await hears(a.leg, 'silence');
    const conference = await conferenceNamed('room-2');
    const annSid = String(a.frame.payload.callsid);
    await rest.conferences(conference.sid).participants(annSid).remove();
    await eventually(
      () => Promise.resolve(seen.some((s) => s.path === '/left')),
      5000,
      'the action after the <Dial>',
    );
    const left = seen.find((s) => s.path === '/left')!;
    expect(left.params).toMatchObject({ CallSid: annSid, DialCallStatus: 'completed' });
    // Ann had endConferenceOnExit: the conference is over, Bob's call hangs up; Ann's goes on.
    await hungUp(bob, String(b.frame.payload.callsid));
    expect((await rest.calls(annSid).fetch()).status).toBe('in-progress');
  });
});

describe('what a participant waiting hears (waitUrl by its waitMethod)', () => {
  it('a music file asked with POST (the default) is silence, with GET it plays; no waitUrl is the music; a late joiner hears none', async () => {
    const [ann, bob, cat, dan, eve] = await Promise.all([
      phone('ann'),
      phone('bob'),
      phone('cat'),
      phone('dan'),
      phone('eve'),
    ]);
    const waiting = (room: string, attrs: string) =>
      `<Response><Dial><Conference startConferenceOnEnter="false" beep="false"${attrs}>${room}</Conference></Dial></Response>`;
    voiceUrl({
      post: waiting('room-post', ` waitUrl="${MUSIC}"`),
      get: waiting('room-get', ` waitUrl="${MUSIC}" waitMethod="GET"`),
      none: waiting('room-none', ''),
      start: start('room-late'),
      late: waiting('room-late', ` waitUrl="${MUSIC}" waitMethod="GET"`),
    });
    const calls = await Promise.all([
      dial(ann, 'post'),
      dial(bob, 'get'),
      dial(cat, 'none'),
      dial(dan, 'start'),
    ]);
    for (const c of calls) {
      expect(c.frame.type).toBe('answer');
      c.leg.play(null);
    }
    const [post, get, none] = calls;
    await hears(post.leg, 'silence');
    expect(log.some((m) => m.includes('BusyStrings.mp3') && m.includes('11200'))).toBe(true);
    await hears(get.leg, 'sound');
    await hears(none.leg, 'sound');
    // Eve joins room-late once Dan has started it: her waitUrl is not played.
    const late = await dial(eve, 'late');
    expect(late.frame.type).toBe('answer');
    late.leg.play(null);
    expect((await conferenceNamed('room-late')).status).toBe('in-progress');
    await hears(late.leg, 'silence');
  });
});

describe('Redirecting a live call', () => {
  it('a bridged callee redirected into a conference keeps its call; the parent goes on to its action', async () => {
    const [ann, bob] = await Promise.all([phone('ann'), phone('bob')]);
    voiceUrl({
      bob: `<Response><Dial action="/after"><Client statusCallback="${appBase}/child-status">bob</Client></Dial></Response>`,
    });
    routes['/after'] = () => start('room-3');
    routes['/child-status'] = () => '';
    const mark = bob.frames.length;
    const calling = dial(ann, 'bob');
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    const bobLeg = await answerTo(bob, invite);
    const a = await calling;
    const childSid = String(invite.payload.callsid);
    bobLeg.play(null);
    await hears(bobLeg, 'sound');

    // The answered child is redirected: Bob's browser hears no hang-up.
    const bobMark = bob.frames.length;
    routes['/child'] = () => waitSilently('room-3');
    await rest.calls(childSid).update({ url: `${appBase}/child`, method: 'POST' });
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/after') && seen.some((s) => s.path === '/child'),
        ),
      5000,
      "the parent <Dial> action and the child's own webhook",
    );
    expect(seen.find((s) => s.path === '/after')!.params).toMatchObject({
      DialCallStatus: 'completed',
      DialCallSid: childSid,
    });
    // The child's own webhook: its fields as a call of its own.
    expect(seen.find((s) => s.path === '/child')!.params).toEqual({
      AccountSid: ACCOUNT,
      CallSid: childSid,
      ParentCallSid: String(a.frame.payload.callsid),
      From: 'client:ann',
      To: 'client:bob',
      Direction: 'outbound-dial',
      CallStatus: 'in-progress',
      ApiVersion: '2010-04-01',
    });
    // Ann's action joins the same room and starts it: Bob hears Ann again, in the conference.
    await hears(bobLeg, 'sound');
    const conference = await conferenceNamed('room-3');
    const listed = await rest.conferences(conference.sid).participants.list();
    expect(listed.map((p) => p.callSid).sort()).toEqual(
      [String(a.frame.payload.callsid), childSid].sort(),
    );
    expect(bob.frames.slice(bobMark).some((f) => f.type === 'hangup')).toBe(false);
    expect((await rest.calls(childSid).fetch()).status).toBe('in-progress');

    // Bob hangs up: his call (now its own) ends; its <Client statusCallback> says completed.
    bob.send('hangup', { callsid: childSid });
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/child-status' && s.params.CallStatus === 'completed'),
        ),
      5000,
      'the child status callback',
    );
    // Bob's participant had no endConferenceOnExit: Ann stays, alone in the conference.
    expect((await rest.calls(String(a.frame.payload.callsid)).fetch()).status).toBe('in-progress');
  });

  it('a parent redirected out of a bridged <Dial> hangs the callee up and asks the action without running it', async () => {
    const [ann, bob] = await Promise.all([phone('ann'), phone('bob')]);
    voiceUrl({ bob: '<Response><Dial action="/after"><Client>bob</Client></Dial></Response>' });
    routes['/after'] = () => '<Response><Hangup/></Response>';
    const mark = bob.frames.length;
    const calling = dial(ann, 'bob');
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    const childSid = String(invite.payload.callsid);
    // Still ringing: not in progress, so not redirected (21220).
    await expect(rest.calls(childSid).update({ twiml: start('x') })).rejects.toMatchObject({
      status: 400,
      code: 21220,
    });
    await answerTo(bob, invite);
    const a = await calling;
    const annSid = String(a.frame.payload.callsid);
    await expect(
      rest.calls(annSid).update({ twiml: '<Response><Pause length="30"/>' }),
    ).rejects.toMatchObject({ status: 400, code: 12100 });

    const annMark = ann.frames.length;
    await rest.calls(annSid).update({ twiml: '<Response><Pause length="30"/></Response>' });
    await hungUp(bob, childSid);
    await eventually(
      () => Promise.resolve(seen.some((s) => s.path === '/after')),
      5000,
      'the action request',
    );
    expect(seen.find((s) => s.path === '/after')!.params).toMatchObject({
      DialCallStatus: 'completed',
      DialCallSid: childSid,
    });
    await new Promise((r) => setTimeout(r, 500));
    // The action answered <Hangup/>, not run: Ann is still on her call.
    expect(ann.frames.slice(annMark).some((f) => f.type === 'hangup')).toBe(false);
    expect((await rest.calls(annSid).fetch()).status).toBe('in-progress');
    await expect(rest.calls(childSid).update({ twiml: start('x') })).rejects.toMatchObject({
      status: 400,
      code: 21220,
    });
  });
});

/**
 * Ann calls Bob and he answers, on a twin of its own in the real network, seeded so that its first
 * draw (the first redirect's delay) is at least 300 ms: an update's answer is back well before the
 * call moves. `test` is given the twin's REST client and both sids.
 */
async function onSlowRedirects(
  test: (
    own: ReturnType<typeof twilio>,
    call: { annSid: string; childSid: string; bob: Person },
  ) => Promise<void>,
): Promise<void> {
  let seed = 1;
  while (createNetwork({ mode: 'real', seed }).redirectDelayMs() < 300) seed++;
  const own = await startTwin({ mode: 'real', seed });
  const ownRest = twilio(ACCOUNT, AUTH_TOKEN, { httpClient: new TwinRequestClient(own.base) });
  const ownBase = base;
  base = own.base;
  try {
    const [ann, bob] = await Promise.all([phone('ann'), phone('bob')]);
    voiceUrl({ bob: '<Response><Dial><Client>bob</Client></Dial></Response>' });
    const mark = bob.frames.length;
    const calling = dial(ann, 'bob');
    const invite = await bob.next((f) => f.type === 'invite', mark, 10_000);
    const childSid = String(invite.payload.callsid);
    await answerTo(bob, invite);
    const annSid = String((await calling).frame.payload.callsid);
    await test(ownRest, { annSid, childSid, bob });
  } finally {
    await closeLegs();
    for (const p of people.splice(0)) p.close();
    await own.voice.close();
    own.twin.close();
    base = ownBase;
  }
}

describe('Twilio redirects asynchronously', () => {
  it('a call update answers before the call moves: the bridged callee is still on the call then', async () => {
    await onSlowRedirects(async (ownRest, { annSid, childSid, bob }) => {
      const bobMark = bob.frames.length;
      await ownRest.calls(annSid).update({ twiml: '<Response><Pause length="30"/></Response>' });
      // Answered, and nothing moved yet: Bob is still bridged to Ann.
      expect((await ownRest.calls(childSid).fetch()).status).toBe('in-progress');
      expect(bob.frames.slice(bobMark).some((f) => f.type === 'hangup')).toBe(false);
      // Then the redirect is applied: Ann's <Dial> is left, and Bob hung up.
      await hungUp(bob, childSid, bobMark);
      expect((await ownRest.calls(childSid).fetch()).status).toBe('completed');
      expect((await ownRest.calls(annSid).fetch()).status).toBe('in-progress');
    });
  });

  it("a callee's second update, asked while its first is pending, runs after it on the call the first made", async () => {
    // Twilio applies a call's updates in turn, each to the same CallSid; the twin dropped the
    // second once the first had made the bridged leg a call of its own (an attended transfer
    // cancelled at once: the transferrer's return to the caller was lost and both heard silence).
    await onSlowRedirects(async (ownRest, { childSid, bob }) => {
      const bobMark = bob.frames.length;
      await ownRest.calls(childSid).update({ twiml: '<Response><Pause length="30"/></Response>' });
      await ownRest.calls(childSid).update({ twiml: '<Response><Hangup/></Response>' });
      // The first made Bob's leg a call of its own, pausing; the second then hangs it up.
      await hungUp(bob, childSid, bobMark);
      expect((await ownRest.calls(childSid).fetch()).status).toBe('completed');
    });
  });
});

describe('Calls placed through the REST API', () => {
  it('rings every device of a client identity, runs the TwiML once answered, and reports each end', async () => {
    const [ann, cat, cat2] = await Promise.all([phone('ann'), phone('cat'), phone('cat')]);
    routes['/placed-status'] = () => '';
    routes['/voice'] = () => waitSilently('room-9');
    const a = await dial(ann, 'consult');
    a.leg.play(null);

    const marks = [cat.frames.length, cat2.frames.length];
    const placed = await rest.calls.create({
      to: 'client:cat',
      from: 'client:ann',
      twiml: start('room-9'),
      statusCallback: `${appBase}/placed-status`,
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    });
    expect(placed).toMatchObject({ status: 'queued', direction: 'outbound-api' });
    const invite = await cat.next((f) => f.type === 'invite', marks[0], 10_000);
    await cat2.next((f) => f.type === 'invite', marks[1], 10_000);
    expect(invite.payload.callsid).toBe(placed.sid);
    expect(invite.payload.parameters).toMatchObject({
      CallSid: placed.sid,
      From: 'client:ann',
      To: 'client:cat',
    });
    expect((await rest.calls(placed.sid).fetch()).status).toBe('ringing');
    const catLeg = await answerTo(cat, invite);
    // The other device stops ringing; the TwiML joins Ann's room and starts it: Ann hears Cat.
    await cat2.next(
      (f) => f.type === 'cancel' && f.payload.callsid === placed.sid,
      marks[1],
      10_000,
    );
    await hears(a.leg, 'sound');
    expect((await rest.calls(placed.sid).fetch()).status).toBe('in-progress');
    catLeg.play(null);
    cat.send('hangup', { callsid: placed.sid });
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/placed-status' && s.params.CallStatus === 'completed'),
        ),
      5000,
      'the completed status callback',
    );
    expect(
      seen
        .filter((s) => s.path === '/placed-status')
        .map((s) => [s.params.CallStatus, s.params.Direction]),
    ).toEqual([
      ['initiated', 'outbound-api'],
      ['ringing', 'outbound-api'],
      ['in-progress', 'outbound-api'],
      ['completed', 'outbound-api'],
    ]);
    // Cat's start participant had endConferenceOnExit: Ann's <Dial> ends, and her call with it.
    await hungUp(ann, String(a.frame.payload.callsid));
  });

  it('calls placed at once leave one per second (the account CPS), queued meanwhile', async () => {
    // https://www.twilio.com/docs/glossary/cps: 1 call per second for API calls by default.
    const people = await Promise.all(['dee', 'eve', 'fay'].map((who) => phone(who)));
    const marks = people.map((p) => p.frames.length);
    const asked = Date.now();
    const placed = await Promise.all(
      people.map((p) =>
        rest.calls.create({
          to: `client:${p.identity}`,
          from: 'client:ann',
          twiml: '<Response><Hangup/></Response>',
          timeout: 5,
        }),
      ),
    );
    // Every create answered at once, queued.
    expect(Date.now() - asked).toBeLessThan(900);
    expect(placed.map((c) => c.status)).toEqual(['queued', 'queued', 'queued']);
    const rangAt = await Promise.all(
      people.map(async (p, i) => {
        await p.next((f) => f.type === 'invite', marks[i], 10_000);
        return Date.now() - asked;
      }),
    );
    const sorted = [...rangAt].sort((a, b) => a - b);
    expect(sorted[0]!).toBeLessThan(900);
    expect(sorted[1]! - sorted[0]!).toBeGreaterThan(800);
    expect(sorted[2]! - sorted[1]!).toBeGreaterThan(800);
    for (const c of placed) await rest.calls(c.sid).update({ status: 'canceled' });
  });

  it('a placed call answered and hung up in one breath ends completed, not left running', async () => {
    const cat = await phone('cat');
    routes['/placed-status'] = () => '';
    const mark = cat.frames.length;
    const placed = await rest.calls.create({
      to: 'client:cat',
      from: 'client:ann',
      twiml: '<Response><Pause length="30"/></Response>',
      statusCallback: `${appBase}/placed-status`,
    });
    const invite = await cat.next((f) => f.type === 'invite', mark, 10_000);
    await answerAndHangUpAtOnce(cat, invite);
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/placed-status' && s.params.CallSid === placed.sid),
        ),
      5000,
      'the end of the placed call',
    );
    expect((await rest.calls(placed.sid).fetch()).status).toBe('completed');
  });

  it('is busy when every device declines, canceled when asked, no-answer with nobody to ring', async () => {
    const cat = await phone('cat');
    routes['/placed-status'] = () => '';
    const options = {
      from: 'client:ann',
      twiml: '<Response><Hangup/></Response>',
      statusCallback: `${appBase}/placed-status`,
    };
    const finalOf = async (sid: string): Promise<string> => {
      await eventually(
        () =>
          Promise.resolve(
            seen.some((s) => s.path === '/placed-status' && s.params.CallSid === sid),
          ),
        5000,
        `the end of ${sid}`,
      );
      return seen.find((s) => s.path === '/placed-status' && s.params.CallSid === sid)!.params
        .CallStatus!;
    };

    let mark = cat.frames.length;
    const declined = await rest.calls.create({ to: 'client:cat', ...options });
    await cat.next((f) => f.type === 'invite', mark, 10_000);
    cat.send('reject', { callsid: declined.sid });
    expect(await finalOf(declined.sid)).toBe('busy');

    mark = cat.frames.length;
    const canceled = await rest.calls.create({ to: 'client:cat', ...options });
    await cat.next((f) => f.type === 'invite', mark, 10_000);
    await rest.calls(canceled.sid).update({ status: 'canceled' });
    await cat.next((f) => f.type === 'cancel' && f.payload.callsid === canceled.sid, mark, 10_000);
    expect(await finalOf(canceled.sid)).toBe('canceled');

    const nobody = await rest.calls.create({ to: 'client:nobody_here', ...options });
    expect(await finalOf(nobody.sid)).toBe('no-answer');
    // A call to a number must come from one of the account's numbers (this one has none): 21210.
    await expect(rest.calls.create({ to: '+442079460000', ...options })).rejects.toMatchObject({
      status: 400,
      code: 21210,
    });
  });
});

describe('Recordings', () => {
  it('a <Record>ing is still served as WAV after a restart, and DELETE removes its file', async () => {
    const ann = await phone('ann_1');
    voiceUrl({
      vm: '<Response><Record action="/recorded" maxLength="2" playBeep="false"/></Response>',
    });
    routes['/recorded'] = () => '<Response><Hangup/></Response>';
    const { frame } = await dial(ann, 'vm');
    expect(frame.type).toBe('answer');
    const recorded = () => Promise.resolve(seen.some((s) => s.path === '/recorded'));
    await eventually(recorded, 10_000, 'the action');
    const recordingSid = seen.find((s) => s.path === '/recorded')!.params.RecordingSid!;
    expect(recordingSid).toMatch(/^RE[0-9a-f]{32}$/);
    const media = (origin: string) =>
      `${origin}/2010-04-01/Accounts/${ACCOUNT}/Recordings/${recordingSid}.wav`;
    const auth = {
      Authorization: `Basic ${Buffer.from(`${ACCOUNT}:${AUTH_TOKEN}`).toString('base64')}`,
    };
    const before = await fetch(media(base), { headers: auth });
    expect(before.status).toBe(200);
    const wav = Buffer.from(await before.arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');

    // A restart: a new service over the same data folder, which remembers nothing in memory.
    const restarted = await startTwin();
    try {
      const after = await fetch(media(restarted.base), { headers: auth });
      expect(after.status).toBe(200);
      expect(Buffer.from(await after.arrayBuffer()).equals(wav)).toBe(true);
      expect(
        (await fetch(media(restarted.base).replace(/\.wav$/, '.mp3'), { headers: auth })).status,
      ).toBe(406);
      const file = join(dataDir, 'voicemail', `${recordingSid}.wav`);
      expect(existsSync(file)).toBe(true);
      const again = twilio(ACCOUNT, AUTH_TOKEN, {
        httpClient: new TwinRequestClient(restarted.base),
      });
      await again.recordings(recordingSid).remove();
      expect(existsSync(file)).toBe(false);
      expect((await fetch(media(restarted.base), { headers: auth })).status).toBe(404);
      await expect(again.recordings(recordingSid).remove()).rejects.toMatchObject({
        status: 404,
        code: 20404,
      });
    } finally {
      await restarted.voice.close();
      restarted.twin.close();
    }
  });
});
