/**
 * The device machine's vocabulary and implementations, shared by its files: its input, context
 * and events, its timings, and the actions, guards, actors and delays it is set up with.
 */
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import { callMachine } from './call.machine';
import {
  AUTH_ERROR_CODES,
  CONNECTION_ERROR_CODES,
  describeDeviceError,
  remoteFromAddress,
  type Remote,
  type VoiceError,
} from './call.types';
import type { CallAdapterEvent } from './call.setup';

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

/** An error's message, for the sentences the device's states write. */
export const messageOf = (error: unknown): string =>
  error instanceof Error && error.message !== '' ? error.message : 'no answer';

const errorFrom = (event: DeviceEvent): VoiceError | null =>
  event.type === 'device.error'
    ? { code: event.code, message: describeDeviceError(event.code, event.message) }
    : null;

/** The device machine's setup: what device.machine.ts and device.owner.ts build their states from. */
export const deviceSetup = setup({
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
});
