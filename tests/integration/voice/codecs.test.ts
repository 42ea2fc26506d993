/**
 * The codecs a leg settles on and what a bridge does with them, with werift peers playing the
 * browsers' part: a peer offering Opus and PCMU gets Opus, one offering (or accepting) only PCMU gets
 * PCMU; through the real server, the Device options ask for Opus first, two Opus people hear each
 * other (forwarded) and a PCMU-only person hears an Opus one and is heard (transcoded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RTCPeerConnection } from 'werift';
import type { Codec } from '../../../server/twins/voice/codec';
import { answerLeg, offerLeg, type MediaLeg } from '../../../server/twins/voice/media';
import { startServer, type RunningServer } from '../../support/server';
import { tellServerOutputOnFailure } from '../../support/server-output';
import { shutdownClients, signIn } from '../sync/support';
import { closeLegs, connected, hears, person as personAt, type Person } from './media-support';
import { eventually } from './support';

let server: RunningServer;
let ann: Person;
let bob: Person;
const made: MediaLeg[] = [];

beforeAll(async () => {
  server = await startServer();
  ann = await personAt(server.url, 'ann@example.com');
  bob = await personAt(server.url, 'bob@example.com');
}, 60_000);

// A call that failed is told with what the server said meanwhile (the end of its output).
tellServerOutputOnFailure(() => server, 3000);

afterAll(async () => {
  for (const leg of made.splice(0)) await leg.close();
  await closeLegs();
  for (const p of [ann, bob]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

/** A browser-like offer and the server's answer to it, with the codecs each side allows. */
async function negotiate(
  offering: ('opus' | 'pcmu')[],
  answering: ('opus' | 'pcmu')[],
): Promise<{ offer: MediaLeg; answer: MediaLeg }> {
  const offer = await offerLeg({ codecs: offering });
  made.push(offer);
  const answer = await answerLeg(offer.localSdp, { codecs: answering });
  made.push(answer);
  await offer.accept(answer.localSdp);
  return { offer, answer };
}

describe('codec negotiation', () => {
  it('a leg offered Opus and PCMU speaks Opus (payload type as offered)', async () => {
    const { offer, answer } = await negotiate(['opus', 'pcmu'], ['opus', 'pcmu']);
    expect(offer.localSdp).toMatch(/a=rtpmap:111 opus\/48000\/2/i);
    expect([answer.codec, answer.payloadType]).toEqual(['opus', 111]);
    expect([offer.codec, offer.payloadType]).toEqual(['opus', 111]);
  });

  it('a PCMU-only offer is answered with PCMU', async () => {
    const { offer, answer } = await negotiate(['pcmu'], ['opus', 'pcmu']);
    expect(offer.localSdp).not.toMatch(/opus/i);
    expect(answer.localSdp).toMatch(/a=rtpmap:0 PCMU\/8000/);
    expect(answer.localSdp).not.toMatch(/opus/i);
    expect([answer.codec, answer.payloadType]).toEqual(['pcmu', 0]);
    expect(offer.codec).toBe('pcmu');
  });

  it('an Opus offer accepted only as PCMU falls back to PCMU on both ends', async () => {
    const { offer, answer } = await negotiate(['opus', 'pcmu'], ['pcmu']);
    expect([offer.codec, answer.codec]).toEqual(['pcmu', 'pcmu']);
  });
});

describe("the caller's leg", () => {
  it('is answered as the DTLS server (setup:passive), so the browser starts the handshake, and connects', async () => {
    const { offer, answer } = await negotiate(['opus', 'pcmu'], ['opus', 'pcmu']);
    expect(offer.localSdp).toMatch(/^a=setup:actpass\r?$/m);
    // werift as the DTLS client waits 100 ms before its first flight (media.ts, answerLeg).
    expect(answer.localSdp).toMatch(/^a=setup:passive\r?$/m);
    const both = () => Promise.resolve(offer.state === 'connected' && answer.state === 'connected');
    await eventually(both, 5000, 'both legs connected');
    expect([offer.state, answer.state]).toEqual(['connected', 'connected']);
  });
});

/**
 * Two connected Opus legs; what the offering one receives from the answering one (each packet's
 * timestamp, sequence number and arrival), until `off`.
 */
async function heardAtTheOffer(): Promise<{
  answer: MediaLeg;
  got: { ts: number; seq: number; at: number }[];
  off: () => void;
}> {
  const { offer, answer } = await negotiate(['opus', 'pcmu'], ['opus', 'pcmu']);
  await eventually(
    () => Promise.resolve(offer.state === 'connected' && answer.state === 'connected'),
    5000,
    'both legs connected',
  );
  const got: { ts: number; seq: number; at: number }[] = [];
  const off = offer.onRtp((p) =>
    got.push({ ts: p.header.timestamp, seq: p.header.sequenceNumber, at: performance.now() }),
  );
  return { answer, got, off };
}

