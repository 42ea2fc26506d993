import { assign, enqueueActions, fromPromise, setup, stopChild, type ActorRefFrom } from 'xstate';
import { callMachine, type CallAdapterEvent } from './call.machine';
import {
  AUTH_ERROR_CODES,
  CONNECTION_ERROR_CODES,
  describeDeviceError,
  remoteFromAddress,
  type Remote,
  type VoiceError,
} from './call.types';

export type CallActor = ActorRefFrom<typeof callMachine>;

export interface DeviceInput {
  /** Whether this tab holds the person's voice lock at start (the lock plumbing decides). */
  owner: boolean;
  /** The provided clock (ms), handed to each call. */
  now: () => number;
}

export interface DeviceContext {
  now: () => number;
  /** Why the Device cannot take calls (state `error`), or the last non-fatal Device error. */
  lastError: VoiceError | null;
  /** Set when the token could not be renewed before it expired. */
  tokenError: VoiceError | null;
  /** Failed renewals since the last `tokenWillExpire`; sets the backoff. */
  renewAttempts: number;
  /** Every call since sign-in that the UI has not dismissed, by call id (ended ones included). */
  calls: Record<string, CallActor>;
  /** Ids of calls in `calls` that have ended (each call's done event, in order). */
  ended: string[];
  /** Outgoing calls placed so far; names the next one (`out-<n>`). */
  dialled: number;
  /** `input.owner`, read once by the first state. */
  startsAsOwner: boolean;
}

/** What the adapter sends: one event per SDK Device event, plus each Call's events wrapped. */
export type DeviceAdapterEvent =
  | { type: 'device.registered' }
  | { type: 'device.unregistered' }
  | { type: 'device.error'; code: number; message: string }
  | { type: 'device.tokenWillExpire' }
  | {
      type: 'device.incoming';
      callId: string;
      from: string;
      to: string;
      params: Record<string, string>;
    }
  /** An SDK Call event for the call the adapter knows as `callId`. */
  | { type: 'device.call'; callId: string; event: CallAdapterEvent };

/** What the UI, the session and the tab-lock plumbing send. */
export type DeviceUserEvent =
  | { type: 'device.takeOver' }
  | { type: 'device.release' }
  | { type: 'device.signOut' }
  | { type: 'device.retry' }
  | { type: 'device.dial'; to: Remote; params: Record<string, string> }
  | { type: 'device.dismissCall'; callId: string }
  | { type: 'page.visible' };

export type DeviceEvent = DeviceAdapterEvent | DeviceUserEvent;

/** The SDK's default `tokenRefreshMs`: `tokenWillExpire` comes this long before expiry. */
export const TOKEN_EXPIRY_MS = 10_000;
/** How long the SDK may take to get the socket back before we show an error. */
export const RECONNECT_TIMEOUT_MS = 60_000;
/** How long sign-out or release waits for the service to confirm the unregister. */
export const UNREGISTER_TIMEOUT_MS = 5_000;

/** Wait before renewal attempt n+1 after n failures: 1 s, 2 s, 4 s, then every 4 s. */
export const renewBackoffMs = (failures: number): number =>
  1000 * 2 ** Math.min(Math.max(failures - 1, 0), 2);

const DONE_PREFIX = 'xstate.done.actor.';

const messageOf = (error: unknown): string =>
  error instanceof Error && error.message !== '' ? error.message : 'no answer';

const errorFrom = (event: DeviceEvent): VoiceError | null =>
  event.type === 'device.error'
    ? { code: event.code, message: describeDeviceError(event.code, event.message) }
    : null;

