import { assign, fromPromise, setup } from 'xstate';

/** What a person chooses in the top bar. "On a call" comes from the softphone, "Offline" from the ttl. */
export type PresenceStatus = 'available' | 'away';

/**
 * What this browser says of its person: their status. The server writes it into their `presence`
 * item, with "on a call" (which it keeps from the calls it carries) and the ttl.
 */
export interface PresenceItem {
  status: PresenceStatus;
}

export interface PresenceInput {
  identity: string;
  /** Lifetime of the item without a refresh, in seconds. */
  ttlSeconds: number;
  /** Time between refreshes, in milliseconds; shorter than the ttl. */
  heartbeatMs: number;
  /** Wait after a failed write before trying again, in milliseconds. */
  retryMs?: number;
  status?: PresenceStatus;
}

export interface PresenceContext {
  identity: string;
  ttlSeconds: number;
  heartbeatMs: number;
  retryMs: number;
  status: PresenceStatus;
  /** Consecutive failed writes; 0 once a write lands. */
  failures: number;
  lastError: string | null;
}

export type PresenceEvent =
  { type: 'presence.setStatus'; status: PresenceStatus } | { type: 'presence.withdraw' };

/** What the `publish` actor writes: the item, under the identity's key, with the ttl. */
export interface PublishInput {
  identity: string;
  item: PresenceItem;
  ttlSeconds: number;
}

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * One browser's presence heartbeat. It writes the person's status (the server keeps it in their
 * `presence` item with a ttl), and rewrites it at once when the status changes. Every `heartbeat` it only
 * extends the item's ttl (`refresh`), which changes no data and so sends colleagues no event, and
 * lets two tabs of one person keep the status last chosen in either. If the refresh fails (the item
 * lapsed while the computer slept, say) the item is written again in full. When the browser closes, the writes stop and the item expires: everyone else sees
 * Offline. A failed write is retried after `retry`; the item may lapse meanwhile, which is the
 * truth (nobody can reach this browser). `presence.withdraw` (signing out) removes the item so the
 * person shows Offline at once, then stops.
 *
 * The writes and the removal are the provided `publish` and `withdraw` actors; the timers are the
 * named delays, so tests drive it with a SimulatedClock.
 */
export const presenceMachine = setup({
  types: {
    input: {} as PresenceInput,
    context: {} as PresenceContext,
    events: {} as PresenceEvent,
  },
  actors: {
    publish: fromPromise<void, PublishInput>(() =>
      Promise.reject(new Error('presence: no publish actor provided')),
    ),
    refresh: fromPromise<void, { identity: string; ttlSeconds: number }>(() =>
      Promise.reject(new Error('presence: no refresh actor provided')),
    ),
    withdraw: fromPromise<void, { identity: string }>(() =>
      Promise.reject(new Error('presence: no withdraw actor provided')),
    ),
  },
  delays: {
    heartbeat: ({ context }) => context.heartbeatMs,
    retry: ({ context }) => context.retryMs,
  },
  actions: {
    storeStatus: assign(({ event }) =>
      event.type === 'presence.setStatus' ? { status: event.status } : {},
    ),
    markLanded: assign({ failures: 0, lastError: null }),
    markFailed: assign(({ context, event }) => ({
      failures: context.failures + 1,
      lastError: errorText((event as { error?: unknown }).error),
    })),
  },
}).createMachine({
  id: 'presence',
  context: ({ input }) => ({
    identity: input.identity,
    ttlSeconds: input.ttlSeconds,
    heartbeatMs: input.heartbeatMs,
    retryMs: input.retryMs ?? Math.min(5000, input.heartbeatMs),
    status: input.status ?? 'available',
    failures: 0,
    lastError: null,
  }),
  initial: 'publishing',
  on: {
    // Re-entering `publishing` cancels a write in flight; the newest item is the one that counts.
    'presence.setStatus': { target: '.publishing', reenter: true, actions: 'storeStatus' },
    'presence.withdraw': { target: '.withdrawing' },
  },
  states: {
    publishing: {
      description: 'Writing the presence item with its ttl.',
      tags: ['busy'],
      invoke: {
        src: 'publish',
        input: ({ context }) => ({
          identity: context.identity,
          item: { status: context.status },
          ttlSeconds: context.ttlSeconds,
        }),
        onDone: { target: 'live', actions: 'markLanded' },
        onError: { target: 'retrying', actions: 'markFailed' },
      },
    },
    live: {
      description:
        'The item is written; its ttl is extended after `heartbeat`, well before it lapses.',
      after: { heartbeat: { target: 'refreshing' } },
    },
    refreshing: {
      description:
        'Extending the ttl of the item as it stands; a failure means it must be written again.',
      tags: ['busy'],
      invoke: {
        src: 'refresh',
        input: ({ context }) => ({ identity: context.identity, ttlSeconds: context.ttlSeconds }),
        onDone: { target: 'live', actions: 'markLanded' },
        onError: { target: 'publishing' },
      },
    },
    retrying: {
      description:
        'The last write failed (offline, token renewal…); the next try comes after `retry`.',
      tags: ['failing'],
      after: { retry: { target: 'publishing' } },
    },
    withdrawing: {
      description: 'Signing out: removing the item so the person shows Offline at once.',
      on: { 'presence.setStatus': {}, 'presence.setOnCall': {}, 'presence.withdraw': {} },
      invoke: {
        src: 'withdraw',
        input: ({ context }) => ({ identity: context.identity }),
        // If the removal fails the item still lapses with its ttl: nothing else to do.
        onDone: { target: 'withdrawn' },
        onError: { target: 'withdrawn' },
      },
    },
    withdrawn: { type: 'final' },
  },
});
