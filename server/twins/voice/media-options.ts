/**
 * What a media leg is made with (MediaOptions), and the settings and test hooks the server reads
 * for it from its environment.
 */
import type { Codec } from './codec';

export interface MediaOptions {
  /** UDP ports for ICE (VOICE_RTP_PORTS), inclusive; werift picks any free port when absent. */
  portRange?: [number, number];
  /** Addresses to offer besides the machine's interfaces (loopback is always offered, last: loopbackLast in peer.ts). */
  hostAddresses?: readonly string[];
  /** How long to wait for candidate gathering before giving up on a leg. */
  gatherTimeoutMs?: number;
  /** Tests only: drops this share of the bridged packets sent to one kind of leg ({@link testDropFromEnv}). */
  testDrop?: TestDrop;
  /** The codecs a leg offers or accepts, most wanted first (SWITCHBOARD_VOICE_CODECS); Opus, then PCMU. */
  codecs?: readonly Codec[];
  /** False: bridged packets always take werift's path, not the fast path (SWITCHBOARD_VOICE_FAST_PATH=0). */
  fastPath?: boolean;
}

/** SWITCHBOARD_VOICE_FAST_PATH: `0` turns the bridge's fast path off (fast-path.ts); on otherwise. */
export function fastPathFromEnv(env: NodeJS.ProcessEnv): boolean {
  return env.SWITCHBOARD_VOICE_FAST_PATH !== '0';
}

/**
 * The codecs from SWITCHBOARD_VOICE_CODECS (`opus,pcmu`, the default, or `pcmu` to measure or
 * fall back to narrowband only); none when unset or naming nothing known.
 */
export function codecsFromEnv(env: NodeJS.ProcessEnv): Codec[] | undefined {
  const named = (env.SWITCHBOARD_VOICE_CODECS ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c): c is Codec => c === 'opus' || c === 'pcmu');
  return named.length > 0 ? [...new Set(named)] : undefined;
}

/**
 * A test hook: the relay drops `percent`% of the bridged packets it sends to every `leg` leg (the
 * caller's: the legs answering a browser's offer; the callee's: the legs offering to a browser),
 * evenly (every tenth at 10%), so a test can see what a lossy network does to a call.
 */
export interface TestDrop {
  percent: number;
  leg: 'caller' | 'callee';
}

/**
 * The test hook from SWITCHBOARD_TEST_DROP_PERCENT (1 to 100) and SWITCHBOARD_TEST_DROP_LEG
 * (`caller`, the default, or `callee`); none unless the percentage is set.
 */
export function testDropFromEnv(env: NodeJS.ProcessEnv): TestDrop | undefined {
  const percent = Number(env.SWITCHBOARD_TEST_DROP_PERCENT ?? '');
  if (!Number.isFinite(percent) || percent <= 0 || percent > 100) return undefined;
  return { percent, leg: env.SWITCHBOARD_TEST_DROP_LEG === 'callee' ? 'callee' : 'caller' };
}
