/**
 * Issue 10 benchmark, side by side in one run:
 * (a) call setup, dial to both sides open with audio flowing, through the real server and SDK, against
 *     two bare RTCPeerConnections in the same browser connected directly (the floor);
 * (b) server CPU per bridged call against a plain UDP forwarder copying the same packet rate, and
 *     how many simultaneous calls stay within loss and jitter limits (lightweight clients);
 * (c) audio latency: a tone burst through a call bridged by the server against the same burst sent
 *     at the same time between the call's two pages directly (the difference is what the server
 *     adds), and, for reference, between two bare RTCPeerConnections in one page.
 * Issue 11 adds: pick-up latency (dial of park:<id> to audio at the picker) against the call setup of
 * the same run, and server CPU per parked call (music) against per bridged call.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { startServer } from '../support/server';
import { openPhone, type Phone } from '../e2e/support/phone';
import { holdMusic } from '../../server/twins/voice/audio';
import { EncodedSound } from '../../server/twins/voice/sounds';
import { fmt, median, percentile, writeSection } from './report';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CPU_SECONDS = Number(process.env.BENCH_VOICE_CPU_SECONDS ?? 10);
const CALLS = Number(process.env.BENCH_VOICE_CALLS ?? 3);
const BURSTS = Number(process.env.BENCH_VOICE_BURSTS ?? 40);
/** Simultaneous calls to try for capacity, in order; stops after the limits fail twice. */
const STEPS = (process.env.BENCH_VOICE_STEPS ?? '10,20,30,40,50,60,70').split(',').map(Number);
const LOAD_PROCS = 2;
const LOAD_SECONDS = Number(process.env.BENCH_VOICE_LOAD_SECONDS ?? 10);
const MOS_SECONDS = Number(process.env.BENCH_VOICE_MOS_SECONDS ?? 8);
/** BENCH_VOICE_CPU_PROF=<dir>: the server's CPU profile of (b)'s bridged calls is written there. */
const PROFILE = process.env.BENCH_VOICE_CPU_PROF;

/** Wall-clock ms in a page (same machine, so pages compare). */
const NOW = 'performance.timeOrigin + performance.now()';
/** Hangs up a page's newest call. */
const HANG_UP_LAST = `(() => { const c = window.__phone.calls; c[c.length - 1].disconnect(); })()`;

/**
 * In-page source of `connectDirect(a, b)`: offer from `a`, answer from `b`, each after its ICE
 * gathering is complete (no trickle), as two RTCPeerConnections in one page connect directly.
 */
const CONNECT_DIRECT = `const connectDirect = async (a, b) => {
      const gathered = (pc) => pc.iceGatheringState === 'complete' ? Promise.resolve() :
        new Promise((r) => pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r()));
      await a.setLocalDescription(await a.createOffer());
      await gathered(a);
      await b.setRemoteDescription(a.localDescription);
      await b.setLocalDescription(await b.createAnswer());
      await gathered(b);
      await a.setRemoteDescription(b.localDescription);
    };`;

async function inboundPackets(page: Page): Promise<void> {
  await page.evaluate(`(async () => {
    const phone = window.__phone;
    const call = phone.calls[phone.calls.length - 1];
    for (;;) {
      const pc = call && call._mediaHandler && call._mediaHandler.version && call._mediaHandler.version.pc;
      if (pc) {
        let packets = 0;
        (await pc.getStats()).forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'audio') packets = s.packetsReceived || 0; });
        if (packets > 0) return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })()`);
}

/**
 * RTP packets and bytes (header and payload, as werift sends them: no SRTP tag) a page's calls have
 * sent so far, from getStats: what the server receives from that page.
 */
async function sentSoFar(page: Page): Promise<{ packets: number; bytes: number }> {
  return page.evaluate(`(async () => {
    let packets = 0, bytes = 0;
    for (const call of window.__phone.calls) {
      const pc = call && call._mediaHandler && call._mediaHandler.version && call._mediaHandler.version.pc;
      if (!pc || pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach((s) => {
        if (s.type === 'outbound-rtp' && s.kind === 'audio') {
          packets += s.packetsSent || 0;
          bytes += (s.bytesSent || 0) + (s.headerBytesSent || 0);
        }
      });
    }
    return { packets, bytes };
  })()`);
}

/** One call through the server: ms from dial to both sides open with inbound audio. */
async function serverCallSetup(caller: Phone, callee: Phone, to: string): Promise<number> {
  await callee.page.evaluate(`(() => {
    window.__audioAt = null;
    window.__phone.device.once('incoming', (call) => call.accept());
  })()`);
  const calleeAudio = callee.page.evaluate<number>(`(async () => {
    for (;;) {
      const phone = window.__phone;
      const call = phone.calls[phone.calls.length - 1];
      const pc = call && call.status() === 'open' && call._mediaHandler.version && call._mediaHandler.version.pc;
      if (pc) {
        let packets = 0;
        (await pc.getStats()).forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'audio') packets = s.packetsReceived || 0; });
        if (packets > 0) return ${NOW};
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })()`);
  const started = await caller.page.evaluate<number>(`(async () => {
    const t0 = ${NOW};
    const phone = window.__phone;
    const call = await phone.device.connect({ params: { To: ${JSON.stringify(to)} } });
    phone.watchCall(call, 'outgoing');
    await new Promise((r) => call.on('accept', r));
    return t0;
  })()`);
  await inboundPackets(caller.page);
  const callerAudioAt = await caller.page.evaluate<number>(NOW);
  const calleeAudioAt = await calleeAudio;
  const ms = Math.max(callerAudioAt, calleeAudioAt) - started;
  await caller.page.evaluate(HANG_UP_LAST);
  await callee.page.waitForFunction(
    `(() => { const c = window.__phone.calls; return c[c.length - 1].status() === 'closed'; })()`,
  );
  return ms;
}

