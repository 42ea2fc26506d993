/**
 * Twilio's timing as the app meets it over the internet, for the voice twin. Two modes:
 *
 * - `ideal` (the default): status callbacks go out one at a time, in the order their events
 *   happened, each as soon as the one before was answered; a REST redirect is applied on the next
 *   turn of the event loop, after the update's answer was written.
 * - `real` (`SWITCHBOARD_TWINS_NETWORK=real`, seeded by `SWITCHBOARD_TWINS_SEED`): what Twilio's
 *   documentation allows. A status callback may come late, twice, or before the one fired ahead of
 *   it: "Although events are fired in order, they are made as separate HTTP requests, and there is no
 *   guarantee they will arrive in the same order" (`SequenceNumber`,
 *   https://www.twilio.com/docs/voice/twiml/client#attributes-status-callback-event and
 *   https://www.twilio.com/docs/voice/api/call-resource#statuscallbackevent). A REST redirect
 *   (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource) is applied some
 *   tens to hundreds of milliseconds after the update answered: Twilio's call redirection is
 *   asynchronous (https://www.twilio.com/en-us/blog/call-queueing-putting-callers-on-hold-calll-redirect-new-url-new-feature-html:
 *   "asynchronous call redirection"), so the answer says nothing about where the call is.
 *
 * Every draw comes from one generator seeded with the seed, in the order the twin asks for them,
 * so a run with the same seed and the same events in the same order makes the same choices: the
 * seed is printed at start (server/twins/index.ts) for a failure to be replayed.
 */

export type NetworkMode = 'ideal' | 'real';

export interface NetworkOptions {
  mode: NetworkMode;
  /** A 32-bit unsigned seed (only `real` draws from it). */
  seed: number;
}

/** One status callback's deliveries: after how many ms each copy is sent (one, or two: twice). */
export interface CallbackPlan {
  /** In `ideal` mode the callback waits for the one before it; in `real` mode it does not. */
  ordered: boolean;
  delaysMs: number[];
}

export interface TwilioNetwork {
  readonly mode: NetworkMode;
  readonly seed: number;
  /** How the next status callback is delivered. */
  callback(): CallbackPlan;
  /** How long after a REST redirect's answer the call is moved. */
  redirectDelayMs(): number;
}

/** Shares of status callbacks that are late (1 to 3 s) and sent twice, in `real` mode. */
export const REAL_LATE_SHARE = 0.15;
export const REAL_TWICE_SHARE = 0.15;

/** mulberry32: a small, fast, well-mixed 32-bit generator; the same seed gives the same draws. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createNetwork(options: NetworkOptions): TwilioNetwork {
  const random = seededRandom(options.seed);
  const between = (lo: number, hi: number): number => Math.round(lo + random() * (hi - lo));
  if (options.mode === 'ideal')
    return {
      mode: 'ideal',
      seed: options.seed,
      callback: () => ({ ordered: true, delaysMs: [0] }),
      redirectDelayMs: () => 0,
    };
  return {
    mode: 'real',
    seed: options.seed,
    callback() {
      // Most arrive within a few hundred ms, some a second or more late; any may overtake another.
      const first = random() < REAL_LATE_SHARE ? between(1000, 3000) : between(0, 300);
      const delaysMs = [first];
      if (random() < REAL_TWICE_SHARE) delaysMs.push(first + between(50, 1500));
      return { ordered: false, delaysMs };
    },
    redirectDelayMs: () => between(20, 400),
  };
}

/**
 * The network the environment asks for: `SWITCHBOARD_TWINS_NETWORK` `real` (anything else, or
 * nothing, is `ideal`) with `SWITCHBOARD_TWINS_SEED` (a whole number; a fresh random one when none
 * is given). Refuses a seed that is not a whole number, rather than run another test than asked.
 */
export function networkFromEnv(env: Readonly<Record<string, string | undefined>>): NetworkOptions {
  const asked = (env.SWITCHBOARD_TWINS_NETWORK ?? '').trim();
  if (asked !== '' && asked !== 'real' && asked !== 'ideal')
    throw new Error(`SWITCHBOARD_TWINS_NETWORK must be real or ideal, not ${asked}`);
  const mode: NetworkMode = asked === 'real' ? 'real' : 'ideal';
  const given = (env.SWITCHBOARD_TWINS_SEED ?? '').trim();
  if (given !== '' && !/^\d{1,10}$/.test(given))
    throw new Error(`SWITCHBOARD_TWINS_SEED must be a whole number, not ${given}`);
  const seed = given === '' ? Math.floor(Math.random() * 2 ** 32) : Number(given) >>> 0;
  return { mode, seed };
}
