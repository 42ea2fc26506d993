import { assign } from 'xstate';
import { callSetup } from './call.setup';
import { addressOf } from './call.types';
import { openState } from './call.open';

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
 * exactly in `ended`; `warnings` are the SDK's quality warnings raised and not yet cleared, none in
 * `ended`. A disconnect ends the call with the reason of the last SDK error when there
 * was one (the adapter passes the SDK's `error` before its `disconnect`), else "they hung up" or "no
 * answer". A cancel ends an incoming call whenever it comes: the caller can hang up while we are
 * still answering, or (over a slow uplink) after our media opened but before the service had our
 * answer. Tag `live` marks every state before `ended`; `ringing` the states where a ringtone plays.
 *
 * Hold and park live on the server's media legs (the SDK has neither): on hold, the other side hears
 * music and we hear silence; park hands the other side to /hold and ends the call here, so parking
 * ends with reason `parked` whether the server's answer or its hangup of our leg comes first.
 */
export const callMachine = callSetup.createMachine({
  id: 'call',
  context: ({ input }) => ({
    ...input,
    sid: input.direction === 'incoming' ? input.callId : null,
    startedAt: input.now(),
    answeredAt: null,
    endedAt: null,
    endReason: null,
    error: null,
    digits: '',
    problem: null,
    transfer: null,
    routing: [],
    warnings: [],
  }),
  // A group call's routing is news whatever the call is doing; it changes no state. So is who is on
  // the other end now (after a pick-up, a transfer, or a group member answering), and so are the
  // SDK's quality warnings, raised and cleared whenever its stats say so (they end with the call).
  on: {
    'call.routed': { actions: 'noteRouting' },
    'call.party': { actions: 'noteParty' },
    'call.quality.warning': { actions: 'raiseWarning' },
    'call.quality.cleared': { actions: 'clearWarning' },
  },
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
        'call.accepted': { target: 'open', actions: 'noteSid' },
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
          on: { 'call.ringing': { target: 'ringing', actions: 'noteSid' } },
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
    open: openState,
    ended: {
      description: 'Over. `endReason` says why, `endedAt` when.',
      type: 'final',
      entry: assign(({ context }) => ({ endedAt: context.now(), warnings: [] })),
    },
  },
});