/** Parks the last call of `phone` through the API (as the Park button does); the parked call's id. */
async function park(phone: Phone): Promise<string> {
  return phone.page.evaluate<string>(`(async () => {
    const c = window.__phone.calls;
    const sid = c[c.length - 1].parameters.CallSid;
    const res = await fetch('/api/voice/calls/' + sid + '/park', { method: 'POST' });
    if (!res.ok) throw new Error('park refused: ' + res.status + ' ' + (await res.text()));
    return (await res.json()).parked.callId;
  })()`);
}

/**
 * Pick-up: Ann calls Bob, Bob answers and parks the call; then ms from Cat's dial of `park:<id>`
 * (the Pick up click) to Cat's call open with inbound audio.
 */
async function pickUpLatency(caller: Phone, parker: Phone, picker: Phone): Promise<number> {
  await parker.page.evaluate(`window.__phone.device.once('incoming', (call) => call.accept())`);
  await caller.page.evaluate(`(async () => {
    const phone = window.__phone;
    const call = await phone.device.connect({ params: { To: ${JSON.stringify(parker.name)} } });
    phone.watchCall(call, 'outgoing');
    await new Promise((r) => call.on('accept', r));
  })()`);
  await inboundPackets(parker.page);
  const callId = await park(parker);
  const ms = await picker.page.evaluate<number>(`(async () => {
    const t0 = ${NOW};
    const phone = window.__phone;
    const call = await phone.device.connect({ params: { To: ${JSON.stringify(`park:${callId}`)} } });
    phone.watchCall(call, 'outgoing');
    await new Promise((r) => call.on('accept', r));
    for (;;) {
      const pc = call._mediaHandler && call._mediaHandler.version && call._mediaHandler.version.pc;
      if (pc) {
        let packets = 0;
        (await pc.getStats()).forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'audio') packets = s.packetsReceived || 0; });
        if (packets > 0) return ${NOW} - t0;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })()`);
  await caller.page.evaluate(HANG_UP_LAST);
  await picker.page.waitForFunction(
    `(() => { const c = window.__phone.calls; return c[c.length - 1].status() === 'closed'; })()`,
  );
  return ms;
}

/** Two RTCPeerConnections in one page, offer and answer with complete candidates, until both hear audio. */
async function directSetup(page: Page): Promise<number> {
  return page.evaluate<number>(`(async () => {
    ${CONNECT_DIRECT}
    const heard = async (pc) => { for (;;) { let n = 0; (await pc.getStats()).forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'audio') n = s.packetsReceived || 0; }); if (n > 0) return; await new Promise((r) => setTimeout(r, 5)); } };
    const t0 = ${NOW};
    const a = new RTCPeerConnection();
    const b = new RTCPeerConnection();
    const [ma, mb] = await Promise.all([navigator.mediaDevices.getUserMedia({ audio: true }), navigator.mediaDevices.getUserMedia({ audio: true })]);
    ma.getTracks().forEach((t) => a.addTrack(t, ma));
    mb.getTracks().forEach((t) => b.addTrack(t, mb));
    await connectDirect(a, b);
    await Promise.all([heard(a), heard(b)]);
    const ms = ${NOW} - t0;
    [ma, mb].forEach((m) => m.getTracks().forEach((t) => t.stop()));
    a.close(); b.close();
    return ms;
  })()`);
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function cpuOver(pid: number, seconds: number): Promise<number> {
  const before = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return cpuSeconds(pid) - before;
}

/**
 * A plain UDP forwarder in its own process copying `pps` packets of `bytes` per second, fed as the
 * server is: streams of 50 packets/s (a browser's 20 ms frames), each on its own phase, spread over
 * the 20 ms. Until stop 46 all the streams' packets were sent together once every 20 ms, so the
 * forwarder woke once per tick for all of them while the server, fed by browsers each on its own
 * clock, woke for each packet: at 300 packets/s that made the floor about a fifth cheaper
 * (2.4–2.9% of a core against 3.0–3.5%, measured side by side) and the ratio higher.
 */
async function forwarderCpu(
  pps: number,
  bytes: number,
  seconds: number,
  feed: 'streams' | 'bursts' = 'streams',
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'udp-fwd-'));
  const script = join(dir, 'fwd.cjs');
  writeFileSync(
    script,
    `const dgram = require('node:dgram');
     const fwd = dgram.createSocket('udp4'); const sink = dgram.createSocket('udp4');
     sink.bind(0, '127.0.0.1', () => fwd.bind(0, '127.0.0.1', () => {
       const to = sink.address().port;
       fwd.on('message', (m) => fwd.send(m, to, '127.0.0.1'));
       process.send({ port: fwd.address().port });
     }));`,
  );
  const child = fork(script, { stdio: 'ignore' } as never);
  const port = await new Promise<number>((r) =>
    child.once('message', (m: { port: number }) => r(m.port)),
  );
  const dgram = await import('node:dgram');
  const sender = dgram.createSocket('udp4');
  const packet = Buffer.alloc(bytes, 0x80);
  const streams = Math.max(1, Math.round(pps / 50));
  const send = () => sender.send(packet, port, '127.0.0.1');
  const timers: NodeJS.Timeout[] = [];
  const phases: NodeJS.Timeout[] = [];
  if (feed === 'bursts')
    // Every stream's packet of a 20 ms tick sent together (the floor until stop 46).
    timers.push(
      setInterval(() => {
        for (let i = 0; i < streams; i++) send();
      }, 20),
    );
  else
    for (let k = 0; k < streams; k++)
      phases.push(setTimeout(() => timers.push(setInterval(send, 20)), (k * 20) / streams));
  await new Promise((r) => setTimeout(r, 1000));
  const used = await cpuOver(child.pid!, seconds);
  for (const t of phases) clearTimeout(t);
  for (const t of timers) clearInterval(t);
  sender.close();
  child.kill();
  rmSync(dir, { recursive: true, force: true });
  return used;
}