/**
 * The signed-in person's voice Device in this tab: who holds it, its registration, its token, and
 * the calls on it.
 *
 * Ownership: exactly one tab per person is `owner` (registers, takes calls); the others are
 * `follower`s and register nothing. `input.owner` says which at start; a follower becomes owner by
 * `device.takeOver` (through the provided `acquireLock`); the owner leaves by `device.release` or
 * `device.signOut`, unregistering first and then calling the provided `releaseLock`.
 *
 * Provided: actors `fetchVoiceToken` (resolves a token string), `checkRegistration` (resolves the
 * SDK's real `'registered' | 'unregistered'`), `acquireLock`, `call` (the call machine with its
 * actions); actions `register` ({ token }: set the token and `device.register()`), `updateToken`
 * ({ token }), `unregister`, `releaseLock`; delays `TOKEN_EXPIRY`, `RENEW_BACKOFF`,
 * `RECONNECT_TIMEOUT`, `UNREGISTER_TIMEOUT`.
 *
 * Calls are spawned call machines kept in `context.calls` by call id, ended ones included, until
 * the UI sends `device.dismissCall`; so the UI reads each call from its own actor, and a missed or
 * refused call stays visible. The adapter sends each SDK Call event as `device.call`, which is
 * forwarded to that call's actor; the UI sends `call.*` intents to the call actor itself.
 *
 * Tags: `ready` (registered: calls can be placed and received), `busy` (waiting on the service or
 * the lock). A registration silently lost in a background tab is found on `page.visible`.
 */
