/**
 * The twins' phone network (server/twins/voice/phones.ts, twiml/number.ts), with real media: the
 * voice twin runs in process in application mode with a made-up number, a tiny application answers
 * its webhooks with TwiML, browsers are raw signalling sockets with real WebRTC peers (werift), the
 * REST API is driven through the `twilio` package and the phones through the twin's own route
 * (`/twilio/phones/…`). Shown here: a browser's `<Dial><Number>` reaches each scripted phone with
 * the caller ID it sets and `DialCallStatus` as Twilio documents; the person's audio is measured
 * both ways; its leg is redirected through REST as a `<Client>`'s is; a call placed through the API
 * rings a phone; a phone calls the team's number and presses `#` to end a `<Record>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
import { phoneNamed, steadyTone } from '../../../server/twins/voice/phones';
import { closeLegs, dial, legHearsTone, type Person } from './media-support';
import { eventually, RawSignal } from './support';
import { askPhones, type PhoneCallView } from '../../support/twin-phones';

const ACCOUNT = 'AC' + 'a'.repeat(32);
const AUTH_TOKEN = 'twin-auth-token';
const API_KEY = 'SK' + 'b'.repeat(32);
const API_SECRET = 'twin-api-secret';
const APPLICATION = 'AP' + 'c'.repeat(32);
const TEAM_NUMBER = '+15005550006';
const PERSON = phoneNamed('person').number;

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
let routes: Record<string, (params: Record<string, string>) => string> = {};
const people: RawSignal[] = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req as AsyncIterable<Buffer>) text += chunk.toString();
  return text;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'voice-phones-'));
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
  voice = createVoiceService({
    dataDir,
    voicemail: createVoicemailStore(dataDir),
    log: () => undefined,
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
    phoneNumbers: [TEAM_NUMBER],
  });
  twin = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/2010-04-01/')) req.url = `/twilio/api${req.url}`;
    if (!voice.handleRest(req, res)) res.writeHead(404).end();
  });
  twin.on('upgrade', (req, socket, head) => {
    if (!voice.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((r) => twin.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(twin.address() as AddressInfo).port}`;
  rest = twilio(ACCOUNT, AUTH_TOKEN, { httpClient: new TwinRequestClient(base) });
});

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

async function browser(identity: string): Promise<Person> {
  const token = signToken(
    { accountSid: ACCOUNT, apiKey: API_KEY, apiSecret: API_SECRET },
    { identity, voice: { incoming: { allow: true }, outgoing: { application_sid: APPLICATION } } },
  );
  const s = await RawSignal.open(base);
  people.push(s);
  s.send('listen', { token, reconnectTimeout: 0 });
  await s.next((f) => f.type === 'connected');
  s.send('register', { media: { audio: true } });
  await s.next((f) => f.type === 'ready');
  return Object.assign(s, { identity, cookie: '' });
}

/** The twin's phone route on this suite's service (tests/support/twin-phones.ts). */
const phones = (path: string, form?: Record<string, string>) =>
  askPhones({ url: base, accountSid: ACCOUNT, authToken: AUTH_TOKEN }, path, form);

const phoneCall = async (sid: string): Promise<PhoneCallView> =>
  (await phones(`/Calls/${sid}`)).body as unknown as PhoneCallView;

const near = (hz: number | null, want: number): boolean => hz !== null && Math.abs(hz - want) <= 10;

const dialTwiml = (number: string, attrs = 'callerId="+15005550006"', timeout = 5) =>
  `<Response><Dial ${attrs} timeout="${timeout}" action="/after"><Number statusCallback="${appBase}/leg" statusCallbackEvent="initiated ringing answered completed">${number}</Number></Dial></Response>`;

const after = (callSid: string) =>
  seen.find((s) => s.path === '/after' && s.params.CallSid === callSid)?.params;