/**
 * (c) A tone source in place of the microphone: `window.__tone.on()` starts a 1 kHz tone and
 * returns when (wall clock ms); `off()` silences it. Installed before any call asks for a microphone.
 */
const TONE_SOURCE = `(() => {
  const ctx = new AudioContext();
  const osc = ctx.createOscillator();
  osc.frequency.value = 1000;
  const gain = ctx.createGain();
  gain.gain.value = 0;
  const dest = ctx.createMediaStreamDestination();
  osc.connect(gain).connect(dest);
  osc.start();
  window.__tone = {
    stream: () => new MediaStream(dest.stream.getAudioTracks().map((t) => t.clone())),
    on: () => { gain.gain.setValueAtTime(1, ctx.currentTime); return ${NOW}; },
    off: () => { gain.gain.setValueAtTime(0, ctx.currentTime); },
  };
  navigator.mediaDevices.getUserMedia = async () => window.__tone.stream();
})()`;

/**
 * (c) A detector on a received stream: `window.__ears[name].heard()` resolves with the wall-clock ms
 * at which the level first crossed a threshold after being quiet. The stream also plays through a
 * muted element (Chromium feeds WebAudio from a remote stream only while something plays it).
 */
const EAR = (streamExpr: string, name = 'ear') => `(() => {
  const stream = ${streamExpr};
  const el = new Audio(); el.srcObject = stream; el.muted = true; void el.play();
  const ctx = new AudioContext();
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 256;
  ctx.createMediaStreamSource(stream).connect(analyser);
  const buf = new Float32Array(analyser.fftSize);
  const level = () => { analyser.getFloatTimeDomainData(buf); let m = 0; for (const v of buf) m = Math.max(m, Math.abs(v)); return m; };
  window.__ears = window.__ears || {};
  window.__ears[${JSON.stringify(name)}] = {
    quiet: async () => { for (let i = 0; i < 400 && level() > 0.02; i++) await new Promise((r) => setTimeout(r, 5)); },
    heard: () => new Promise((resolve) => {
      const started = ${NOW};
      const poll = () => {
        if (level() > 0.1) resolve(${NOW});
        else if (${NOW} - started > 3000) resolve(null);
        else setTimeout(poll, 1);
      };
      poll();
    }),
  };
})()`;

/**
 * One tone burst from the `mouth` page, heard by each of the `ear` page's detectors named: ms from
 * tone on to heard for each, null where it was lost. One tone feeds every stream the mouth sends.
 */
async function burst(
  mouth: Page,
  ear: Page,
  names: string[] = ['ear'],
): Promise<(number | null)[]> {
  await mouth.evaluate('window.__tone.off()');
  for (const name of names) await ear.evaluate(`window.__ears[${JSON.stringify(name)}].quiet()`);
  await new Promise((r) => setTimeout(r, 100));
  const heard = ear.evaluate<(number | null)[]>(
    `Promise.all(${JSON.stringify(names)}.map((name) => window.__ears[name].heard()))`,
  );
  const on = await mouth.evaluate<number>('window.__tone.on()');
  const at = await heard;
  await mouth.evaluate('window.__tone.off()');
  return at.map((t) => (t === null ? null : t - on));
}

/**
 * (c) A direct path between the call's own two pages: a bare `RTCPeerConnection` in `from` sending
 * its tone (offer and answer with complete candidates, carried by the bench), received by one in
 * `to` and heard there by the detector `pair`. A burst then reaches both of `to`'s detectors at
 * once, through the server and directly, on the same pages and processes.
 */
async function pagePair(from: Page, to: Page): Promise<void> {
  const gathered = `(pc) => pc.iceGatheringState === 'complete' ? Promise.resolve() :
    new Promise((r) => pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r()))`;
  const offer = await from.evaluate<RTCSessionDescriptionInit>(`(async () => {
    const pc = new RTCPeerConnection();
    const tone = window.__tone.stream();
    tone.getTracks().forEach((t) => pc.addTrack(t, tone));
    window.__pair = pc;
    await pc.setLocalDescription(await pc.createOffer());
    await (${gathered})(pc);
    return pc.localDescription.toJSON();
  })()`);
  const answer = await to.evaluate<RTCSessionDescriptionInit>(`(async () => {
    const pc = new RTCPeerConnection();
    const received = new Promise((r) => pc.addEventListener('track', (e) => r(e.streams[0] || new MediaStream([e.track]))));
    window.__pair = pc;
    await pc.setRemoteDescription(${JSON.stringify(offer)});
    await pc.setLocalDescription(await pc.createAnswer());
    await (${gathered})(pc);
    window.__pairReceived = received;
    return pc.localDescription.toJSON();
  })()`);
  await from.evaluate(`window.__pair.setRemoteDescription(${JSON.stringify(answer)})`);
  await to.evaluate(`(async () => { window.__pairStream = await window.__pairReceived; })()`);
  await to.evaluate(EAR('window.__pairStream', 'pair'));
}

/**
 * (c) The receiving side's jitter buffer on a peer connection (an expression): its mean delay per
 * emitted sample (ms), its current target (ms, where Chrome reports it) and the codec received.
 */
