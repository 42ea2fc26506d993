/**
 * The voice twin's REST API answers the `twilio` package itself (pointed at the twin): calls
 * redirected and ended, conferences listed by name, participants held with a hold URL, added and
 * removed, and Twilio's errors for what Twilio refuses. The call engine is a recording fake (the
 * media side is not this layer).
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwinRequestClient } from '../../../../support/twin-request-client';
import { VoiceRegistry, type VoiceEngine } from '../../../../../server/twins/voice/rest/resources';
import { voiceRest } from '../../../../../server/twins/voice/rest/routes';

const ACCOUNT = 'AC' + '1'.repeat(32);
const TOKEN = 'twin-token';
const registry = new VoiceRegistry();
const did: string[] = [];
const placed: Parameters<VoiceEngine['place']>[2][] = [];
const engine: VoiceEngine = {
  redirect: (sid, next) => did.push(`redirect ${sid} ${'twiml' in next ? next.twiml : next.url}`),
  hangUp: (sid) => did.push(`hangUp ${sid}`),
  place: (call, _next, options) => {
    did.push(`place ${call.to}`);
    placed.push(options);
  },
  hold: (_c, p) => did.push(`hold ${p.callSid} ${p.hold} ${p.holdUrl ?? '-'} ${p.holdMethod}`),
  remove: (_c, p) => did.push(`remove ${p.callSid}`),
  addParticipant: (_c, call, p) => did.push(`add ${call.to} ${p.label ?? '-'}`),
  endConference: (c) => did.push(`end ${c.friendlyName}`),
  message: (sid, content) => did.push(`message ${sid} ${content}`),
};
const recordingFiles = new Map<string, string>();
let server: Server;
let client: twilio.Twilio;
let origin = '';

beforeAll(async () => {
  const handle = voiceRest({
    registry,
    engine,
    credentials: { accountSid: ACCOUNT, authToken: TOKEN },
    recordings: {
      file: (sid) => (recordingFiles.has(sid) ? recordingFiles.get(sid)! : null),
      remove: (sid) => recordingFiles.delete(sid),
    },
  });
  server = createServer((req, res) => {
    void handle(req, res).then((done) => {
      if (!done) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = twilio(ACCOUNT, TOKEN, { httpClient: new TwinRequestClient(origin) });
});
afterAll(() => server.close());

function liveCall(to = 'client:ann_1') {
  const call = registry.addCall({
    accountSid: ACCOUNT,
    parentCallSid: null,
    from: '+442079460000',
    to,
    direction: 'inbound',
    status: 'ringing',
  });
  registry.setStatus(call, 'in-progress');
  return call;
}

describe('Notifications', () => {
  it("lists the account's log of webhook failures, newest first, as Twilio's Notifications resource", async () => {
    registry.notice({
      accountSid: ACCOUNT,
      callSid: 'CA' + '7'.repeat(32),
      errorCode: 11205,
      messageText: 'HTTP connection failure',
      requestUrl: 'https://pbx.example.com/status',
      requestMethod: 'POST',
    });
    registry.notice({
      accountSid: 'AC' + '9'.repeat(32),
      callSid: null,
      errorCode: 11200,
      messageText: 'not ours',
      requestUrl: 'https://elsewhere.example.com/',
      requestMethod: 'POST',
    });
    const listed = await client.notifications.list();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      callSid: 'CA' + '7'.repeat(32),
      errorCode: '11205',
      log: '0',
      requestUrl: 'https://pbx.example.com/status',
      requestMethod: 'POST',
      moreInfo: 'https://www.twilio.com/docs/errors/11205',
    });
  });
});

describe('Calls', () => {
  it('redirects a live call to new TwiML, and ends it', async () => {
    const call = liveCall();
    did.length = 0;
    const updated = await client
      .calls(call.sid)
      .update({ twiml: '<Response><Hangup/></Response>' });
    expect(updated.sid).toBe(call.sid);
    expect(updated.status).toBe('in-progress');
    const ended = await client.calls(call.sid).update({ status: 'completed' });
    expect(ended.status).toBe('completed');
    expect(did).toEqual([
      `redirect ${call.sid} <Response><Hangup/></Response>`,
      `hangUp ${call.sid}`,
    ]);
  });

  it('refuses to redirect a call that has ended (21220) and an unknown call (20404)', async () => {
    const call = liveCall();
    registry.setStatus(call, 'completed');
    await expect(
      client.calls(call.sid).update({ url: 'https://pbx.example.com/next' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 21220,
    });
    await expect(client.calls('CA' + '0'.repeat(32)).fetch()).rejects.toMatchObject({
      status: 404,
      code: 20404,
    });
  });

  it("lists calls filtered by ParentCallSid and Status (a <Dial>'s legs of a call)", async () => {
    const parent = liveCall('client:ben_2');
    const child = registry.addCall({
      accountSid: ACCOUNT,
      parentCallSid: parent.sid,
      from: 'client:ann_1',
      to: 'client:ben_2',
      direction: 'outbound-dial',
      status: 'ringing',
    });
    registry.setStatus(child, 'in-progress');
    const ended = registry.addCall({
      accountSid: ACCOUNT,
      parentCallSid: parent.sid,
      from: 'client:ann_1',
      to: 'client:cat_3',
      direction: 'outbound-dial',
      status: 'ringing',
    });
    registry.setStatus(ended, 'no-answer');
    const live = await client.calls.list({ parentCallSid: parent.sid, status: 'in-progress' });
    expect(live.map((c) => [c.sid, c.parentCallSid, c.direction])).toEqual([
      [child.sid, parent.sid, 'outbound-dial'],
    ]);
    const all = await client.calls.list({ parentCallSid: parent.sid });
    expect(all.map((c) => c.sid).sort()).toEqual([child.sid, ended.sid].sort());
  });

  it('refuses inline TwiML that does not parse (its TwiML error code), changing nothing', async () => {
    const call = liveCall();
    did.length = 0;
    await expect(
      client.calls(call.sid).update({ twiml: '<Response><Dial><Conference>room</Dial>' }),
    ).rejects.toMatchObject({ status: 400, code: 12100 });
    await expect(
      client.calls(call.sid).update({ twiml: '<Reply><Hangup/></Reply>' }),
    ).rejects.toMatchObject({ status: 400, code: 12102 });
    await expect(
      client
        .calls(call.sid)
        .update({ twiml: '<Response><Conference>room</Conference></Response>' }),
    ).rejects.toMatchObject({ status: 400, code: 12200 });
    expect(did).toEqual([]);
    expect((await client.calls(call.sid).fetch()).status).toBe('in-progress');
  });

  it('refuses inline TwiML over 4,000 characters (32018) on an update and a create, changing nothing', async () => {
    const call = liveCall();
    // Eleven <Say>s of a 360-character text: well-formed, 4,000 characters and more.
    const long = `<Response>${'<Say>' + 'a'.repeat(360) + '</Say>'}</Response>`;
    const over = `<Response>${('<Say>' + 'a'.repeat(360) + '</Say>').repeat(11)}</Response>`;
    expect(over.length).toBeGreaterThan(4000);
    did.length = 0;
    await expect(client.calls(call.sid).update({ twiml: over })).rejects.toMatchObject({
      status: 400,
      code: 32018,
    });
    await expect(
      client.calls.create({ to: 'client:ben_2', from: '+442079460000', twiml: over }),
    ).rejects.toMatchObject({ status: 400, code: 32018 });
    expect(did).toEqual([]);
    expect((await client.calls(call.sid).fetch()).status).toBe('in-progress');
    // Exactly 4,000 is taken.
    const exact = long.replace(
      '</Response>',
      `<Pause/>${' '.repeat(4000 - long.length - 8)}</Response>`,
    );
    expect(exact.length).toBe(4000);
    await client.calls(call.sid).update({ twiml: exact });
    expect(did).toEqual([`redirect ${call.sid} ${exact}`]);
  });

  it('refuses to redirect a ringing call (21220), as Twilio does', async () => {
    const call = registry.addCall({
      accountSid: ACCOUNT,
      parentCallSid: 'CA' + '3'.repeat(32),
      from: 'client:ann_1',
      to: 'client:ben_2',
      direction: 'outbound-dial',
      status: 'ringing',
    });
    did.length = 0;
    await expect(
      client.calls(call.sid).update({ twiml: '<Response><Hangup/></Response>' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 21220,
      message: 'Call is not in-progress. Cannot redirect.',
    });
    expect(did).toEqual([]);
  });

  it('places a call with Url or Twiml, and refuses one with neither', async () => {
    did.length = 0;
    const call = await client.calls.create({
      to: 'client:ben_2',
      from: '+442079460000',
      twiml: '<Response/>',
    });
    expect(call).toMatchObject({ status: 'queued', direction: 'outbound-api', to: 'client:ben_2' });
    expect(did).toEqual(['place client:ben_2']);
    await expect(
      client.calls.create({ to: 'client:ben_2', from: '+442079460000' }),
    ).rejects.toMatchObject({ status: 400, code: 21205 });
  });
});

describe('Calls create: what the engine is asked to ring', () => {
  it('passes the status callback with the events asked (completed alone by default) and the timeout (60 by default)', async () => {
    placed.length = 0;
    await client.calls.create({
      to: 'client:cat_3',
      from: 'client:ann_1',
      twiml: '<Response><Hangup/></Response>',
      statusCallback: 'https://pbx.example.com/status',
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      timeout: 20,
    });
    await client.calls.create({
      to: 'client:cat_3',
      from: 'client:ann_1',
      url: 'https://pbx.example.com/consult',
      statusCallback: 'https://pbx.example.com/status',
      statusCallbackMethod: 'GET',
    });
    await client.calls.create({
      to: 'client:cat_3',
      from: 'client:ann_1',
      twiml: '<Response/>',
    });
    expect(placed).toEqual([
      {
        statusCallback: {
          url: 'https://pbx.example.com/status',
          method: 'POST',
          events: ['initiated', 'ringing', 'answered', 'completed'],
        },
        timeout: 20,
      },
      {
        statusCallback: {
          url: 'https://pbx.example.com/status',
          method: 'GET',
          events: ['completed'],
        },
        timeout: 60,
      },
      { statusCallback: null, timeout: 60 },
    ]);
    await expect(
      client.calls.create({ to: 'client:cat_3', from: 'x', twiml: '<Response/>', timeout: 0 }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('Conferences and participants', () => {
  it('finds a conference by name, holds a participant with a hold URL, resumes, removes', async () => {
    const caller = liveCall('+442079460000');
    const agent = liveCall('client:ann_1');
    const conference = registry.conferenceNamed(ACCOUNT, 'call-123');
    registry.join(conference, caller.sid, { label: 'caller' });
    registry.join(conference, agent.sid, { label: 'agent', endConferenceOnExit: false });
    did.length = 0;

    const [found, ...others] = await client.conferences.list({
      friendlyName: 'call-123',
      status: 'in-progress',
    });
    expect(others).toEqual([]);
    expect(found!.sid).toBe(conference.sid);

    const held = await client
      .conferences(conference.sid)
      .participants('caller')
      .update({ hold: true, holdUrl: 'https://pbx.example.com/api/twilio/audio?file=music' });
    expect(held).toMatchObject({ callSid: caller.sid, hold: true, label: 'caller' });
    await client.conferences(conference.sid).participants(caller.sid).update({ hold: false });
    const listed = await client.conferences(conference.sid).participants.list();
    expect(listed.map((p) => [p.label, p.hold])).toEqual([
      ['caller', false],
      ['agent', false],
    ]);

    await client.conferences(conference.sid).participants('agent').remove();
    expect(did).toEqual([
      `hold ${caller.sid} true https://pbx.example.com/api/twilio/audio?file=music GET`,
      `hold ${caller.sid} false - GET`,
      `remove ${agent.sid}`,
    ]);
    // Removed, the agent's call goes on with its TwiML (the engine's part): the registry keeps it live.
    expect(registry.calls.get(agent.sid)!.status).toBe('in-progress');
    expect((await client.conferences(conference.sid).fetch()).status).toBe('in-progress');
  });

  it('adds a participant by To and From; the conference ends when asked', async () => {
    const caller = liveCall('+442079460000');
    const conference = registry.conferenceNamed(ACCOUNT, 'park-1');
    registry.join(conference, caller.sid);
    did.length = 0;
    const added = await client
      .conferences(conference.sid)
      .participants.create({ from: '+442079460000', to: 'client:ben_2', label: 'picker' });
    expect(added).toMatchObject({ label: 'picker', status: 'queued' });
    const ended = await client.conferences(conference.sid).update({ status: 'completed' });
    expect(ended.status).toBe('completed');
    expect(did).toEqual(['add client:ben_2 picker', 'end park-1']);
    await expect(
      client.conferences(conference.sid).participants.create({ from: '+1', to: 'client:ann_1' }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('changes whether the conference ends when a participant leaves (EndConferenceOnExit)', async () => {
    const agent = liveCall('client:ann_1');
    const caller = liveCall('client:ben_2');
    const conference = registry.conferenceNamed(ACCOUNT, 'consult-1');
    registry.join(conference, agent.sid, { endConferenceOnExit: true });
    registry.join(conference, caller.sid);
    const updated = await client
      .conferences(conference.sid)
      .participants(agent.sid)
      .update({ endConferenceOnExit: false });
    expect(updated.endConferenceOnExit).toBe(false);
    await client.conferences(conference.sid).participants(agent.sid).remove();
    expect((await client.conferences(conference.sid).fetch()).status).toBe('in-progress');
  });

  it('asks a hold URL by HoldMethod (GET by default), and refuses another method, changing nothing', async () => {
    const caller = liveCall('+442079460000');
    const conference = registry.conferenceNamed(ACCOUNT, 'call-hold-method');
    registry.join(conference, caller.sid, { label: 'caller' });
    did.length = 0;
    const music = 'https://pbx.example.com/api/twilio/hold';
    const participant = client.conferences(conference.sid).participants(caller.sid);
    await expect(
      participant.update({ hold: true, holdUrl: music, holdMethod: 'PUT' }),
    ).rejects.toMatchObject({ status: 400, code: 20001 });
    expect(did).toEqual([]);
    expect((await participant.fetch()).hold).toBe(false);
    await participant.update({ hold: true, holdUrl: music, holdMethod: 'POST' });
    await participant.update({ hold: true, holdUrl: music });
    expect(did).toEqual([
      `hold ${caller.sid} true ${music} POST`,
      `hold ${caller.sid} true ${music} GET`,
    ]);
  });

  it('an unknown participant is 20404', async () => {
    const conference = registry.conferenceNamed(ACCOUNT, 'empty-one');
    await expect(
      client.conferences(conference.sid).participants('nobody').update({ hold: true }),
    ).rejects.toMatchObject({ status: 404, code: 20404 });
  });
});

describe('authentication', () => {
  it('refuses a wrong token and another account (20003)', async () => {
    const wrong = twilio(ACCOUNT, 'not-the-token', { httpClient: new TwinRequestClient(origin) });
    await expect(wrong.calls.list()).rejects.toMatchObject({ status: 401, code: 20003 });
    const other = twilio('AC' + '2'.repeat(32), TOKEN, {
      httpClient: new TwinRequestClient(origin),
    });
    await expect(other.conferences.list()).rejects.toMatchObject({ status: 401, code: 20003 });
  });
});

describe('user-defined messages (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource)', () => {
  it('sends the Content to the live call and answers with a KX sid', async () => {
    const call = liveCall();
    did.length = 0;
    const content = JSON.stringify({ event: 'routing', kind: 'ring', text: 'Ringing Ann.' });
    const message = await client.calls(call.sid).userDefinedMessages.create({ content });
    expect(message.sid).toMatch(/^KX[0-9a-f]{32}$/);
    expect(message.callSid).toBe(call.sid);
    expect(did).toEqual([`message ${call.sid} ${content}`]);
  });

  it('refuses a leg between phone numbers, which has no Voice SDK, sending nothing', async () => {
    const phoneLeg = registry.addCall({
      accountSid: ACCOUNT,
      parentCallSid: null,
      from: '+447700900123',
      to: '+442079460000',
      direction: 'inbound',
      status: 'ringing',
    });
    registry.setStatus(phoneLeg, 'in-progress');
    did.length = 0;
    await expect(
      client.calls(phoneLeg.sid).userDefinedMessages.create({ content: '{}' }),
    ).rejects.toMatchObject({ status: 400, code: 21220 });
    expect(did).toEqual([]);
  });

  it('refuses a call that is over (21220) and an unknown call (20404), sending nothing', async () => {
    const call = liveCall();
    registry.setStatus(call, 'completed');
    did.length = 0;
    await expect(
      client.calls(call.sid).userDefinedMessages.create({ content: '{}' }),
    ).rejects.toMatchObject({ status: 400, code: 21220 });
    await expect(
      client.calls('CA' + 'f'.repeat(32)).userDefinedMessages.create({ content: '{}' }),
    ).rejects.toMatchObject({ status: 404, code: 20404 });
    expect(did).toEqual([]);
  });
});

describe('Recordings', () => {
  it("serves a recording's media as WAV, refuses MP3 plainly, and deletes it as the twilio package asks", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-rec-')), 'vm.wav');
    writeFileSync(file, 'RIFF fake wav');
    const re = 'RE' + 'a'.repeat(32);
    recordingFiles.set(re, file);
    const auth = {
      Authorization: `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`,
    };
    const media = `${origin}/2010-04-01/Accounts/${ACCOUNT}/Recordings/${re}`;
    const wav = await fetch(`${media}.wav`, { headers: auth });
    expect(wav.status).toBe(200);
    expect(wav.headers.get('content-type')).toBe('audio/x-wav');
    expect(await wav.text()).toBe('RIFF fake wav');
    expect((await fetch(`${media}.wav`)).status).toBe(401);
    const mp3 = await fetch(`${media}.mp3`, { headers: auth });
    expect(mp3.status).toBe(406);
    await client.recordings(re).remove();
    expect((await fetch(`${media}.wav`, { headers: auth })).status).toBe(404);
    await expect(client.recordings(re).remove()).rejects.toMatchObject({
      status: 404,
      code: 20404,
    });
  });
});
