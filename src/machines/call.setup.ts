/**
 * A call's vocabulary and its implementations, shared by the call machine's files: its input,
 * context and events, and the actions, guards, actors and delays the machine is set up with.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { CallControl, PlainCallControl, TransferRequest } from '../contracts/call-controls';
import { endReasonForCode, type CallEndReason, type Remote, type VoiceError } from './call.types';

export type CallDirection = 'outgoing' | 'incoming';

export interface CallInput {
  direction: CallDirection;
  /** The adapter's key for the SDK call: the incoming CallSid, or the id we gave an outgoing call. */
  callId: string;
  remote: Remote;
  /** Custom parameters: sent with an outgoing call, received with an incoming one. */
  params: Record<string, string>;
  /** The provided clock (ms). The machine never reads the time any other way. */
  now: () => number;
}

export interface CallContext extends CallInput {
  /**
   * The call's CallSid (for a call we placed, the id its history row has): an incoming call's id;
   * an outgoing call's once it rings.
   */
  sid: string | null;
  startedAt: number;
  answeredAt: number | null;
  endedAt: number | null;
  endReason: CallEndReason | null;
  /** The last error the SDK reported on this call; it decides the end reason of a disconnect. */
  error: VoiceError | null;
  /** Keypad digits sent so far, for the keypad's display. */
  digits: string;
  /** Why the last hold, resume, park or transfer was refused (or ended), in a sentence. */
  problem: string | null;
  /** The transfer under way, and whether its target has answered (a consult). */
  transfer: (TransferRequest & { answered: boolean }) | null;
  /** A call to a ring group: the server's routing decisions so far, oldest first (at most 50). */
  routing: RoutingNote[];
  /** The SDK's quality warnings active now (`high-rtt`, `low-mos`, …), in the order they came. */
  warnings: string[];
}

/** One routing decision the server told us of (`kind` as the server names it, `text` to show). */
export interface RoutingNote {
  kind: string;
  text: string;
}

/** How many routing decisions a call keeps. */
export const MAX_ROUTING_NOTES = 50;
/** How many quality warnings a call keeps active at once (the SDK has fewer than this). */
export const MAX_WARNINGS = 20;

/** A call control the server carries out (the SDK has none): hold, resume, park. */
export interface CallControlInput extends CallRef {
  action: CallControl;
  /** For `transfer`: who to, and how. */
  transfer?: TransferRequest;
}

export type { TransferRequest };

/** What the adapter sends, one per SDK `Call` event (`ringing`, `accept`, `cancel`, …). */
export type CallAdapterEvent =
  /** Their phone rings; `sid` is the call's CallSid, known from now on (an outgoing call's). */
  | { type: 'call.ringing'; sid?: string }
  /** Answered; `sid` is the call's CallSid when the answer told it (no ringing came first). */
  | { type: 'call.accepted'; sid?: string }
  | { type: 'call.cancelled' }
  | { type: 'call.disconnected' }
  | { type: 'call.reconnecting' }
  | { type: 'call.reconnected' }
  | { type: 'call.error'; code: number; message: string }
  /** The server says the other side put us on hold (or parked us), or took us off it. */
  | { type: 'call.heldByThem' }
  | { type: 'call.resumedByThem' }
  /** The target of our attended transfer answered; or the consult ended without a transfer. */
  | { type: 'call.consultAnswered' }
  | { type: 'call.consultEnded'; reason: string }
  /** The server's routing decision on our call to a ring group (announcement, who rings, …). */
  | { type: 'call.routed'; kind: string; text: string }
  /** The server says who is on the other end now: a pick-up, a transfer, a group member answering. */
  | { type: 'call.party'; identity: string | null; number: string | null; name: string }
  /** The SDK's `warning` and `warning-cleared` (call quality: `high-rtt`, `low-mos`, a muted mic). */
  | { type: 'call.quality.warning'; name: string }
  | { type: 'call.quality.cleared'; name: string };

/** What the UI sends. */
export type CallUserEvent =
  | { type: 'call.accept' }
  | { type: 'call.reject' }
  | { type: 'call.hangUp' }
  | { type: 'call.mute' }
  | { type: 'call.unmute' }
  | { type: 'call.digits'; digits: string }
  // The call controls (src/contracts/call-controls.ts), one event each: `call.hold`, `call.park`, …
  | { type: `call.${PlainCallControl}` }
  | ({ type: 'call.transfer' } & TransferRequest);

export type CallEvent = CallAdapterEvent | CallUserEvent;

export interface CallRef {
  callId: string;
}

/** Default ring time before an unanswered incoming call counts as missed. */
export const RING_TIMEOUT_MS = 30_000;