const JITTER_BUFFER = (pc: string) => `(async () => {
  const pc = ${pc};
  const stats = await pc.getStats();
  let inbound = null;
  const codecs = new Map();
  stats.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'audio') inbound = r;
    if (r.type === 'codec') codecs.set(r.id, r.mimeType);
  });
  if (!inbound || !inbound.jitterBufferEmittedCount) return null;
  return {
    delayMs: (1000 * inbound.jitterBufferDelay) / inbound.jitterBufferEmittedCount,
    targetMs: inbound.jitterBufferTargetDelay !== undefined
      ? (1000 * inbound.jitterBufferTargetDelay) / inbound.jitterBufferEmittedCount
      : null,
    jitterMs: 1000 * (inbound.jitter ?? 0),
    codec: codecs.get(inbound.codecId) ?? '?',
  };
})()`;

interface JitterBuffer {
  delayMs: number;
  targetMs: number | null;
  jitterMs: number;
  codec: string;
}

const describeBuffer = (b: JitterBuffer | null): string =>
  b === null
    ? 'not reported'
    : `${fmt(b.delayMs)} ms held on average${b.targetMs === null ? '' : ` (target ${fmt(b.targetMs)} ms)`}, jitter ${fmt(b.jitterMs)} ms, ${b.codec}`;

/** (c) Two RTCPeerConnections in one page: the tone goes from a to b directly. */
async function directPath(page: Page): Promise<void> {
  await page.evaluate(TONE_SOURCE);
  await page.evaluate(`(async () => {
    ${CONNECT_DIRECT}
    const a = new RTCPeerConnection();
    const b = new RTCPeerConnection();
    const received = new Promise((r) => b.addEventListener('track', (e) => r(e.streams[0] || new MediaStream([e.track]))));
    const tone = window.__tone.stream();
    tone.getTracks().forEach((t) => a.addTrack(t, tone));
    await connectDirect(a, b);
    window.__direct = { a, b, stream: await received };
  })()`);
  await page.evaluate(EAR('window.__direct.stream'));
}

interface LegStats {
  received: number;
  expected: number;
  jitterMs: number;
  /** Each packet's |D| in ms (RFC 3550 §6.4.1, unsmoothed). */
  deviations: number[];
}

/** What the Voice SDK's per-second samples said of one call: its codec and MOS estimates. */
interface MosReading {
  codec: string;
  min: number;
  avg: number;
  samples: number;
}

/**
 * (d) A clean loopback call from `caller` to `callee` through the server, with the caller's Device
 * offering only `codecs`: the SDK's `sample` events (one a second, MOS estimated from round trip,
 * jitter and loss) for MOS_SECONDS on each side.
 */
async function mosOf(caller: Phone, callee: Phone, codecs: string[]): Promise<MosReading[]> {
  await caller.page.evaluate(
    `window.__phone.device.updateOptions({ codecPreferences: ${JSON.stringify(codecs)} })`,
  );
  try {
    await callee.page.evaluate(`window.__phone.device.once('incoming', (call) => {
      window.__mos = [];
      call.on('sample', (s) => window.__mos.push(s));
      call.accept();
    })`);
    await caller.page.evaluate(`(async () => {
      const phone = window.__phone;
      const call = await phone.device.connect({ params: { To: ${JSON.stringify(callee.name)} } });
      phone.watchCall(call, 'outgoing');
      window.__mos = [];
      call.on('sample', (s) => window.__mos.push(s));
      await new Promise((r) => call.on('accept', r));
    })()`);
    await new Promise((r) => setTimeout(r, MOS_SECONDS * 1000));
    const read = (page: Page) =>
      page.evaluate<MosReading>(`(() => {
        const mos = window.__mos.map((s) => s.mos).filter((m) => typeof m === 'number');
        const codec = window.__mos.map((s) => s.codecName).filter(Boolean).pop() || '?';
        return { codec, min: Math.min(...mos), avg: mos.reduce((a, b) => a + b, 0) / mos.length, samples: mos.length };
      })()`);
    const readings = [await read(caller.page), await read(callee.page)];
    await caller.page.evaluate(HANG_UP_LAST);
    return readings;
  } finally {
    // The Device options the server gives (its codecs, as SWITCHBOARD_VOICE_CODECS says), again.
    await caller.page.evaluate(`(async () => {
      const { device } = await (await fetch('/api/voice/token')).json();
      window.__phone.device.updateOptions({ codecPreferences: device.codecPreferences });
    })()`);
  }
}

function message<T>(child: ChildProcess, type: string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolveMessage, reject) => {
    const timer = setTimeout(() => reject(new Error(`voice-load: no ${type}`)), timeoutMs);
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolveMessage(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`voice-load exited (${code}) before ${type}`)));
  });
}

interface LoadStep {
  calls: number;
  lossPct: number;
  jitterP95: number;
  jitterMax: number;
  serverCpu: number;
  loadCpu: number;
  silent: number;
  /** p95 of every packet's |D| (ms) through the server, and on the generator's direct pairs. */
  arrivalP95: { through: number; direct: number };
}

