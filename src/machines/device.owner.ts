/**
 * The device while this tab holds it: its registration with the voice service (and the checks and
 * reconnections that keep it) side by side with the renewal of its voice token.
 */
import { assign } from 'xstate';
import { deviceSetup, messageOf } from './device.setup';

/** The `owner` state of the device machine. */
export const ownerState = deviceSetup.createStateConfig({
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
            onDone: [{ guard: 'stillRegistered', target: 'registered' }, { target: 'starting' }],
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
});