describe('<Dial><Number> from a browser', () => {
  it('the person answers after its rings: both hear each other, the child has the caller ID and its callbacks', async () => {
    const ann = await browser('ann');
    routes['/voice'] = () => dialTwiml(PERSON);
    routes['/leg'] = () => '';
    routes['/after'] = () => '<Response><Hangup/></Response>';
    const started = Date.now();
    const { frame, leg } = await dial(ann, PERSON);
    expect(frame.type).toBe('answer');
    // answerOnBridge is off: the caller is answered at once; the phone answers after its 3 s.
    leg.play(steadyTone(440));
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/leg' && s.params.CallStatus === 'in-progress'),
        ),
      10_000,
      'the phone answering',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    const legs = seen.filter((s) => s.path === '/leg').map((s) => s.params);
    expect(legs.map((p) => p.CallStatus)).toEqual(['initiated', 'ringing', 'in-progress']);
    expect(legs[0]).toMatchObject({
      From: TEAM_NUMBER,
      To: PERSON,
      Direction: 'outbound-dial',
      ParentCallSid: String(frame.payload.callsid),
    });
    const childSid = legs[0]!.CallSid!;
    // Ann hears the phone's 1004 Hz; the phone hears Ann's 440 Hz.
    await legHearsTone(leg, 1004, 'Ann hearing the phone', 10_000);
    await eventually(
      async () => near((await phoneCall(childSid)).heard?.toneHz ?? null, 440),
      10_000,
      'the phone hearing Ann',
    );
    expect(await phoneCall(childSid)).toMatchObject({
      phone: PERSON,
      other: TEAM_NUMBER,
      direction: 'to-phone',
      status: 'in-progress',
    });
    // The phone hangs up: the <Dial> ends completed and its action runs.
    expect((await phones(`/Calls/${childSid}/Hangup`, {})).status).toBe(200);
    await eventually(
      () => Promise.resolve(after(String(frame.payload.callsid)) !== undefined),
      5000,
      'the action',
    );
    expect(after(String(frame.payload.callsid))).toMatchObject({
      DialCallStatus: 'completed',
      DialCallSid: childSid,
    });
    await eventually(
      () =>
        Promise.resolve(seen.some((s) => s.path === '/leg' && s.params.CallStatus === 'completed')),
      5000,
      'the child completed',
    );
  });

  it('busy, no answer, a number that rejects, an unknown number and a client without a caller ID end as Twilio says', async () => {
    const callers = await Promise.all(['b1', 'b2', 'b3', 'b4', 'b5'].map((id) => browser(id)));
    const byTo: Record<string, string> = {
      [phoneNamed('busy').number]: dialTwiml(phoneNamed('busy').number),
      [phoneNamed('no-answer').number]: dialTwiml(phoneNamed('no-answer').number),
      [phoneNamed('failed').number]: dialTwiml(phoneNamed('failed').number),
      '+12015550199': dialTwiml('+12015550199'),
      'no-caller-id': dialTwiml(PERSON, ''),
    };
    routes['/voice'] = (p) => byTo[p.To ?? '']!;
    routes['/leg'] = () => '';
    routes['/after'] = () => '<Response><Hangup/></Response>';
    const tos = Object.keys(byTo);
    const sids = await Promise.all(
      tos.map(async (to, i) => String((await dial(callers[i]!, to)).frame.payload.callsid)),
    );
    await eventually(
      () => Promise.resolve(sids.every((s) => after(s) !== undefined)),
      20_000,
      'every action',
    );
    expect(sids.map((s) => after(s)!.DialCallStatus)).toEqual([
      'busy',
      'no-answer',
      'failed',
      'failed',
      'failed',
    ]);
  }, 30_000);

  it('the far end that hangs up part-way ends the <Dial> completed after its time', async () => {
    const ann = await browser('ann');
    const number = phoneNamed('hangs-up').number;
    routes['/voice'] = () => dialTwiml(number);
    routes['/after'] = () => '<Response><Hangup/></Response>';
    routes['/leg'] = () => '';
    const { frame } = await dial(ann, number);
    const sid = String(frame.payload.callsid);
    await eventually(() => Promise.resolve(after(sid) !== undefined), 20_000, 'the action');
    expect(after(sid)).toMatchObject({ DialCallStatus: 'completed' });
    expect(Number(after(sid)!.DialCallDuration)).toBeGreaterThanOrEqual(7);
  }, 30_000);

  it('the phone child is redirected through REST like a <Client> child: it keeps its line and its new TwiML runs', async () => {
    const ann = await browser('ann');
    routes['/voice'] = () => dialTwiml(PERSON);
    routes['/leg'] = () => '';
    routes['/after'] = () => '<Response><Pause length="30"/></Response>';
    const { frame, leg } = await dial(ann, PERSON);
    leg.play(null);
    await eventually(
      () =>
        Promise.resolve(
          seen.some((s) => s.path === '/leg' && s.params.CallStatus === 'in-progress'),
        ),
      10_000,
      'the phone answering',
    );
    const childSid = seen.find((s) => s.path === '/leg')!.params.CallSid!;
    await rest.calls(childSid).update({
      twiml:
        '<Response><Dial><Conference waitUrl="" startConferenceOnEnter="false">room-p</Conference></Dial></Response>',
    });
    await eventually(
      () => Promise.resolve(after(String(frame.payload.callsid)) !== undefined),
      5000,
      'the action',
    );
    expect(after(String(frame.payload.callsid))).toMatchObject({
      DialCallStatus: 'completed',
      DialCallSid: childSid,
    });
    const [room] = await rest.conferences.list({ friendlyName: 'room-p' });
    expect((await rest.conferences(room!.sid).participants.list()).map((p) => p.callSid)).toEqual([
      childSid,
    ]);
    expect((await rest.calls(childSid).fetch()).status).toBe('in-progress');
    await rest.calls(childSid).update({ status: 'completed' });
    await eventually(
      () =>
        Promise.resolve(seen.some((s) => s.path === '/leg' && s.params.CallStatus === 'completed')),
      5000,
      'the child completed',
    );
    expect((await phoneCall(childSid)).status).toBe('completed');
  });
});

