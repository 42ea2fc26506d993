/**
 * Malformed signalling for the fuzz test: random frames and sequences, from many sockets (each under
 * the rate limit, so the parser and the call logic are what is exercised, not only the limiter).
 */
import { listening, RawSignal } from '../../integration/voice/support';

const TYPES = [
  'listen',
  'register',
  'invite',
  'answer',
  'reject',
  'hangup',
  'reinvite',
  'dtmf',
  'message',
  'bogus',
  '',
];

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function junk(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 12);
  switch (pick) {
    case 0:
      return null;
    case 1:
      return Math.floor(r() * 1e6) - 5e5;
    case 2:
      return r() > 0.5;
    case 3:
      return 'x'.repeat(Math.floor(r() * 70_000));
    case 4:
      return 'v=0\r\n' + '\u0000\u00ff'.repeat(Math.floor(r() * 50));
    case 5:
      return `TJS${Math.floor(r() * 1e9)}`;
    case 6:
      return `CA${'0'.repeat(32)}`;
    case 7:
      return depth > 2
        ? {}
        : { media: junk(r, depth + 1), token: junk(r, depth + 1), params: junk(r, depth + 1) };
    case 8:
      return depth > 2 ? [] : [junk(r, depth + 1), junk(r, depth + 1)];
    case 9:
      return '🙂\u202e<script>';
    case 10:
      return 'To=' + encodeURIComponent(String(junk(r, depth + 1)).slice(0, 40));
    default:
      return undefined;
  }
}

function frame(r: () => number): string {
  const kind = r();
  if (kind < 0.1) return String(junk(r)).slice(0, 2000);
  if (kind < 0.15)
    return '{"type":"invite","payload":{"callsid":"TJS1","sdp":"v=0\\r\\nm=audio 9 UDP/TLS/RTP/SAVPF 0\\r\\n"}}';
  if (kind < 0.2) return '{' + '"a":{'.repeat(200);
  const type = TYPES[Math.floor(r() * TYPES.length)]!;
  const payload: Record<string, unknown> = {};
  for (const key of [
    'callsid',
    'sdp',
    'token',
    'media',
    'twilio',
    'dtmf',
    'reconnect',
    'voiceeventsid',
    'content',
  ]) {
    if (r() < 0.4) payload[key] = junk(r);
  }
  return JSON.stringify({ type, payload: r() < 0.1 ? junk(r) : payload, version: '1.6' });
}

/** Sends `total` malformed frames over fresh sockets (half signed in), 40 per socket. */
export async function fuzzSignalling(
  baseUrl: string,
  total: number,
  seed = 20261124,
): Promise<{ frames: number; sockets: RawSignal[] }> {
  const r = rng(seed);
  const sockets: RawSignal[] = [];
  let frames = 0;
  let n = 0;
  while (frames < total) {
    const s =
      n % 2 === 0
        ? await listening(baseUrl, `fuzz${n % 4}@example.com`, n % 4 === 0)
        : await RawSignal.open(baseUrl);
    n++;
    sockets.push(s);
    for (let i = 0; i < 40 && frames < total; i++, frames++) s.sendText(frame(r));
    // Let the server answer before the socket goes.
    await new Promise((resolve) => setTimeout(resolve, 30));
    s.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { frames, sockets };
}