/** Keypad input the SDK accepts: digits, `*`, `#`, and `w`/`W` for a half-second pause. */
export const isValidDigits = (digits: string): boolean => /^[0-9*#wW]+$/.test(digits);

/** The input of a `controlCall` that needs nothing but the call. */
export const controlInput =
  (action: PlainCallControl) =>
  ({ context }: { context: CallContext }): CallControlInput => ({ callId: context.callId, action });

/** A transition to `ended` for a call handed on (parked or transferred). */
export const endedAs = (reason: 'parked' | 'transferred') =>
  ({
    target: '#call.ended',
    actions: { type: 'endWith', params: { reason } },
  }) as const;

/** The call machine's setup: what call.machine.ts and call.open.ts build their states from. */
export const callSetup = setup({
  types: {
    context: {} as CallContext,
    events: {} as CallEvent,
    input: {} as CallInput,
  },
  actors: {
    controlCall: fromPromise<void, CallControlInput>(async () => {}),
  },
  actions: {
    recordProblem: assign(({ event }) => {
      const error = (event as unknown as { error?: unknown }).error;
      return {
        problem:
          error instanceof Error && error.message !== '' ? error.message : 'The server refused.',
      };
    }),
    clearProblem: assign({ problem: null }),
    startTransfer: assign(({ event }) =>
      event.type === 'call.transfer'
        ? { problem: null, transfer: { to: event.to.trim(), mode: event.mode, answered: false } }
        : {},
    ),
    dropTransfer: assign({ transfer: null }),
    noteRouting: assign(({ context, event }) =>
      event.type === 'call.routed' && context.routing.length < MAX_ROUTING_NOTES
        ? { routing: [...context.routing, { kind: event.kind, text: event.text }] }
        : {},
    ),
    noteParty: assign(({ event }) =>
      event.type === 'call.party' && (event.identity !== null || event.number !== null)
        ? { remote: { identity: event.identity, number: event.number, displayName: event.name } }
        : {},
    ),
    raiseWarning: assign(({ context, event }) =>
      event.type === 'call.quality.warning' &&
      !context.warnings.includes(event.name) &&
      context.warnings.length < MAX_WARNINGS
        ? { warnings: [...context.warnings, event.name] }
        : {},
    ),
    clearWarning: assign(({ context, event }) =>
      event.type === 'call.quality.cleared' && context.warnings.includes(event.name)
        ? { warnings: context.warnings.filter((name) => name !== event.name) }
        : {},
    ),
    consultAnswered: assign(({ context }) => ({
      transfer: context.transfer && { ...context.transfer, answered: true },
    })),
    consultEnded: assign(({ event }) =>
      event.type === 'call.consultEnded' ? { transfer: null, problem: event.reason } : {},
    ),
    placeCall: (_, _params: CallRef & { to: string; params: Record<string, string> }) => {},
    acceptCall: (_, _params: CallRef) => {},
    rejectCall: (_, _params: CallRef) => {},
    ignoreCall: (_, _params: CallRef) => {},
    hangUpCall: (_, _params: CallRef) => {},
    setMuted: (_, _params: CallRef & { muted: boolean }) => {},
    sendDigits: (_, _params: CallRef & { digits: string }) => {},
    endWith: assign((_, params: { reason: CallEndReason }) => ({ endReason: params.reason })),
    noteSid: assign(({ context, event }) =>
      (event.type === 'call.ringing' || event.type === 'call.accepted') && event.sid
        ? { sid: event.sid }
        : { sid: context.sid },
    ),
    endFromSdk: assign(({ context }) => ({
      endReason:
        context.error?.code != null
          ? endReasonForCode(context.error.code)
          : context.answeredAt !== null
            ? ('hungUpByThem' as const)
            : ('noAnswer' as const),
    })),
    recordError: assign(({ event }) =>
      event.type === 'call.error' ? { error: { code: event.code, message: event.message } } : {},
    ),
  },
  guards: {
    incoming: ({ context }) => context.direction === 'incoming',
    validDigits: ({ event }) => event.type === 'call.digits' && isValidDigits(event.digits),
    validTransfer: ({ event }) =>
      event.type === 'call.transfer' &&
      event.to.trim() !== '' &&
      event.to.length <= 200 &&
      (event.mode === 'blind' || event.mode === 'consult'),
    blindTransfer: ({ context }) => context.transfer?.mode === 'blind',
    consultAnswered: ({ context }) => context.transfer?.answered === true,
  },
  delays: {
    RING_TIMEOUT: RING_TIMEOUT_MS,
  },
});