describe('The answering machine', () => {
  it('answers after its rings, beeps after its greeting, and hears the message left', async () => {
    const ann = await browser('ann');
    const machine = phoneNamed('machine');
    routes['/voice'] = () => dialTwiml(machine.number);
    routes['/leg'] = () => '';
    routes['/after'] = () => '<Response><Hangup/></Response>';
    const { frame, leg } = await dial(ann, machine.number);
    leg.play(null);
    // The twin here has no speech engine: the greeting is left out (logged) and the beep follows.
    await legHearsTone(leg, 1000, 'the beep', 10_000);
    leg.play(steadyTone(440));
    const { calls } = (await phones(`/Calls?Phone=${encodeURIComponent(machine.number)}`)).body as {
      calls: PhoneCallView[];
    };
    await eventually(
      async () => near((await phoneCall(calls[0]!.sid)).heard?.toneHz ?? null, 440),
      10_000,
      'the machine hearing the message',
    );
    ann.send('hangup', { callsid: frame.payload.callsid });
    await eventually(
      async () => (await phoneCall(calls[0]!.sid)).status === 'completed',
      5000,
      'the machine’s call over',
    );
  });
});

describe('Calls placed through the REST API to a phone', () => {
  it('rings the phone, runs the TwiML once answered and reports each event; a busy one is busy', async () => {
    routes['/placed'] = () => '';
    const placed = await rest.calls.create({
      to: PERSON,
      from: TEAM_NUMBER,
      twiml: '<Response><Pause length="1"/><Hangup/></Response>',
      statusCallback: `${appBase}/placed`,
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    });
    const busy = await rest.calls.create({
      to: phoneNamed('busy').number,
      from: TEAM_NUMBER,
      twiml: '<Response><Hangup/></Response>',
      statusCallback: `${appBase}/placed`,
    });
    const statuses = (sid: string) =>
      seen
        .filter((s) => s.path === '/placed' && s.params.CallSid === sid)
        .map((s) => s.params.CallStatus);
    await eventually(
      () =>
        Promise.resolve(
          statuses(placed.sid).includes('completed') && statuses(busy.sid).length > 0,
        ),
      15_000,
      'both ends',
    );
    expect(statuses(placed.sid)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(statuses(busy.sid)).toEqual(['busy']);
    // From a number the account does not have: refused (21210), nothing placed.
    await expect(
      rest.calls.create({ to: PERSON, from: '+12015550106', twiml: '<Response/>' }),
    ).rejects.toMatchObject({ status: 400, code: 21210 });
  }, 20_000);
});

describe('A phone calls the team number', () => {
  it('asks the Voice URL as Twilio asks it, and its # ends a <Record>', async () => {
    routes['/voice'] = () =>
      '<Response><Record action="/recorded" maxLength="20" timeout="15" finishOnKey="#" playBeep="false"/></Response>';
    routes['/recorded'] = () => '<Response><Hangup/></Response>';
    routes['/status'] = () => '';
    expect(await phones('/Calls', { From: PERSON, To: '+15005550007' })).toMatchObject({
      status: 400,
      body: { code: 21211 },
    });
    expect(await phones('/Calls', { From: '+15005550007', To: TEAM_NUMBER })).toMatchObject({
      status: 400,
      body: { code: 21212 },
    });
    const placed = await phones('/Calls', { From: PERSON, To: TEAM_NUMBER });
    expect(placed.status).toBe(201);
    const sid = String(placed.body.sid);
    await eventually(
      () => Promise.resolve(seen.some((s) => s.path === '/voice')),
      5000,
      'the Voice URL',
    );
    expect(seen.find((s) => s.path === '/voice')!.params).toMatchObject({
      CallSid: sid,
      From: PERSON,
      To: TEAM_NUMBER,
      Caller: PERSON,
      Called: TEAM_NUMBER,
      Direction: 'inbound',
      CallStatus: 'ringing',
      AccountSid: ACCOUNT,
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await phones(`/Calls/${sid}/Digits`, { Digits: '#' })).status).toBe(200);
    await eventually(
      () => Promise.resolve(seen.some((s) => s.path === '/recorded')),
      5000,
      'the action',
    );
    expect(seen.find((s) => s.path === '/recorded')!.params).toMatchObject({ Digits: '#' });
    await eventually(
      () => Promise.resolve(seen.some((s) => s.path === '/status')),
      5000,
      'the status callback',
    );
    expect(seen.find((s) => s.path === '/status')!.params).toMatchObject({
      CallSid: sid,
      CallStatus: 'completed',
      Direction: 'inbound',
    });
  });
});
