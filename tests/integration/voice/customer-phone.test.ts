/**
 * A customer on a phone number, through the real server on the twins (`SWITCHBOARD_BACKEND=twilio-twins`,
 * whose account has a number), each colleague a raw PStream socket with a real WebRTC peer (werift)
 * and the customer one of the voice twin's scripted phones (server/twins/voice/phones.ts), reached
 * by the app's `<Dial><Number>` or calling the team's number through the twin's phone route. What
 * each side hears is measured: the colleague's leg hears the phone's tone, and the phone says which
 * tone it hears (`GET /twilio/phones/Calls/{sid}`). Finding 1 of issue 42: an agent's call to a
 * customer's number could not be held, parked or transferred (the app recorded a live call only
 * for a `client:` leg, so every control answered "This call has ended").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phoneNamed, steadyTone } from '../../../server/twins/voice/phones';
import { saveGroup } from '../../support/ring-groups';
import { startServer, type RunningServer } from '../../support/server';
import { phonesOrThrow, type PhoneCallView } from '../../support/twin-phones';
import { client, shutdownClients, signIn } from '../sync/support';
import {
  answerTo,
  closeLegs,
  dial,
  historyRowIn,
  legHearsTone,
  person as personAt,
  post as postAt,
  type Person,
} from './media-support';
import { eventually } from './support';

let server: RunningServer;
let ann: Person;
let bob: Person;
let cat: Person;
let dan: Person;
let teamNumber = '';
const VOICEMAIL_NUMBER = '+15005550007';
const post = (who: Person, path: string, body?: unknown) => postAt(server.url, who, path, body);

beforeAll(async () => {
  server = await startServer({
    env: {
      SWITCHBOARD_BACKEND: 'twilio-twins',
      SWITCHBOARD_VOICE_RING_SECONDS: '8',
      SWITCHBOARD_VOICE_PARK_SECONDS: '60',
      // A second number, for a group nobody can answer (its callers leave a voicemail).
      TWILIO_PHONE_NUMBERS: '+15005550006,+15005550007',
    },
  });
  teamNumber = server.account().phoneNumbers[0]!;
  ann = await personAt(server.url, 'ann@example.com');
  bob = await personAt(server.url, 'bob@example.com');
  cat = await personAt(server.url, 'cat@example.com');
  dan = await personAt(server.url, 'dan@example.com');
  // The team's number rings Ann (she signed in first: the admin).
  await saveGroup(
    { baseUrl: server.url, cookie: ann.cookie, sync: await client(server.url, 'ann@example.com') },
    { id: 'desk', name: 'Front desk', number: teamNumber, members: ['ann@example.com'] },
  );
  // Eve is on the team and never registered: offline, so the second number goes to voicemail.
  await signIn(server.url, 'eve@example.com');
  await saveGroup(
    { baseUrl: server.url, cookie: ann.cookie, sync: await client(server.url, 'ann@example.com') },
    { id: 'after', name: 'After hours', number: VOICEMAIL_NUMBER, members: ['eve@example.com'] },
  );
}, 60_000);

afterAll(async () => {
  await closeLegs();
  for (const p of [ann, bob, cat, dan]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

/** The twin's phone route on this suite's server (tests/support/twin-phones.ts). */
const phones = (path: string, form?: Record<string, string>): Promise<unknown> =>
  phonesOrThrow({ ...server.account(), url: server.url }, path, form);

const near = (hz: number | null | undefined, want: number): boolean =>
  typeof hz === 'number' && Math.abs(hz - want) <= 10;