export const deviceMachine = setup({
  types: {
    context: {} as DeviceContext,
    events: {} as DeviceEvent,
    input: {} as DeviceInput,
  },
  actors: {
    fetchVoiceToken: fromPromise<string>(() => {
      throw new Error('fetchVoiceToken is provided by the composition root');
    }),
    checkRegistration: fromPromise<'registered' | 'unregistered'>(() => {
      throw new Error('checkRegistration is provided by the composition root');
    }),
    acquireLock: fromPromise<void>(() => {
      throw new Error('acquireLock is provided by the composition root');
    }),
    call: callMachine,
  },
  actions: {
    register: (_, _params: { token: string }) => {},
    updateToken: (_, _params: { token: string }) => {},
    unregister: () => {},
    releaseLock: () => {},
    markEnded: assign(({ context, event }) => ({
      ended: [...context.ended, event.type.slice(DONE_PREFIX.length)],
    })),
    recordError: assign(({ event }) => ({ lastError: errorFrom(event) })),
    receiveCall: assign(({ context, event, spawn }) => {
      if (event.type !== 'device.incoming') return {};
      const call = spawn('call', {
        id: event.callId,
        input: {
          direction: 'incoming',
          callId: event.callId,
          remote: remoteFromAddress(event.from, event.params.displayName ?? null),
          params: event.params,
          now: context.now,
        },
      });
      return { calls: { ...context.calls, [event.callId]: call } };
    }),
    placeCall: assign(({ context, event, spawn }) => {
      if (event.type !== 'device.dial') return {};
      const callId = `out-${context.dialled + 1}`;
      const call = spawn('call', {
        id: callId,
        input: {
          direction: 'outgoing',
          callId,
          remote: event.to,
          params: event.params,
          now: context.now,
        },
      });
      return { calls: { ...context.calls, [callId]: call }, dialled: context.dialled + 1 };
    }),
  },
  guards: {
    startsAsOwner: ({ context }) => context.startsAsOwner,
    authError: ({ event }) =>
      event.type === 'device.error' && AUTH_ERROR_CODES.includes(event.code),
    connectionError: ({ event }) =>
      event.type === 'device.error' && CONNECTION_ERROR_CODES.includes(event.code),
    stillRegistered: ({ event }) => (event as { output?: unknown }).output === 'registered',
    /** SDK events for a call that already ended (our hang-up, then the SDK's disconnect) are dropped. */
    liveCall: ({ context, event }) =>
      event.type === 'device.call' &&
      context.calls[event.callId] !== undefined &&
      !context.ended.includes(event.callId),
    /** A call's done event, unless the device already counted it ended (by hanging it up). */
    callJustEnded: ({ context, event }) => {
      const id = event.type.slice(DONE_PREFIX.length);
      return (
        event.type.startsWith(DONE_PREFIX) &&
        context.calls[id] !== undefined &&
        !context.ended.includes(id)
      );
    },
    endedCall: ({ context, event }) =>
      event.type === 'device.dismissCall' && context.ended.includes(event.callId),
  },
  delays: {
    TOKEN_EXPIRY: TOKEN_EXPIRY_MS,
    RENEW_BACKOFF: ({ context }) => renewBackoffMs(context.renewAttempts),
    RECONNECT_TIMEOUT: RECONNECT_TIMEOUT_MS,
    UNREGISTER_TIMEOUT: UNREGISTER_TIMEOUT_MS,
  },
}).createMachine({
  id: 'device',
  context: ({ input }) => ({
    now: input.now,
    lastError: null,
    tokenError: null,
    renewAttempts: 0,
    calls: {},
    ended: [],
    dialled: 0,
    startsAsOwner: input.owner,
  }),
  initial: 'choosing',
  on: {
    'device.call': {
      guard: 'liveCall',
      actions: enqueueActions(({ context, event, enqueue }) => {
        const ref = context.calls[event.callId];
        if (ref) enqueue.sendTo(ref, event.event);
      }),
    },
    /** A spawned call reached `ended` (XState tells the parent with the child's id). */
    'xstate.done.actor.*': {
      guard: 'callJustEnded',
      actions: 'markEnded',
    },
    'device.dismissCall': {
      guard: 'endedCall',
      actions: enqueueActions(({ context, event, enqueue }) => {
        const ref = context.calls[event.callId];
        if (ref) enqueue(stopChild(ref));
        const calls = { ...context.calls };
        delete calls[event.callId];
        enqueue.assign({ calls, ended: context.ended.filter((id) => id !== event.callId) });
      }),
    },
  },
  states: {
    choosing: {
      description: 'Owner or follower, as the lock plumbing said in input.',
      always: [{ guard: 'startsAsOwner', target: 'owner' }, { target: 'follower' }],
    },
    follower: {
      description: 'Another tab holds this person’s Device. Nothing registers here.',
      on: {
        'device.takeOver': 'acquiring',
        'device.signOut': 'signedOut',
      },
    },
    acquiring: {
      description: 'Asking for the voice lock; the other tab releases it first.',
      tags: ['busy'],
      invoke: {
        id: 'acquireLock',
        src: 'acquireLock',
        onDone: { target: 'owner', actions: assign({ lastError: null }) },
        onError: {
          target: 'follower',
          actions: assign(({ event }) => ({
            lastError: {
              code: null,
              message: `Could not take the phone over from the other tab: ${messageOf(event.error)}.`,
            },
          })),
        },
      },
      on: { 'device.signOut': 'signedOut' },
    },
    owner: {
      description: 'This tab holds the Device: registration and token renewal run side by side.',
      type: 'parallel',
      on: {
        'device.incoming': { actions: 'receiveCall' },
        'device.release': 'releasing',
        'device.signOut': 'signingOut',
      },
      states: {
        registration: {
          initial: 'starting',
          states: {
            starting: {
              description: 'Getting a voice token to register with.',
              tags: ['busy'],
              invoke: {
                id: 'registrationToken',
                src: 'fetchVoiceToken',
                onDone: {
                  target: 'registering',
                  actions: { type: 'register', params: ({ event }) => ({ token: event.output }) },
                },
                onError: {
                  target: 'error',
                  actions: assign(({ event }) => ({
                    lastError: {
                      code: null,
                      message: `Could not get a voice token: ${messageOf(event.error)}.`,
                    },
                  })),
                },
              },
            },
            registering: {
              description: 'The SDK registers with the voice service.',
              tags: ['busy'],
              on: {
                'device.registered': {
                  target: 'registered',
                  actions: assign({ lastError: null }),
                },
                'device.error': { target: 'error', actions: 'recordError' },
                'device.unregistered': {
                  target: 'error',
                  actions: assign({
                    lastError: {
                      code: null,
                      message: 'The phone service did not register this browser. Try again.',
                    },
                  }),
                },
              },
            },
            registered: {
              description: 'Calls can be placed and received.',
              tags: ['ready'],
              on: {
                'device.dial': { actions: 'placeCall' },
                'device.unregistered': 'reconnecting',
                'device.error': [
                  { guard: 'connectionError', target: 'reconnecting', actions: 'recordError' },
                  { guard: 'authError', target: 'error', actions: 'recordError' },
                  { actions: 'recordError' },
                ],
                'page.visible': 'checking',
              },
            },
            checking: {
              description:
                'Back from the background: asks the SDK whether it is really still registered.',
              tags: ['busy'],
              invoke: {
                id: 'checkRegistration',
                src: 'checkRegistration',
                onDone: [
                  { guard: 'stillRegistered', target: 'registered' },
                  { target: 'starting' },
                ],
                onError: { target: 'starting' },
              },
            },
            reconnecting: {
              description: 'The socket was lost while registered; the SDK reconnects by itself.',
              tags: ['busy'],
              after: {
                RECONNECT_TIMEOUT: {
                  target: 'error',
                  actions: assign(({ context }) => ({
                    lastError: {
                      code: context.lastError?.code ?? null,
                      message: 'Lost the connection to the phone service. Try again.',
                    },
                  })),
                },
              },
              on: {
                'device.registered': {
                  target: 'registered',
                  actions: assign({ lastError: null }),
                },
                'device.error': [
                  { guard: 'authError', target: 'error', actions: 'recordError' },
                  { actions: 'recordError' },
                ],
              },
            },
            error: {
              description: 'Cannot take calls; `lastError` says why. The person can retry.',
              on: {
                'device.retry': 'starting',
                'device.registered': {
                  target: 'registered',
                  actions: assign({ lastError: null }),
                },
              },
            },
          },
        },
        token: {
          initial: 'valid',
          states: {
            valid: { on: { 'device.tokenWillExpire': 'renewing' } },
            renewing: {
              description: 'The token expires after TOKEN_EXPIRY: fetch a new one, with backoff.',
              initial: 'fetching',
              exit: assign({ renewAttempts: 0 }),
              after: {
                TOKEN_EXPIRY: {
                  target: 'expired',
                  actions: assign({
                    tokenError: {
                      code: 20104,
                      message: 'Could not renew your voice sign-in before it expired. Try again.',
                    },
                  }),
                },
              },
              states: {
                fetching: {
                  invoke: {
                    id: 'renewalToken',
                    src: 'fetchVoiceToken',
                    onDone: {
                      target: '#device.owner.token.valid',
                      actions: [
                        {
                          type: 'updateToken',
                          params: ({ event }) => ({ token: event.output }),
                        },
                        assign({ tokenError: null }),
                      ],
                    },
                    onError: {
                      target: 'waiting',
                      actions: assign(({ context }) => ({
                        renewAttempts: context.renewAttempts + 1,
                      })),
                    },
                  },
                },
                waiting: {
                  description: 'Backing off after a failed renewal (RENEW_BACKOFF).',
                  after: { RENEW_BACKOFF: 'fetching' },
                },
              },
            },
            expired: {
              description: 'Renewal failed until expiry; `tokenError` says so. Retry renews.',
              on: { 'device.retry': 'renewing' },
            },
          },
        },
      },
    },
    releasing: {
      tags: ['busy'],
      entry: [
        enqueueActions(({ context, enqueue }) => {
          for (const [id, ref] of Object.entries(context.calls)) {
            if (!context.ended.includes(id)) enqueue.sendTo(ref, { type: 'call.hangUp' });
          }
          // Counted ended now: the hang-ups land after this step, and leaving must not wait.
          enqueue.assign({ ended: Object.keys(context.calls) });
        }),
        'unregister',
      ],
      exit: 'releaseLock',
      description: 'Handing the Device to another tab: hang up, unregister, then release the lock.',
      after: { UNREGISTER_TIMEOUT: 'follower' },
      on: {
        'device.unregistered': 'follower',
        'device.error': 'follower',
        'device.signOut': 'signingOut',
      },
    },
    signingOut: {
      tags: ['busy'],
      entry: [
        enqueueActions(({ context, enqueue }) => {
          for (const [id, ref] of Object.entries(context.calls)) {
            if (!context.ended.includes(id)) enqueue.sendTo(ref, { type: 'call.hangUp' });
          }
          // Counted ended now: the hang-ups land after this step, and leaving must not wait.
          enqueue.assign({ ended: Object.keys(context.calls) });
        }),
        'unregister',
      ],
      exit: 'releaseLock',
      description: 'Signing out: hang up, unregister, then release the lock.',
      after: { UNREGISTER_TIMEOUT: 'signedOut' },
      on: {
        'device.unregistered': 'signedOut',
        'device.error': 'signedOut',
      },
    },
    signedOut: { type: 'final' },
  },
});
