/**
 * People with a phone for the voice integration tests: a raw signalling socket plus a real WebRTC
 * peer (werift, the server's own media code playing the browser's part), so what each side hears is
 * read from the RTP it receives.
 */
import { createHash } from 'node:crypto';
import {
  answerLeg,
  offerLeg,
  type MediaLeg,
  type MediaOptions,
} from '../../../server/twins/voice/media';
import type { SyncList } from 'twilio-sync';
import { expect } from 'vitest';
import { callRecord } from '../../../src/contracts/records/call';
import { saveGroup, type GroupSpec } from '../../support/ring-groups';
import { client, signIn } from '../sync/support';
import { eventually, listening, voiceToken, type Frame, type RawSignal } from './support';
import { TONES } from '../../../server/platform/audio/tones';
import { loudestFrequency } from '../../../server/twins/voice/phones';

export type Person = RawSignal & { identity: string; cookie: string };

/** A signed-in, registered person with their session cookie for the API. */
export async function person(baseUrl: string, email: string): Promise<Person> {
  const { cookie } = await voiceToken(baseUrl, email);
  const s = await listening(baseUrl, email);
  return Object.assign(s, { cookie });
}

/** Every leg a test made, closed by `closeLegs` after it. */
const legs: MediaLeg[] = [];

export async function closeLegs(): Promise<void> {
  for (const leg of legs.splice(0)) await leg.close();
}

/**
 * What a leg hears over the next `ms`: packets, and how many carried sound (decoded from the leg's
 * codec, Opus or PCMU: any sample away from silence).
 */
export async function listen(
  leg: MediaLeg,
  ms = 600,
): Promise<{ packets: number; sounding: number }> {
  let packets = 0;
  let sounding = 0;
  const offPackets = leg.onRtp(() => packets++);
  const offAudio = leg.onAudio((pcm) => {
    if (pcm.some((v) => Math.abs(v) > 64)) sounding++;
  });
  await new Promise((r) => setTimeout(r, ms));
  offPackets();
  offAudio();
  return { packets, sounding };
}

/** Waits until `leg` receives sound, or packets that are all silence. */
export async function hears(leg: MediaLeg, what: 'sound' | 'silence'): Promise<void> {
  let last = { packets: 0, sounding: 0 };
  await eventually(
    async () => {
      const heard = (last = await listen(leg));
      return heard.packets > 10 && (what === 'sound' ? heard.sounding > 5 : heard.sounding === 0);
    },
    10_000,
    `hearing ${what}`,
  ).catch((err: unknown) => {
    // What the leg last heard in 600 ms says whether no packet came or only the wrong sound, and
    // its transport's states whether it ever came up (MediaLeg keeps its peer connection private).
    const { pc } = leg as unknown as {
      pc: { iceConnectionState: string; connectionState: string };
    };
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}: the ${leg.codec} leg last heard ${last.packets} packets, ${last.sounding} with sound; ICE ${pc.iceConnectionState}, connection ${pc.connectionState}`,
    );
  });
}

/**
 * The browser's own id for a call it places with the SDK's temporary id `tempSid` (its `Attempt`
 * parameter, src/contracts/call-parameters.ts): 32 hex digits, the same for the same `tempSid`.
 */
export const attemptFor = (tempSid: string): string =>
  createHash('md5').update(tempSid).digest('hex');

/** The `params` of an `invite` to `to`, as the app's browser sends them (`To` and `Attempt`). */
export const placeParams = (to: string, tempSid: string): string =>
  `To=${encodeURIComponent(to)}&Attempt=${attemptFor(tempSid)}`;

/** What `leg` hears over 600 ms: packets, decoded samples and the loudest frequency of the last half second. */
export async function toneHeard(
  leg: MediaLeg,
): Promise<{ packets: number; samples: number; hz: number | null }> {
  const samples: number[] = [];
  let packets = 0;
  const offPackets = leg.onRtp(() => packets++);
  const offAudio = leg.onAudio((pcm) => samples.push(...pcm));
  await new Promise((r) => setTimeout(r, 600));
  offPackets();
  offAudio();
  const hz = loudestFrequency(Int16Array.from(samples.slice(-4000)));
  return { packets, samples: samples.length, hz };
}

/**
 * Waits until `leg` hears the steady tone `hz` (within 10 Hz). On time-out, says what it last heard
 * and its transport's state, so a leg that got no packets tells apart from one that heard another sound.
 */
export async function legHearsTone(
  leg: MediaLeg,
  hz: number,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  let last: Awaited<ReturnType<typeof toneHeard>> | null = null;
  await eventually(
    async () => {
      last = await toneHeard(leg);
      return last.hz !== null && Math.abs(last.hz - hz) <= 10;
    },
    timeoutMs,
    what,
  ).catch((err: unknown) => {
    const { pc } = leg as unknown as {
      pc: { iceConnectionState: string; connectionState: string };
    };
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}: the ${leg.codec} leg last heard ${JSON.stringify(last)}; ICE ${pc.iceConnectionState}, connection ${pc.connectionState}`,
    );
  });
}

