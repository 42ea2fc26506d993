/**
 * Load generator for `npm run bench voice` (b): a child process holding `pairs` calls through the
 * voice service with lightweight clients, not browsers. Each client is a raw signalling socket
 * (the SDK's protocol) plus a werift peer connection (the same media stack the server uses), sends
 * a tone at 50 packets/s in the codec its leg negotiated (Opus, encoded once before it is sent, or
 * PCMU; all legs paced by one clock) and measures what it receives: packets lost (sequence gaps,
 * RFC 3550 extended) and interarrival jitter (RFC 3550, in ms).
 *
 * Beside the calls, two pairs of its own legs connected directly send the same tones: what each
 * packet's arrival varies on that path (RFC 3550's D, unsmoothed) is the baseline for what the
 * relay adds.
 *
 * argv: baseUrl pairs prefix. Messages: sends {type:'up'} once every call is connected and audio
 * flows both ways; on {type:'measure'} resets the counters; on {type:'report'} answers
 * {type:'report', legs:[{received, expected, jitterMs, deviations}], direct:[the same]}; on
 * {type:'stop'} hangs up and exits.
 */
import { RtpHeader, RtpPacket } from 'werift';
import WebSocket from 'ws';
import { CLOCK_RATE, OPUS_FRAME } from '../../server/twins/voice/codec';
import { opusSource, pcmuSource, type FrameSource } from '../../server/twins/voice/sounds';
import { answerLeg, offerLeg, type MediaLeg } from '../../server/twins/voice/media';
import { client, signIn } from '../integration/sync/support';
import { CALLS } from '../../src/contracts/objects';
import { eventually, present } from '../integration/voice/support';
import { type Tone } from '../../server/platform/audio/tones';

const [baseUrl = '', pairsArg = '1', prefix = 'load'] = process.argv.slice(2);
const pairs = Number(pairsArg);

interface Frame {
  type: string;
  payload: Record<string, unknown>;
}

class Signal {
  private readonly waiting: ((f: Frame) => boolean)[] = [];
  readonly frames: Frame[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = (data as Buffer).toString();
      if (text === '\n') {
        ws.send('\n');
        return;
      }
      const frame = JSON.parse(text) as Frame;
      this.frames.push(frame);
      for (let i = this.waiting.length - 1; i >= 0; i--)
        if (this.waiting[i]!(frame)) this.waiting.splice(i, 1);
    });
  }
  send(type: string, payload: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ type, payload, version: '1.6' }));
  }
  next(match: (f: Frame) => boolean, timeoutMs = 15000): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `signalling timed out; frames: ${JSON.stringify(this.frames.map((f) => [f.type, f.payload.error ?? '']))}`,
            ),
          ),
        timeoutMs,
      );
      this.waiting.push((f) => {
        if (!match(f)) return false;
        clearTimeout(timer);
        resolve(f);
        return true;
      });
    });
  }
}

