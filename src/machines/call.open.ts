/**
 * A call once it is open: the controls that run side by side while it lasts (mute, hold, being
 * held by them, park, transfer, the link's reconnection) and the ways it ends from there.
 */
import { assign } from 'xstate';
import { callSetup, controlInput, endedAs } from './call.setup';

/** The `open` state of the call machine. */
export const openState = callSetup.createStateConfig({
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
          description: 'Asking the server to drop the target and bring us back to the other side.',
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
});