/** (b) `calls` simultaneous bridged calls from lightweight clients (voice-load.ts), measured for LOAD_SECONDS. */
async function loadStep(url: string, pid: number, calls: number): Promise<LoadStep> {
  const per = Math.ceil(calls / LOAD_PROCS);
  const children = Array.from({ length: LOAD_PROCS }, (_, k) =>
    fork(
      resolve(import.meta.dirname, 'voice-load.ts'),
      [url, String(Math.min(per, calls - k * per)), `s${calls}p${k}`],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    ),
  );
  try {
    const up = await Promise.all(children.map((c) => message<{ silent: number }>(c, 'up')));
    await new Promise((r) => setTimeout(r, 2000));
    for (const c of children) c.send({ type: 'measure' });
    const serverBefore = cpuSeconds(pid);
    const loadBefore = children.map((c) => cpuSeconds(c.pid!));
    await new Promise((r) => setTimeout(r, LOAD_SECONDS * 1000));
    const serverCpu = (cpuSeconds(pid) - serverBefore) / LOAD_SECONDS;
    const loadCpu =
      children.reduce((sum, c, k) => sum + cpuSeconds(c.pid!) - loadBefore[k]!, 0) / LOAD_SECONDS;
    const reports = await Promise.all(
      children.map((c) => {
        const r = message<{ legs: LegStats[]; direct: LegStats[] }>(c, 'report');
        c.send({ type: 'report' });
        return r;
      }),
    );
    const legs = reports.flatMap((r) => r.legs);
    const received = legs.reduce((n, l) => n + l.received, 0);
    const expected = legs.reduce((n, l) => n + l.expected, 0);
    const jitters = legs.map((l) => l.jitterMs);
    const pooled = (of: LegStats[]) => of.flatMap((l) => l.deviations);
    return {
      calls,
      lossPct: expected === 0 ? 100 : Math.max(0, (1 - received / expected) * 100),
      jitterP95: percentile(jitters, 95),
      jitterMax: Math.max(...jitters),
      serverCpu,
      loadCpu,
      silent: up.reduce((n, u) => n + u.silent, 0),
      arrivalP95: {
        through: percentile(pooled(legs), 95),
        direct: percentile(pooled(reports.flatMap((r) => r.direct)), 95),
      },
    };
  } finally {
    for (const c of children) if (c.connected) c.send({ type: 'stop' });
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
  }
}

const withinLimits = (s: LoadStep) => s.lossPct < 1 && s.jitterP95 < 20 && s.silent === 0;