describe('a leg whose source changes', () => {
  it("continues the stream's timeline by the time that passed, so the browser sees no jump in delay", async () => {
    const { answer, got, off } = await heardAtTheOffer();
    try {
      answer.play(null);
      await eventually(() => Promise.resolve(got.length >= 5), 5000, 'the first sound heard');
      answer.stopPlaying();
      await new Promise((r) => setTimeout(r, 200));
      const before = got.length;
      // Another source (what a bridge does when the other leg's audio takes over).
      answer.play(null);
      await eventually(() => Promise.resolve(got.length >= before + 3), 5000, 'the second sound');
      const last = got[before - 1]!;
      const first = got[before]!;
      expect((first.seq - last.seq) & 0xffff).toBe(1);
      const tsMs = (((first.ts - last.ts) >>> 0) / 48_000) * 1000;
      const arrivedMs = first.at - last.at;
      // werift's own step at a switch was one sample (0.02 ms) for a pause of 200 ms and more.
      expect(arrivedMs).toBeGreaterThanOrEqual(190);
      expect(Math.abs(tsMs - arrivedMs)).toBeLessThan(40);
    } finally {
      off();
      answer.stopPlaying();
    }
  });
});

describe('a sound the server plays', () => {
  it("keeps the audio's clock: its timeline and its packets' arrival run at one speed", async () => {
    const { answer, got, off } = await heardAtTheOffer();
    try {
      answer.play(null);
      await new Promise((r) => setTimeout(r, 3000));
      const first = got[0]!;
      const last = got[got.length - 1]!;
      expect(last.at - first.at).toBeGreaterThan(2500);
      // The speed is the slope of arrival against the audio's own time, fitted over every packet
      // (least squares), not the first and last alone: on a busy machine one packet read late
      // moves an end point by tens of ms, and the slope hardly.
      const points = got.map((p) => ({
        audio: (((p.ts - first.ts) >>> 0) / 48_000) * 1000,
        wall: p.at - first.at,
      }));
      const n = points.length;
      const meanA = points.reduce((sum, p) => sum + p.audio, 0) / n;
      const meanW = points.reduce((sum, p) => sum + p.wall, 0) / n;
      const cov = points.reduce((sum, p) => sum + (p.audio - meanA) * (p.wall - meanW), 0);
      const varA = points.reduce((sum, p) => sum + (p.audio - meanA) ** 2, 0);
      const wallPerAudio = cov / varA;
      // On a 20 ms interval the sound ran about 5% slow (every late timer lost for good): 1.05.
      expect(Math.abs(wallPerAudio - 1)).toBeLessThan(0.025);
    } finally {
      off();
      answer.stopPlaying();
    }
  });
});

describe("the server's legs", () => {
  it("ask no STUN server (werift's fallback is Google's) and offer their own addresses only", async () => {
    const { offer, answer } = await negotiate(['opus', 'pcmu'], ['opus', 'pcmu']);
    for (const leg of [offer, answer]) {
      // The ICE agents werift made for the leg (MediaLeg keeps its peer connection private).
      const { pc } = leg as unknown as { pc: RTCPeerConnection };
      expect(pc.iceTransports.length).toBeGreaterThan(0);
      for (const transport of pc.iceTransports)
        expect(transport.connection.stunServer).toBeUndefined();
      const candidates = leg.localSdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:'));
      expect(candidates.length).toBeGreaterThan(0);
      for (const c of candidates) expect(c).toMatch(/ typ host /);
    }
  });
});

/**
 * `from` calls `to`, the legs speak `codecs` (caller's, callee's) and each hears the other; the call
 * is hung up also when that fails, so the next test does not find them still on it.
 */
async function heardBothWays(
  from: Person,
  to: Person,
  codecs: [Codec, Codec],
  media?: Parameters<typeof connected>[2],
): Promise<void> {
  const { fromSid, fromLeg, toLeg } = await connected(from, to, media);
  try {
    expect([fromLeg.codec, toLeg.codec]).toEqual(codecs);
    await hears(fromLeg, 'sound');
    await hears(toLeg, 'sound');
  } finally {
    from.send('hangup', { callsid: fromSid });
  }
}

describe('calls through the relay', () => {
  it('the Device options ask the SDK for Opus first', async () => {
    const cookie = await signIn(server.url, 'ann@example.com');
    const res = await fetch(`${server.url}/api/voice/token`, { headers: { cookie } });
    const body = (await res.json()) as { device: { codecPreferences: string[] } };
    expect(body.device.codecPreferences).toEqual(['opus', 'pcmu']);
  });

  // (The row's `relay`, the media server's own count per side, is not written since calls run as the
  // app's Twilio application, as on Twilio: docs/twins-voice.md, "Next".)
  it('two Opus people hear each other, each leg on Opus', async () => {
    await heardBothWays(ann, bob, ['opus', 'opus']);
  });

  it('a PCMU-only caller and an Opus callee hear each other through the transcoder', async () => {
    await heardBothWays(bob, ann, ['pcmu', 'opus'], { from: { codecs: ['pcmu'] } });
  });
});