/** Waits until the phone's call `sid` hears the steady tone `hz`. */
async function phoneHears(sid: string, hz: number, what: string): Promise<void> {
  let last: PhoneCallView | null = null;
  await eventually(
    async () => {
      last = (await phones(`/Calls/${sid}`)) as PhoneCallView;
      return near(last.heard?.toneHz, hz);
    },
    15_000,
    `the phone hearing ${what}`,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; it last heard ${JSON.stringify(last)}`);
  });
}

/** Waits until the phone's call `sid` hears something that is not `hz` (music, say). */
async function phoneHearsOther(sid: string, hz: number, what: string): Promise<void> {
  await eventually(
    async () => {
      const heard = ((await phones(`/Calls/${sid}`)) as PhoneCallView).heard;
      return heard !== null && heard.level > 100 && !near(heard.toneHz, hz);
    },
    10_000,
    `the phone hearing ${what}`,
  );
}

/** The newest call of the phone `number`. */
async function newestCallOf(number: string): Promise<PhoneCallView> {
  const { calls } = (await phones(`/Calls?Phone=${encodeURIComponent(number)}`)) as {
    calls: PhoneCallView[];
  };
  return calls[0]!;
}

const TONE = { ann: 440, bob: 660, cat: 550, dan: 350 } as const;

describe('a customer on a phone number', () => {
  it('an agent calls a customer: the call is held, resumed, parked, picked up and transferred blind and attended; the row has the whole trail', async () => {
    const customer = phoneNamed('person');
    const placed = await dial(ann, customer.number);
    expect(placed.frame.type, JSON.stringify(placed.frame)).toBe('answer');
    const annSid = String(placed.frame.payload.callsid);
    placed.leg.play(steadyTone(TONE.ann));
    const phoneCall = await newestCallOf(customer.number);
    expect(phoneCall.status).toBe('in-progress');
    await legHearsTone(placed.leg, customer.toneHz, 'Ann hearing the customer');
    await phoneHears(phoneCall.sid, TONE.ann, 'Ann');

    // Hold and resume.
    expect((await post(ann, `${annSid}/hold`)).status).toBe(204);
    await phoneHearsOther(phoneCall.sid, TONE.ann, 'the music');
    expect((await post(ann, `${annSid}/resume`)).status).toBe(204);
    await phoneHears(phoneCall.sid, TONE.ann, 'Ann again');

    // Park; Bob picks up.
    const parked = await post(ann, `${annSid}/park`);
    expect(parked.status).toBe(200);
    const { callId } = parked.body.parked as { callId: string; caller: string };
    expect(parked.body.parked).toMatchObject({ caller: customer.number });
    await phoneHearsOther(phoneCall.sid, TONE.ann, 'the music while parked');
    const picked = await dial(bob, `park:${callId}`);
    expect(picked.frame.type).toBe('answer');
    const bobSid = String(picked.frame.payload.callsid);
    picked.leg.play(steadyTone(TONE.bob));
    await phoneHears(phoneCall.sid, TONE.bob, 'Bob');
    await legHearsTone(picked.leg, customer.toneHz, 'Bob hearing the customer');

    // Bob sends the customer to Cat, blind.
    const markCat = cat.frames.length;
    expect((await post(bob, `${bobSid}/transfer`, { to: 'cat', mode: 'blind' })).status).toBe(204);
    const catInvite = await cat.next((f) => f.type === 'invite', markCat, 15_000);
    const catSid = String(catInvite.payload.callsid);
    const catLeg = await answerTo(cat, catInvite);
    catLeg.play(steadyTone(TONE.cat));
    await phoneHears(phoneCall.sid, TONE.cat, 'Cat');
    await legHearsTone(catLeg, customer.toneHz, 'Cat hearing the customer');

    // Cat asks Dan first, then hands the customer over.
    const markDan = dan.frames.length;
    expect((await post(cat, `${catSid}/transfer`, { to: 'dan', mode: 'consult' })).status).toBe(
      204,
    );
    const danInvite = await dan.next((f) => f.type === 'invite', markDan, 15_000);
    const danLeg = await answerTo(dan, danInvite);
    danLeg.play(steadyTone(TONE.dan));
    await phoneHearsOther(phoneCall.sid, TONE.cat, 'the music while Cat asks Dan');
    await eventually(
      async () => (await post(cat, `${catSid}/transfer/complete`)).status === 204,
      10_000,
      'the transfer completed',
    );
    await phoneHears(phoneCall.sid, TONE.dan, 'Dan');
    await legHearsTone(danLeg, customer.toneHz, 'Dan hearing the customer');

    // The customer hangs up: the row is the whole call.
    await phones(`/Calls/${phoneCall.sid}/Hangup`, {});
    const history = await (await client(server.url, 'ann@example.com')).list('calls');
    const row = await historyRowIn(history, annSid, 15_000);
    expect(row).toMatchObject({
      from: 'ann@example.com',
      to: customer.number,
      direction: 'outbound',
    });
    expect(
      (row.trail as { action: string; by: string; to?: string }[]).map((s) =>
        [s.action, s.by, s.to].filter(Boolean).join(' '),
      ),
    ).toEqual([
      'held ann@example.com',
      'resumed ann@example.com',
      'parked ann@example.com',
      'pickedUp bob@example.com',
      'transferred bob@example.com cat@example.com',
      // An attended transfer holds the customer while Cat asks Dan.
      'held cat@example.com',
      'transferred cat@example.com dan@example.com',
    ]);
  }, 120_000);

  it('a customer calls the team number: the agent who answers holds, parks and transfers them; the row has the whole trail', async () => {
    const customer = phoneNamed('second person');
    const markAnn = ann.frames.length;
    const called = (await phones('/Calls', { From: customer.number, To: teamNumber })) as {
      sid: string;
    };
    const invite = await ann.next((f) => f.type === 'invite', markAnn, 15_000);
    const annSid = String(invite.payload.callsid);
    const annLeg = await answerTo(ann, invite);
    annLeg.play(steadyTone(TONE.ann));
    await legHearsTone(annLeg, customer.toneHz, 'Ann hearing the customer');
    await phoneHears(called.sid, TONE.ann, 'Ann');

    expect((await post(ann, `${annSid}/hold`)).status).toBe(204);
    await phoneHearsOther(called.sid, TONE.ann, 'the music');
    expect((await post(ann, `${annSid}/resume`)).status).toBe(204);
    await phoneHears(called.sid, TONE.ann, 'Ann again');

    const parked = await post(ann, `${annSid}/park`);
    expect(parked.status).toBe(200);
    const { callId } = parked.body.parked as { callId: string };
    const picked = await dial(bob, `park:${callId}`);
    expect(picked.frame.type).toBe('answer');
    const bobSid = String(picked.frame.payload.callsid);
    picked.leg.play(steadyTone(TONE.bob));
    await phoneHears(called.sid, TONE.bob, 'Bob');

    const markCat = cat.frames.length;
    expect((await post(bob, `${bobSid}/transfer`, { to: 'cat', mode: 'blind' })).status).toBe(204);
    const catInvite = await cat.next((f) => f.type === 'invite', markCat, 15_000);
    const catLeg = await answerTo(cat, catInvite);
    catLeg.play(steadyTone(TONE.cat));
    await phoneHears(called.sid, TONE.cat, 'Cat');
    await legHearsTone(catLeg, customer.toneHz, 'Cat hearing the customer');

    await phones(`/Calls/${called.sid}/Hangup`, {});
    const history = await (await client(server.url, 'ann@example.com')).list('calls');
    const row = await historyRowIn(history, called.sid, 15_000);
    expect(row).toMatchObject({ from: customer.number, direction: 'inbound', group: 'desk' });
    expect(
      (row.trail as { action: string; by: string; to?: string }[]).map((s) =>
        [s.action, s.by, s.to].filter(Boolean).join(' '),
      ),
    ).toEqual([
      'held ann@example.com',
      'resumed ann@example.com',
      'parked ann@example.com',
      'pickedUp bob@example.com',
      'transferred bob@example.com cat@example.com',
    ]);
  }, 120_000);

  it('a customer nobody can answer leaves a voicemail and ends it with #; the row keeps it', async () => {
    const customer = phoneNamed('person');
    const called = (await phones('/Calls', { From: customer.number, To: VOICEMAIL_NUMBER })) as {
      sid: string;
    };
    // The greeting, then the beep (1000 Hz): the recording runs; the customer talks, then presses #.
    await phoneHears(called.sid, 1000, 'the beep');
    await new Promise((r) => setTimeout(r, 2000));
    await phones(`/Calls/${called.sid}/Digits`, { Digits: '#' });
    await eventually(
      async () => ((await phones(`/Calls/${called.sid}`)) as PhoneCallView).status === 'completed',
      15_000,
      'the call over after its thanks',
    );
    const history = await (await client(server.url, 'ann@example.com')).list('calls');
    const row = await historyRowIn(history, called.sid, 15_000);
    expect(row).toMatchObject({ from: customer.number, group: 'after', outcome: 'voicemail' });
    const voicemail = row.voicemail as { id: string; seconds: number };
    // Ended by the # after about 2 s of talk, not by the recording's own limit.
    expect(voicemail.seconds).toBeGreaterThanOrEqual(1);
    expect(voicemail.seconds).toBeLessThanOrEqual(6);
  }, 60_000);
});
