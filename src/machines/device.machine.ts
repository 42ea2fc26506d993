import { assign, enqueueActions, stopChild } from 'xstate';
import { deviceSetup, messageOf } from './device.setup';
import { ownerState } from './device.owner';

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
export const deviceMachine = deviceSetup.createMachine({
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
    owner: ownerState,
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