async function person(name: string): Promise<{ identity: string; email: string; signal: Signal }> {
  const email = `${name}@example.com`;
  const cookie = await signIn(baseUrl, email);
  const res = await fetch(`${baseUrl}/api/voice/token`, { headers: { cookie } });
  const { token, identity } = (await res.json()) as { token: string; identity: string };
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/signal`);
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  const signal = new Signal(ws);
  signal.send('listen', { token, reconnectTimeout: 0 });
  await signal.next((f) => f.type === 'connected');
  signal.send('register', { media: { audio: true } });
  await signal.next((f) => f.type === 'ready');
  // Present, as a page is once its phone is registered: routing rings who presence shows.
  await present(baseUrl, email);
  return { identity, email, signal };
}

/**
 * The reason the history row of `caller`'s latest call to `callee` gives (the signalling only says
 * 31603 "Decline", whichever refusal it was: offline, nobody of that name, ...).
 */
async function rowReason(caller: string, callee: string): Promise<string> {
  const sync = await client(baseUrl, caller);
  try {
    const list = await sync.list({ id: CALLS.name, mode: 'open_existing' });
    // The row is written once the call has ended: a moment after the hangup.
    let row: Record<string, unknown> | undefined;
    await eventually(
      async () => {
        const page = await list.getItems({ pageSize: 50, order: 'desc' });
        row = page.items
          .map((i) => i.data as Record<string, unknown>)
          .find((r) => r.to === callee || r.callee === callee);
        return row !== undefined;
      },
      10_000,
      `the history row of the call to ${callee}`,
    );
    return JSON.stringify({ reason: row?.reason, outcome: row?.outcome });
  } catch (err) {
    return `not read (${err instanceof Error ? err.message : String(err)})`;
  } finally {
    await sync.shutdown().catch(() => undefined);
  }
}

/** RFC 3550 receive statistics for one leg (its clock: 8 or 48 kHz, as its codec). */
class Receiver {
  constructor(private readonly perMs: () => number) {}
  received = 0;
  private base = -1;
  private maxExt = -1;
  private cycles = 0;
  private lastSeq = -1;
  private jitter = 0;
  private transit: number | null = null;
  /** Each packet's |D| (RFC 3550 §6.4.1: its transit less the one before's), in ms, unsmoothed. */
  private deviations: number[] = [];
  reset(): void {
    this.deviations = [];
    this.received = 0;
    this.base = -1;
    this.maxExt = -1;
    this.cycles = 0;
    this.lastSeq = -1;
    this.jitter = 0;
    this.transit = null;
  }
  onPacket(seq: number, timestamp: number): void {
    const arrival = (performance.now() * this.perMs()) >>> 0; // in RTP clock units
    if (this.lastSeq >= 0 && seq < 0x1000 && this.lastSeq > 0xf000) this.cycles += 0x10000;
    this.lastSeq = seq;
    const ext = this.cycles + seq;
    if (this.base < 0) this.base = ext;
    if (ext > this.maxExt) this.maxExt = ext;
    this.received++;
    const transit = (arrival - timestamp) | 0;
    if (this.transit !== null) {
      const d = Math.abs(transit - this.transit);
      this.jitter += (d - this.jitter) / 16;
      this.deviations.push(Math.round((d / this.perMs()) * 10) / 10);
    }
    this.transit = transit;
  }
  stats() {
    const expected = this.base < 0 ? 0 : this.maxExt - this.base + 1;
    return {
      received: this.received,
      expected,
      jitterMs: this.jitter / this.perMs(),
      deviations: this.deviations,
    };
  }
}

interface Leg {
  media: MediaLeg;
  receiver: Receiver;
}

/**
 * Every leg's tone sent from one clock: each 20 ms tick sends one frame per leg (and catches up
 * after a late tick, as a phone's audio clock would), instead of one timer per leg, whose drift
 * and wake-ups cost this process the CPU the measured legs need.
 */
const senders: {
  media: MediaLeg;
  source: FrameSource;
  frame: number;
  seq: number;
  ts: number;
  ssrc: number;
}[] = [];
let due = 0;
function pace(): void {
  const now = performance.now();
  if (due === 0) due = now;
  while (due <= now) {
    for (const s of senders) {
      s.seq = (s.seq + 1) & 0xffff;
      s.ts = (s.ts + (s.media.codec === 'opus' ? OPUS_FRAME : 160)) >>> 0;
      const header = new RtpHeader({
        payloadType: s.media.payloadType,
        sequenceNumber: s.seq,
        timestamp: s.ts,
        ssrc: s.ssrc,
        marker: s.frame === 0,
      });
      s.media.write(new RtpPacket(header, s.source.frame(s.frame++)));
    }
    due += 20;
  }
  setTimeout(pace, Math.max(0, due - performance.now()));
}

function sendTone(media: MediaLeg, frequency: number): void {
  const random = (n: number) => Math.floor(Math.random() * n);
  const tone: Tone = { frequencies: [frequency], onMs: 1000, offMs: 0 };
  senders.push({
    media,
    // The same tone for every leg of a frequency: Opus frames encoded once, then looped.
    source: media.codec === 'opus' ? opusSource(toneOf(frequency)) : pcmuSource(tone),
    frame: 0,
    seq: random(0xffff),
    ts: random(0xffffffff),
    ssrc: random(0xffffffff),
  });
  if (senders.length === 1) pace();
}

const tones = new Map<number, Tone>();
const toneOf = (frequency: number): Tone => {
  if (!tones.has(frequency))
    tones.set(frequency, { frequencies: [frequency], onMs: 1000, offMs: 0 });
  return tones.get(frequency)!;
};

function listen(media: MediaLeg): Leg {
  const receiver = new Receiver(() => CLOCK_RATE[media.codec] / 1000);
  media.onRtp((p) => receiver.onPacket(p.header.sequenceNumber, p.header.timestamp));
  return { media, receiver };
}

async function call(i: number): Promise<[Leg, Leg, Signal, string]> {
  const [a, b] = await Promise.all([person(`${prefix}a${i}`), person(`${prefix}b${i}`)]);
  const callsid = `TJSload${prefix}${i}x${Date.now()}`;
  const callerMedia = await offerLeg();
  const caller = listen(callerMedia);
  a.signal.send('invite', {
    callsid,
    sdp: callerMedia.localSdp,
    twilio: { params: `To=${encodeURIComponent(b.identity)}` },
  });
  // The callee's invite, or the caller's refusal (said, so a failed load run says why).
  const invite = await Promise.race([
    b.signal.next((f) => f.type === 'invite'),
    a.signal
      .next((f) => f.type === 'hangup', 20_000)
      .then(async (f) => {
        throw new Error(
          `the call to ${b.identity} was refused: ${JSON.stringify(f.payload)}; its history row: ${await rowReason(a.email, b.identity)}`,
        );
      }),
  ]);
  const calleeMedia = await answerLeg(String(invite.payload.sdp));
  const callee = listen(calleeMedia);
  b.signal.send('answer', { callsid: String(invite.payload.callsid), sdp: calleeMedia.localSdp });
  const answer = await a.signal.next((f) => f.type === 'answer');
  await callerMedia.accept(String(answer.payload.sdp));
  sendTone(callerMedia, 440);
  sendTone(calleeMedia, 660);
  return [caller, callee, a.signal, callsid];
}

/**
 * Two of this process's own legs connected to each other directly, sending the same tones: the
 * baseline of what the relay adds to each packet's arrival (the same process, clock and load).
 */
async function directPair(): Promise<[Leg, Leg]> {
  const x = await offerLeg();
  const y = await answerLeg(x.localSdp);
  await x.accept(y.localSdp);
  const legs: [Leg, Leg] = [listen(x), listen(y)];
  sendTone(x, 440);
  sendTone(y, 660);
  return legs;
}

/** Direct pairs beside the calls (each process), for the baseline. */
const DIRECT_PAIRS = 2;

async function main(): Promise<void> {
  const calls: [Leg, Leg, Signal, string][] = [];
  for (let i = 0; i < pairs; i++) calls.push(await call(i));
  const direct: Leg[] = [];
  for (let i = 0; i < DIRECT_PAIRS; i++) direct.push(...(await directPair()));
  const legs = calls.flatMap(([x, y]) => [x, y]);
  // Up once every leg hears the other side.
  const deadline = Date.now() + 20000;
  while (legs.some((l) => l.receiver.received < 10) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const silent = legs.filter((l) => l.receiver.received < 10);
  if (silent.length > 0)
    console.error(
      `voice-load: silent legs: ${silent.map((l) => `${l.media.codec}/${l.media.state}/${l.receiver.received}/in${l.media.packetsIn}/out${l.media.packetsOut}`).join(' ')}`,
    );
  process.send!({ type: 'up', silent: silent.length });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'measure') for (const l of [...legs, ...direct]) l.receiver.reset();
    if (m.type === 'report')
      process.send!({
        type: 'report',
        legs: legs.map((l) => l.receiver.stats()),
        direct: direct.map((l) => l.receiver.stats()),
      });
    if (m.type === 'stop') {
      for (const l of direct) void l.media.close();
      for (const [x, y, signal, callsid] of calls) {
        signal.send('hangup', { callsid });
        void x.media.close();
        void y.media.close();
      }
      setTimeout(() => process.exit(0), 500);
    }
  });
}

main().catch((err: unknown) => {
  console.error('voice-load:', err);
  process.exit(1);
});