/** `POST /api/voice/calls/{path}` as `who`, with an optional JSON body. */
export async function post(
  baseUrl: string,
  who: Person,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/api/voice/calls/${path}`, {
    method: 'POST',
    headers: {
      cookie: who.cookie,
      origin: baseUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

let seq = 0;

/**
 * `who` dials `to` (an `invite` with a werift offer, Opus and PCMU unless `media` says otherwise);
 * resolves the frame that answers it.
 */
export async function dial(
  who: Person,
  to: string,
  media: MediaOptions = {},
): Promise<{ frame: Frame; leg: MediaLeg }> {
  const leg = await offerLeg(media);
  legs.push(leg);
  const mark = who.frames.length;
  const tempSid = `TJ-${++seq}-${Date.now()}`;
  who.send('invite', {
    callsid: tempSid,
    sdp: leg.localSdp,
    preflight: false,
    twilio: { accountsid: null, params: placeParams(to, tempSid) },
  });
  // The call's SID is the one its first `ringing` or `answer` carries, as Twilio tells it: `ringing`
  // when a <Dial> rings someone, `answer` when its TwiML answers at once (a pick-up joins its room);
  // or the call was refused before either (a `hangup` to the invite's own SID). After a `ringing`,
  // its answer or hang-up is the one with that SID: a late frame of a call `who` was in before (its
  // end can reach it after this invite) is never taken for this call's.
  const earlier = new Set(who.frames.slice(0, mark).map((f) => f.payload.callsid));
  const first = await who.next(
    (f) =>
      ((f.type === 'ringing' || f.type === 'answer') && !earlier.has(f.payload.callsid)) ||
      (f.type === 'hangup' && f.payload.callsid === tempSid),
    mark,
    30_000,
  );
  const frame =
    first.type !== 'ringing'
      ? first
      : await who.next(
          (f) =>
            (f.type === 'answer' || f.type === 'hangup') &&
            f.payload.callsid === first.payload.callsid,
          mark,
          // A group's turns in order ring one after another before anyone answers.
          30_000,
        );
  if (frame.type === 'answer') {
    await leg.accept(String(frame.payload.sdp));
    leg.play(TONES.busy);
  }
  return { frame, leg };
}

/** Answers an `invite` with a werift peer that plays a tone. */
export async function answerTo(
  who: Person,
  invite: Frame,
  media: MediaOptions = {},
): Promise<MediaLeg> {
  const leg = await answerLeg(String(invite.payload.sdp), media);
  legs.push(leg);
  who.send('answer', { callsid: invite.payload.callsid, sdp: leg.localSdp });
  leg.play(TONES.busy);
  return leg;
}

/**
 * Answers an `invite` and hangs it up in one TCP write, so the server reads the hang-up while it
 * is still taking the answer (its media leg accepting the SDP), as a loaded server does.
 */
export async function answerAndHangUpAtOnce(who: Person, invite: Frame): Promise<void> {
  const socket = (who.ws as unknown as { _socket: import('node:net').Socket })._socket;
  socket.cork();
  await answerTo(who, invite);
  who.send('hangup', { callsid: invite.payload.callsid });
  socket.uncork();
}

/**
 * `from` calls `to`, who answers; both legs play a tone so each can be heard. `media` picks each
 * side's codecs (Opus and PCMU by default).
 *
 * A call placed the moment the previous one ended may be refused busy: the server learns that a
 * leg ended from Twilio's status callback, which can come a little after the hangup frame (on a
 * busy machine). It is placed again, as a person would, for up to 15 s.
 */
export async function connected(
  from: Person,
  to: Person,
  media: { from?: MediaOptions; to?: MediaOptions } = {},
): Promise<{ fromSid: string; toSid: string; fromLeg: MediaLeg; toLeg: MediaLeg }> {
  const give = Date.now() + 15_000;
  for (;;) {
    const mark = to.frames.length;
    const calling = dial(from, to.identity, media.from);
    const first = await Promise.race([
      to
        .next((f) => f.type === 'invite', mark, 30_000)
        .then(
          (invite) => ({ invite }),
          (err: unknown) => ({ err }),
        ),
      calling.then((placed) => ({ placed })),
    ]);
    if ('placed' in first) {
      const { frame } = first.placed;
      const busy = (frame.payload.error as { code?: number } | undefined)?.code === 31486;
      if (frame.type === 'hangup' && busy && Date.now() < give) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      throw new Error(`the call was not answered: ${JSON.stringify(frame)}`);
    }
    if ('err' in first) throw first.err;
    const { invite } = first;
    const toLeg = await answerTo(to, invite, media.to);
    const { frame, leg } = await calling;
    if (frame.type !== 'answer')
      throw new Error(`the call was not answered: ${JSON.stringify(frame)}`);
    return {
      fromSid: String(frame.payload.callsid),
      toSid: String(invite.payload.callsid),
      fromLeg: leg,
      toLeg,
    };
  }
}

export const paramsOf = (invite: Frame): URLSearchParams =>
  new URLSearchParams(String((invite.payload.parameters as { Params: string }).Params));

/** The call messages `p` received from frame `from` on, their contents parsed. */
const messages = (p: Person, from: number): { event: string; text?: string }[] =>
  p.frames
    .slice(from)
    .filter((f) => f.type === 'message')
    .map((f) => JSON.parse(String(f.payload.content)) as { event: string; text?: string });

/** The `event` of each call message `p` received from frame `from` on. */
export const messageEvents = (p: Person, from = 0): string[] =>
  messages(p, from).map((m) => m.event);

/** The routing steps `p` (a caller) was told since frame `from`, in words (the SDK's messages). */
export const routingTexts = (p: Person, from = 0): string[] =>
  messages(p, from)
    .filter((m) => m.event === 'routing')
    .map((m) => m.text!);

/**
 * Stores a group as the group form does, as the admin `email`: the server makes its objects and
 * item (POST /api/groups/:id), the admin's Sync client fills in holidays and forwarding.
 */
export async function storeGroupOnTwilio(
  baseUrl: string,
  email: string,
  g: GroupSpec,
): Promise<void> {
  const cookie = await signIn(baseUrl, email);
  const sync = await client(baseUrl, email);
  await saveGroup({ baseUrl, cookie, sync }, g);
}

/**
 * The row of `callSid` in `history` (a client's `calls` list) once it is there, within `timeoutMs`:
 * the call record both backends write.
 */
export async function historyRowIn(
  history: SyncList,
  callSid: string,
  timeoutMs = 8000,
): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | null = null;
  await eventually(
    async () => {
      const items = (await history.getItems({ order: 'desc', pageSize: 20 })).items;
      const row = items.find((i) => (i.data as { callSid?: string }).callSid === callSid);
      found = row ? (row.data as Record<string, unknown>) : null;
      return found !== null;
    },
    timeoutMs,
    `the history row of ${callSid}`,
  );
  expect(callRecord.check(found)).toMatchObject({ ok: true, value: found });
  return found!;
}