export async function benchVoice(): Promise<string> {
  const server = await startServer({
    env: {
      SWITCHBOARD_VOICE_RING_SECONDS: '30',
      SWITCHBOARD_TEST_WEBHOOK_TIMES: '1',
      // BENCH_VOICE_CPU_PROF=<dir> writes the server's CPU profile of (b)'s measured window of
      // bridged calls there (cpu-profile.ts).
      ...(PROFILE
        ? {
            NODE_OPTIONS: `--import tsx --import ${resolve(import.meta.dirname, 'cpu-profile.ts')}`,
            SWITCHBOARD_CPU_PROF_DIR: PROFILE,
            SWITCHBOARD_CPU_PROF_WINDOW: '1',
          }
        : {}),
    },
  });
  const browser: Browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  try {
    const ann = await openPhone(browser, server.url, 'Ann');
    const bob = await openPhone(browser, server.url, 'Bob');
    const cat = await openPhone(browser, server.url, 'Cat');
    for (const p of [ann, bob, cat]) await p.waitForEvent('device:registered');
    const bare = await browser.newContext({ permissions: ['microphone'] });
    const barePage = await bare.newPage();
    await barePage.goto(`${server.url}/login`);

    // (a) interleaved, after one warm-up of each.
    await serverCallSetup(ann, bob, 'Bob');
    await directSetup(barePage);
    await pickUpLatency(ann, bob, cat);
    const viaServer: number[] = [];
    const direct: number[] = [];
    const pickUps: number[] = [];
    const outputMark = server.output().length;
    for (let i = 0; i < RUNS; i++) {
      viaServer.push(await serverCallSetup(ann, bob, 'Bob'));
      direct.push(await directSetup(barePage));
      pickUps.push(await pickUpLatency(ann, bob, cat));
    }
    // The voice URL's answer time in those calls (the twin's TIMING lines): the webhook path's share.
    const webhookMs = [
      ...server
        .output()
        .slice(outputMark)
        .matchAll(/TIMING webhook \/api\/twilio\/voice ([0-9.]+) ms/g),
    ].map((m) => Number(m[1]));

    // (c) one call through the server carrying a tone from Ann to Bob, and the same tone between two
    // bare peer connections; bursts interleaved.
    await ann.page.evaluate(TONE_SOURCE);
    await bob.page.evaluate(`window.__phone.device.once('incoming', (call) => call.accept())`);
    await ann.page.evaluate(`(async () => {
      const phone = window.__phone;
      const call = await phone.device.connect({ params: { To: 'Bob' } });
      phone.watchCall(call, 'outgoing');
      await new Promise((r) => call.on('accept', r));
    })()`);
    await bob.page.waitForFunction(
      `(() => { const c = window.__phone.calls; const call = c[c.length - 1]; return call && call.status() === 'open' && call.getRemoteStream(); })()`,
    );
    await bob.page.evaluate(
      EAR(
        '(() => { const c = window.__phone.calls; return c[c.length - 1].getRemoteStream(); })()',
      ),
    );
    await pagePair(ann.page, bob.page);
    const directPage = await bare.newPage();
    await directPage.goto(`${server.url}/login`);
    await directPath(directPage);
    const throughServer: number[] = [];
    const betweenPages: number[] = [];
    const directly: number[] = [];
    let lost = 0;
    for (let i = 0; i < BURSTS + 2; i++) {
      const [s, p] = await burst(ann.page, bob.page, ['ear', 'pair']);
      const [d] = await burst(directPage, directPage);
      if (i < 2) continue; // warm-up
      if (s == null || p == null || d == null) lost += 1;
      else {
        throughServer.push(s);
        betweenPages.push(p);
        directly.push(d);
      }
    }
    // What the receiving jitter buffers held on each path, and the codec each path used.
    const buffers = {
      server: await bob.page.evaluate(
        JITTER_BUFFER(
          '(() => { const c = window.__phone.calls; return c[c.length - 1]._mediaHandler.version.pc; })()',
        ),
      ),
      pair: await bob.page.evaluate(JITTER_BUFFER('window.__pair')),
      direct: await directPage.evaluate(JITTER_BUFFER('window.__direct.b')),
    };
    await ann.page.evaluate('window.__pair.close()');
    await bob.page.evaluate('window.__pair.close()');
    await ann.page.evaluate(HANG_UP_LAST);
    await directPage.close();

    // (d) the SDK's MOS on a clean call, Opus and then PCMU offered by the caller.
    await bob.page.waitForFunction(
      `(() => { const c = window.__phone.calls; return c.every((call) => call.status() === 'closed'); })()`,
    );
    const mos = { opus: await mosOf(ann, bob, ['opus']), pcmu: await mosOf(ann, bob, ['pcmu']) };

    // (b) server CPU with CALLS bridged calls up, minus the same time with everyone registered and
    // idle: every page of the calls open and registered first (until stop 45 the idle time was
    // measured before the other calls' pages were opened, so their pages' own upkeep, signalling
    // and presence, counted as the calls' media).
    const pid = server.process.pid!;
    const pairs: [Phone, Phone][] = [[ann, bob]];
    for (let i = 1; i < CALLS; i++) {
      const a = await openPhone(browser, server.url, `Caller${i}`);
      const b = await openPhone(browser, server.url, `Callee${i}`);
      await a.waitForEvent('device:registered');
      await b.waitForEvent('device:registered');
      pairs.push([a, b]);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await cpuOver(pid, CPU_SECONDS);
    for (const [a, b] of pairs) {
      await b.page.evaluate(`window.__phone.device.once('incoming', (call) => call.accept())`);
      await a.page.evaluate(`(async () => {
        const phone = window.__phone;
        const call = await phone.device.connect({ params: { To: ${JSON.stringify(b.name)} } });
        phone.watchCall(call, 'outgoing');
        await new Promise((r) => call.on('accept', r));
      })()`);
      await inboundPackets(a.page);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const pages = pairs.flat().map((p) => p.page);
    const sentBefore = await Promise.all(pages.map(sentSoFar));
    if (PROFILE) process.kill(pid, 'SIGUSR2');
    const busy = await cpuOver(pid, CPU_SECONDS);
    if (PROFILE) process.kill(pid, 'SIGUSR2');
    const sentAfter = await Promise.all(pages.map(sentSoFar));
    const perCall = Math.max(0, busy - idle) / CALLS / CPU_SECONDS;
    // What the server relayed in that time: every packet the pages sent it, sent on to the other leg.
    const relayed = sentAfter.reduce(
      (sum, after, k) => ({
        packets: sum.packets + after.packets - sentBefore[k]!.packets,
        bytes: sum.bytes + after.bytes - sentBefore[k]!.bytes,
      }),
      { packets: 0, bytes: 0 },
    );
    /** Packets per second per call, and bytes per packet with SRTP's 16-byte tag (AES-GCM). */
    const relayRate = relayed.packets / CPU_SECONDS / CALLS;
    const relayBytes = Math.round(relayed.bytes / Math.max(relayed.packets, 1)) + 16;
    // The same calls parked: each keeps one leg, playing hold music to its caller.
    for (const [, b] of pairs) await park(b);
    await new Promise((r) => setTimeout(r, 1000));
    const parkedBusy = await cpuOver(pid, CPU_SECONDS);
    const perParked = Math.max(0, parkedBusy - idle) / CALLS / CPU_SECONDS;
    for (const [a] of pairs) await a.page.evaluate(HANG_UP_LAST);
    // The forwarder copies the packets the server relayed, at their rate and size: each bridged
    // call's two browsers send 50 packets/s each (20 ms frames), so about 100 in and 100 out per call.
    // (Until stop 45 it was fed 200 packets/s per call, twice what the server relays, and so
    // halved the ratio; until stop 46 in one burst per 20 ms: forwarderCpu.)
    const fwd =
      (await forwarderCpu(relayRate * CALLS, relayBytes, CPU_SECONDS)) / CALLS / CPU_SECONDS;
    // The floor as it was fed until stop 46, printed beside it.
    const fwdBursts =
      (await forwarderCpu(relayRate * CALLS, relayBytes, CPU_SECONDS, 'bursts')) /
      CALLS /
      CPU_SECONDS;

    // The Opus encoding the server does for a sound it has not kept yet: the hold music, all of it.
    const music = new EncodedSound(holdMusic());
    const encodeStart = performance.now();
    music.frame(music.frames - 1);
    const encodeMs = performance.now() - encodeStart;
    const perFrameMs = encodeMs / music.frames;

    // (b) capacity: step up the number of simultaneous calls from lightweight clients.
    const steps: LoadStep[] = [];
    let failures = 0;
    /** Why the load could not be measured, when a step could not even set its calls up. */
    let loadError: string | null = null;
    for (const calls of STEPS) {
      try {
        const step = await loadStep(server.url, pid, calls);
        steps.push(step);
        if (!withinLimits(step) && ++failures >= 2) break;
      } catch (err) {
        loadError = `${calls} calls could not be set up: ${err instanceof Error ? err.message : String(err)}`;
        break;
      }
    }
    const carried = steps.filter(withinLimits).reduce((n, s) => Math.max(n, s.calls), 0);
    /**
     * The relay's added arrival variation is judged at the lightest step (a steady path; the
     * capacity target carries its own jitter limit under load), and printed at 50 calls too.
     */
    const judged = steps[0] ?? null;
    const atFifty = steps.find((st) => st.calls === 50) ?? null;
    const relayAdds = (st: LoadStep) => st.arrivalP95.through - st.arrivalP95.direct;

    const p50 = median(pickUps);
    const p95 = percentile(pickUps, 95);
    const a50 = median(viaServer);
    const a95 = percentile(viaServer, 95);
    const d50 = median(direct);
    const d95 = percentile(direct, 95);
    const c50 = throughServer.length ? median(throughServer) : NaN;
    const c95 = throughServer.length ? percentile(throughServer, 95) : NaN;
    const e50 = directly.length ? median(directly) : NaN;
    const e95 = directly.length ? percentile(directly, 95) : NaN;
    const f50 = betweenPages.length ? median(betweenPages) : NaN;
    const f95 = betweenPages.length ? percentile(betweenPages, 95) : NaN;
    // What the server adds, burst by burst: the same tone heard through the call and directly.
    const addedEach = throughServer.map((t, i) => t - betweenPages[i]!);
    const added = addedEach.length ? median(addedEach) : NaN;
    const added95 = addedEach.length ? percentile(addedEach, 95) : NaN;
    const md = [
      '## Voice: call setup, media cost and latency',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} with Debian Chromium (headless, fake microphone) against the real server, ${RUNS} setups of each kind interleaved.`,
      '',
      '(a) Call setup: from `device.connect()` to both sides `open` with inbound audio packets (the callee answers at once), against two bare `RTCPeerConnection`s in one page connected directly (offer and answer with complete candidates, until both receive audio).',
      '',
      '| | through the server | direct (floor) | ratio |',
      '| --- | --- | --- | --- |',
      `| p50 (ms) | ${fmt(a50)} | ${fmt(d50)} | ${fmt(a50 / d50, 2)}× |`,
      `| p95 (ms) | ${fmt(a95)} | ${fmt(d95)} | ${fmt(a95 / d95, 2)}× |`,
      '',
      `- Target ≤ 1.3× at p50: ${a50 / d50 <= 1.3 ? 'met' : 'NOT met'}; at p95: ${a95 / d95 <= 1.3 ? 'met' : 'NOT met'}`,
      `- The webhook path (the voice URL asked by the voice twin and answered with TwiML by the app, ${webhookMs.length} requests in these setups and pick-ups): p50 ${fmt(median(webhookMs), 2)} ms, p95 ${fmt(percentile(webhookMs, 95), 2)} ms: ${fmt((median(webhookMs) / a50) * 100, 1)}% of the call setup's p50.`,
      '',
      "Pick-up from /hold: Ann calls Bob, Bob parks the call through the API, then from the picker dialling `park:<id>` (what Pick up does) to the picker's call `open` with inbound audio; interleaved with the setups above, against their call setup.",
      '',
      '| | pick-up | call setup (same run) | ratio |',
      '| --- | --- | --- | --- |',
      `| p50 (ms) | ${fmt(p50)} | ${fmt(a50)} | ${fmt(p50 / a50, 2)}× |`,
      `| p95 (ms) | ${fmt(p95)} | ${fmt(a95)} | ${fmt(p95 / a95, 2)}× |`,
      '',
      `- Target ≤ 1.5× at p50: ${p50 / a50 <= 1.5 ? 'met' : 'NOT met'}; at p95: ${p95 / a95 <= 1.5 ? 'met' : 'NOT met'}`,
      '',
      `(b) Media cost: server CPU per bridged call (${CALLS} calls up for ${CPU_SECONDS} s, minus the same time idle), against a plain Node UDP forwarder copying the same packets: the rate the pages sent the server in that time (${fmt(relayRate)} packets/s in and as many out per call, from their getStats) at their size with SRTP's tag (${relayBytes} bytes), in streams of 50 packets/s each on its own phase, as the browsers send them.`,
      '',
      '| | server (werift B2BUA) | UDP forwarder (floor) | ratio |',
      '| --- | --- | --- | --- |',
      `| CPU per call (% of one core) | ${fmt(perCall * 100, 2)} | ${fmt(fwd * 100, 2)} | ${fmt(perCall / Math.max(fwd, 1e-6), 1)}× |`,
      '',
      `- Target ≤ 2.5×: ${perCall / Math.max(fwd, 1e-6) <= 2.5 ? 'met' : 'NOT met'}. The forwarder fed all streams' packets in one burst per 20 ms instead (this bench's floor until stop 46; it wakes once per tick, not once per packet as the server does): ${fmt(fwdBursts * 100, 2)}% per call, ${fmt(perCall / Math.max(fwdBursts, 1e-6), 1)}×.`,
      `- Calls two cores could carry at this CPU cost alone: about ${Math.floor(2 / Math.max(perCall, 1e-6))}.`,
      '',
      `Parked calls: the same ${CALLS} calls parked (one leg each, the server playing hold music into it and receiving the caller's audio), measured the same way.`,
      '',
      '| | parked with music | bridged | ratio |',
      '| --- | --- | --- | --- |',
      `| CPU per call (% of one core) | ${fmt(perParked * 100, 2)} | ${fmt(perCall * 100, 2)} | ${fmt(perParked / Math.max(perCall, 1e-6), 2)}× |`,
      '',
      `Opus encoding of what the server plays (libopus in WebAssembly, \`opusscript\`): the built-in hold music (${music.frames} frames of 20 ms) took ${fmt(encodeMs)} ms to encode here, ${fmt(perFrameMs, 3)} ms a frame: ${fmt((perFrameMs / 20) * 100, 2)}% of one core for a leg playing a sound not yet kept; kept sounds (the music after its first play) cost nothing to encode again. Legs: ${process.env.SWITCHBOARD_VOICE_CODECS ?? 'opus,pcmu'}.`,
      '',
      `Capacity: simultaneous calls between lightweight clients (tests/bench/voice-load.ts in ${LOAD_PROCS} processes: raw signalling sockets and werift peer connections, each side sending a tone at 50 packets/s in the codec its leg negotiated, Opus unless the server runs with SWITCHBOARD_VOICE_CODECS=pcmu), ${LOAD_SECONDS} s measured per step after 2 s settling. Loss from RTP sequence gaps and jitter as RFC 3550 at every receiving leg. The generator runs on the same two cores as the server, so its CPU is listed: each step's figure is a floor of what the server alone could carry.`,
      '',
      '| calls | loss | jitter p95 / max (ms) | arrival variation p95, through / direct (ms) | server CPU (cores) | generator CPU (cores) | within limits |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...steps.map(
        (st) =>
          `| ${st.calls} | ${fmt(st.lossPct, 2)}% | ${fmt(st.jitterP95, 1)} / ${fmt(st.jitterMax, 1)} | ${fmt(st.arrivalP95.through, 1)} / ${fmt(st.arrivalP95.direct, 1)} | ${fmt(st.serverCpu, 2)} | ${fmt(st.loadCpu, 2)} | ${withinLimits(st) ? 'yes' : st.silent ? `no (${st.silent} legs silent)` : 'no'} |`,
      ),
      '',
      `- Target: at least 50 simultaneous calls with under 1% loss and jitter p95 under 20 ms: ${carried >= 50 ? 'met' : 'NOT met'} (largest step within the limits: ${carried || 'none'}).${loadError ? ` NOT MEASURED: ${loadError}` : ''}`,
      `- Arrival variation: every packet's |D| (RFC 3550 §6.4.1: its transit time less the previous packet's, unsmoothed), pooled over the step's receiving legs, through the server and on ${2 * LOAD_PROCS} pairs of the generator's own legs connected directly beside the calls (same processes, clock and load). ${
        judged
          ? `Target: the relay adds at most 2 ms at p95, judged at the lightest step (${judged.calls} calls): ${fmt(relayAdds(judged), 1)} ms, ${relayAdds(judged) <= 2 ? 'met' : 'NOT met'}${atFifty ? `; at 50 calls it adds ${fmt(relayAdds(atFifty), 1)} ms` : ''}.`
          : 'NOT MEASURED: no step was set up.'
      }`,
      '',
      `(c) Audio latency: a 1 kHz tone switched on in the sending page (WebAudio in place of the microphone) until the receiving page's analyser hears it (level > 0.1, polled every millisecond), ${throughServer.length} bursts${lost ? ` (${lost} lost)` : ''}. Ann's page sends each burst at once through her call to Bob, bridged by the server, and through a bare \`RTCPeerConnection\` connected directly to one in Bob's page; Bob's page hears both. What the server adds is each burst's difference between the two, on the same pages and processes. Both paths include the browser's jitter buffer and the detector. For reference, the same bursts between two bare \`RTCPeerConnection\`s in one page (interleaved; the baseline of this section before 2026-11-28).`,
      '',
      '| | through the server | direct, the same two pages | added by the server (each burst) | direct, one page |',
      '| --- | --- | --- | --- | --- |',
      `| p50 (ms) | ${fmt(c50)} | ${fmt(f50)} | ${fmt(added)} | ${fmt(e50)} |`,
      `| p95 (ms) | ${fmt(c95)} | ${fmt(f95)} | ${fmt(added95)} | ${fmt(e95)} |`,
      '',
      `- Target: the server adds at most 10 ms (p50): ${Number.isFinite(added) && added <= 10 ? 'met' : 'NOT met'} (against one page: ${fmt(c50 - e50)} ms at p50)`,
      `- The receiving jitter buffer (getStats after the bursts): through the server ${describeBuffer(buffers.server as JitterBuffer | null)}; direct between the pages ${describeBuffer(buffers.pair as JitterBuffer | null)}; in one page ${describeBuffer(buffers.direct as JitterBuffer | null)}.`,
      '',
      `(d) Call quality as the Voice SDK estimates it: a clean call from Ann to Bob through the server, ${MOS_SECONDS} s of the SDK's \`sample\` events (one a second; MOS from round trip, jitter and loss) on each side, the caller's Device offering one codec (Bob's leg is offered both, so on the PCMU call the server transcodes). The SDK's estimate does not weigh the codec (its \`rtc/mos\` module: an E-model of round trip, jitter and loss), so on a clean path both read alike.`,
      '',
      '| caller offers | leg | codec (SDK) | MOS min | MOS average | samples |',
      '| --- | --- | --- | --- | --- | --- |',
      ...(['opus', 'pcmu'] as const).flatMap((codec) =>
        mos[codec].map(
          (r, i) =>
            `| ${codec === 'opus' ? 'Opus' : 'PCMU'} | ${i === 0 ? "Ann's (caller)" : "Bob's (callee)"} | ${r.codec} | ${fmt(r.min, 2)} | ${fmt(r.avg, 2)} | ${r.samples} |`,
        ),
      ),
      '',
      `- Target: MOS ≥ 4.3 on the Opus call: ${mos.opus.every((r) => r.samples > 0 && r.min >= 4.3) ? 'met' : 'NOT met'} (both legs' lowest sample).`,
    ].join('\n');
    writeSection('voice', md);
    return md;
  } finally {
    await browser.close();
    await server.stop();
    server.cleanup();
  }
}
