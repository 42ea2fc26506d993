import { assign, fromPromise, setup } from 'xstate';
import {
  addressOf,
  endReasonForCode,
  type CallEndReason,
  type Remote,
  type VoiceError,
} from './call.types';

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
}

/** One routing decision the server told us of (`kind` as the server names it, `text` to show). */
export interface RoutingNote {
  kind: string;
  text: string;
}

/** How many routing decisions a call keeps. */
export const MAX_ROUTING_NOTES = 50;

/** A call control the server carries out (the SDK has none): hold, resume, park. */
export interface CallControlInput extends CallRef {
  action: 'hold' | 'resume' | 'park' | 'transfer' | 'completeTransfer' | 'cancelTransfer';
  /** For `transfer`: who to, and how. */
  transfer?: TransferRequest;
}

/** A transfer asked for: to whom (a name, email or extension), blind or after talking to them. */
export type TransferRequest = {
  to: string;
  mode: 'blind' | 'consult';
};

/** What the adapter sends, one per SDK `Call` event (`ringing`, `accept`, `cancel`, …). */
export type CallAdapterEvent =
  | { type: 'call.ringing' }
  | { type: 'call.accepted' }
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
  | { type: 'call.routed'; kind: string; text: string };

/** What the UI sends. */
export type CallUserEvent =
  | { type: 'call.accept' }
  | { type: 'call.reject' }
  | { type: 'call.hangUp' }
  | { type: 'call.mute' }
  | { type: 'call.unmute' }
  | { type: 'call.digits'; digits: string }
  | { type: 'call.hold' }
  | { type: 'call.resume' }
  | { type: 'call.park' }
  | ({ type: 'call.transfer' } & TransferRequest)
  | { type: 'call.completeTransfer' }
  | { type: 'call.cancelTransfer' };

export type CallEvent = CallAdapterEvent | CallUserEvent;

export interface CallRef {
  callId: string;
}

/** Default ring time before an unanswered incoming call counts as missed. */
export const RING_TIMEOUT_MS = 30_000;

/** Keypad input the SDK accepts: digits, `*`, `#`, and `w`/`W` for a half-second pause. */
export const isValidDigits = (digits: string): boolean => /^[0-9*#wW]+$/.test(digits);

/** The input of a `controlCall` that needs nothing but the call. */
const controlInput =
  (action: Exclude<CallControlInput['action'], 'transfer'>) =>
  ({ context }: { context: CallContext }): CallControlInput => ({ callId: context.callId, action });

/** A transition to `ended` for a call handed on (parked or transferred). */
const endedAs = (reason: 'parked' | 'transferred') =>
  ({
    target: '#call.ended',
    actions: { type: 'endWith', params: { reason } },
  }) as const;

/**
 * One call, outgoing or incoming, from its first signal to its end.
 *
 * Adapter events ({@link CallAdapterEvent}) translate the SDK `Call`'s events one to one; user
 * events ({@link CallUserEvent}) come from the UI. Provided actions, each with `{ callId }`:
 * `placeCall` (+ `to`, `params`: `device.connect`), `acceptCall`, `rejectCall`, `ignoreCall` (stop
 * ringing here, say nothing to the caller), `hangUpCall`, `setMuted` (+ `muted`), `sendDigits` (+
 * `digits`). Actor `controlCall` ({@link CallControlInput}): asks the server to hold, resume, park
 * or transfer the call (and complete or cancel an attended transfer), rejecting with a sentence
 * when it refuses. Delay `RING_TIMEOUT`. Time comes only
 * from `input.now`.
 *
 * Invariants: `answeredAt` is set exactly when the call has been open; `endedAt` and `endReason`
 * exactly in `ended`. A disconnect ends the call with the reason of the last SDK error when there
 * was one (the adapter passes the SDK's `error` before its `disconnect`), else "they hung up" or "no
 * answer". A cancel ends an incoming call whenever it comes: the caller can hang up while we are
 * still answering, or (over a slow uplink) after our media opened but before the service had our
 * answer. Tag `live` marks every state before `ended`; `ringing` the states where a ringtone plays.
 *
 * Hold and park live on the server's media legs (the SDK has neither): on hold, the other side hears
 * music and we hear silence; park hands the other side to /hold and ends the call here, so parking
 * ends with reason `parked` whether the server's answer or its hangup of our leg comes first.
 */
export const callMachine = setup({
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
}).createMachine({
  id: 'call',
  context: ({ input }) => ({
    ...input,
    startedAt: input.now(),
    answeredAt: null,
    endedAt: null,
    endReason: null,
    error: null,
    digits: '',
    problem: null,
    transfer: null,
    routing: [],
  }),
  // A group call's routing is news whatever the call is doing; it changes no state.
  on: { 'call.routed': { actions: 'noteRouting' } },
  initial: 'routing',
  states: {
    routing: {
      description: 'Picks the first state from the direction given in input.',
      always: [{ guard: 'incoming', target: 'incoming' }, { target: 'outgoing' }],
    },
    outgoing: {
      tags: ['live'],
      initial: 'connecting',
      entry: {
        type: 'placeCall',
        params: ({ context }) => ({
          callId: context.callId,
          to: addressOf(context.remote),
          params: context.params,
        }),
      },
      on: {
        'call.accepted': 'open',
        'call.hangUp': {
          target: 'ended',
          actions: [
            { type: 'hangUpCall', params: ({ context }) => ({ callId: context.callId }) },
            { type: 'endWith', params: { reason: 'hungUpByYou' } },
          ],
        },
        'call.error': { actions: 'recordError' },
        'call.disconnected': { target: 'ended', actions: 'endFromSdk' },
      },
      states: {
        connecting: {
          description: 'Dialling: the microphone is opened and the invite is on its way.',
          on: { 'call.ringing': 'ringing' },
        },
        ringing: {
          description: 'Their phone is ringing.',
          tags: ['ringing'],
        },
      },
    },
    incoming: {
      tags: ['live'],
      initial: 'ringing',
      on: {
        'call.error': { actions: 'recordError' },
        'call.disconnected': { target: 'ended', actions: 'endFromSdk' },
        'call.cancelled': {
          description:
            'The caller hung up before the service had our answer: while it rang here, or while we were still answering.',
          target: 'ended',
          actions: { type: 'endWith', params: { reason: 'cancelled' } },
        },
      },
      states: {
        ringing: {
          description: 'Ringing here until answered, declined, cancelled by the caller or missed.',
          tags: ['ringing'],
          after: {
            RING_TIMEOUT: {
              target: '#call.ended',
              actions: [
                { type: 'ignoreCall', params: ({ context }) => ({ callId: context.callId }) },
                { type: 'endWith', params: { reason: 'missed' } },
              ],
            },
          },
          on: {
            'call.accept': {
              target: 'answering',
              actions: {
                type: 'acceptCall',
                params: ({ context }) => ({ callId: context.callId }),
              },
            },
            'call.reject': {
              target: '#call.ended',
              actions: [
                { type: 'rejectCall', params: ({ context }) => ({ callId: context.callId }) },
                { type: 'endWith', params: { reason: 'rejected' } },
              ],
            },
            'call.hangUp': {
              description: 'Hanging up a call that rings here declines it.',
              target: '#call.ended',
              actions: [
                { type: 'rejectCall', params: ({ context }) => ({ callId: context.callId }) },
                { type: 'endWith', params: { reason: 'rejected' } },
              ],
            },
          },
        },
        answering: {
          description: 'Accepted here; the microphone is opening and the answer is being set.',
          on: {
            'call.accepted': '#call.open',
            'call.hangUp': {
              target: '#call.ended',
              actions: [
                { type: 'hangUpCall', params: ({ context }) => ({ callId: context.callId }) },
                { type: 'endWith', params: { reason: 'hungUpByYou' } },
              ],
            },
          },
        },
      },
    },
    open: {
      description: 'In call. `open` does not prove audio flows (see voice-signalling §5).',
      tags: ['live'],
      type: 'parallel',
      entry: assign(({ context }) => ({ answeredAt: context.now() })),
      on: {
        'call.digits': {
          guard: 'validDigits',
          actions: [
            {
              type: 'sendDigits',
              params: ({ context, event }) => ({
                callId: context.callId,
                digits: event.type === 'call.digits' ? event.digits : '',
              }),
            },
            assign(({ context, event }) => ({
              digits: context.digits + (event.type === 'call.digits' ? event.digits : ''),
            })),
          ],
        },
        'call.hangUp': {
          target: 'ended',
          actions: [
            { type: 'hangUpCall', params: ({ context }) => ({ callId: context.callId }) },
            { type: 'endWith', params: { reason: 'hungUpByYou' } },
          ],
        },
        'call.error': { actions: 'recordError' },
        'call.disconnected': { target: 'ended', actions: 'endFromSdk' },
        'call.cancelled': {
          description:
            'An incoming call open here whose answer never reached the service: the caller hung up first.',
          target: 'ended',
          actions: { type: 'endWith', params: { reason: 'cancelled' } },
        },
      },
      states: {
        audio: {
          initial: 'unmuted',
          states: {
            unmuted: {
              on: {
                'call.mute': {
                  target: 'muted',
                  actions: {
                    type: 'setMuted',
                    params: ({ context }) => ({ callId: context.callId, muted: true }),
                  },
                },
              },
            },
            muted: {
              description: 'Our microphone is muted; they hear nothing.',
              on: {
                'call.unmute': {
                  target: 'unmuted',
                  actions: {
                    type: 'setMuted',
                    params: ({ context }) => ({ callId: context.callId, muted: false }),
                  },
                },
              },
            },
          },
        },
        hold: {
          initial: 'off',
          states: {
            off: { on: { 'call.hold': { target: 'holding', actions: 'clearProblem' } } },
            holding: {
              description: 'Asking the server to put the other side on hold.',
              invoke: {
                id: 'hold',
                src: 'controlCall',
                input: controlInput('hold'),
                onDone: 'onHold',
                onError: { target: 'off', actions: 'recordProblem' },
              },
            },
            onHold: {
              description: 'The other side hears hold music; we hear silence.',
              on: { 'call.resume': { target: 'resuming', actions: 'clearProblem' } },
            },
            resuming: {
              description: 'Asking the server to connect us again.',
              invoke: {
                id: 'resume',
                src: 'controlCall',
                input: controlInput('resume'),
                onDone: 'off',
                onError: { target: 'onHold', actions: 'recordProblem' },
              },
            },
          },
        },
        them: {
          initial: 'present',
          states: {
            present: { on: { 'call.heldByThem': 'holdingUs' } },
            holdingUs: {
              description: 'They put us on hold (or parked us): we hear their hold music.',
              on: { 'call.resumedByThem': 'present' },
            },
          },
        },
        park: {
          initial: 'idle',
          states: {
            idle: { on: { 'call.park': { target: 'parking', actions: 'clearProblem' } } },
            parking: {
              description:
                'Asking the server to park the call on /hold; its hangup of our leg may come before its answer.',
              invoke: {
                id: 'park',
                src: 'controlCall',
                input: controlInput('park'),
                onDone: endedAs('parked'),
                onError: { target: 'idle', actions: 'recordProblem' },
              },
              on: {
                'call.disconnected': endedAs('parked'),
              },
            },
          },
        },
        transfer: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'call.transfer': {
                  guard: 'validTransfer',
                  target: 'sending',
                  actions: 'startTransfer',
                },
              },
            },
            sending: {
              description:
                'Asking the server to transfer. A blind transfer ends here: the server hangs up our leg, before or after its answer.',
              invoke: {
                id: 'transfer',
                src: 'controlCall',
                input: ({ context }) => ({
                  callId: context.callId,
                  action: 'transfer' as const,
                  transfer: {
                    to: context.transfer?.to ?? '',
                    mode: context.transfer?.mode ?? 'blind',
                  },
                }),
                onDone: [
                  { guard: 'blindTransfer', ...endedAs('transferred') },
                  { target: 'consulting' },
                ],
                onError: { target: 'idle', actions: ['recordProblem', 'dropTransfer'] },
              },
              on: {
                'call.disconnected': { guard: 'blindTransfer', ...endedAs('transferred') },
              },
            },
            consulting: {
              description:
                'The other side hears music; we hear the target ring, then talk to them on this call.',
              on: {
                'call.consultAnswered': { actions: 'consultAnswered' },
                'call.consultEnded': { target: 'idle', actions: 'consultEnded' },
                'call.completeTransfer': { target: 'completing', actions: 'clearProblem' },
                'call.cancelTransfer': { target: 'cancelling', actions: 'clearProblem' },
                'call.hangUp': {
                  description: 'Hanging up once the target is in hands the call over.',
                  guard: 'consultAnswered',
                  target: '#call.ended',
                  actions: [
                    { type: 'hangUpCall', params: ({ context }) => ({ callId: context.callId }) },
                    { type: 'endWith', params: { reason: 'transferred' } },
                  ],
                },
              },
            },
            completing: {
              description: 'Asking the server to hand the call over; it hangs up our leg.',
              invoke: {
                id: 'completeTransfer',
                src: 'controlCall',
                input: controlInput('completeTransfer'),
                onDone: endedAs('transferred'),
                onError: { target: 'consulting', actions: 'recordProblem' },
              },
              on: {
                'call.disconnected': endedAs('transferred'),
              },
            },
            cancelling: {
              description:
                'Asking the server to drop the target and bring us back to the other side.',
              invoke: {
                id: 'cancelTransfer',
                src: 'controlCall',
                input: controlInput('cancelTransfer'),
                onDone: { target: 'idle', actions: 'dropTransfer' },
                onError: { target: 'consulting', actions: 'recordProblem' },
              },
              on: { 'call.consultEnded': { target: 'idle', actions: 'dropTransfer' } },
            },
          },
        },
        link: {
          initial: 'connected',
          states: {
            connected: { on: { 'call.reconnecting': 'reconnecting' } },
            reconnecting: {
              description:
                'Media or signalling dropped; the SDK is reconnecting (gives up after 30 s).',
              on: { 'call.reconnected': 'connected' },
            },
          },
        },
      },
    },
    ended: {
      description: 'Over. `endReason` says why, `endedAt` when.',
      type: 'final',
      entry: assign(({ context }) => ({ endedAt: context.now() })),
    },
  },
});
