import { assign, emit, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { SyncFailure, humanMessage, toSyncFailure } from '../contracts/sync-errors';
import type {
  ClientPushEvent,
  ConnectionState,
  SessionCommand,
  SyncCredentials,
} from './syncPorts';
import type { ToastType } from './toast.machine';

export type { ClientPushEvent, SessionCommand, SyncCredentials } from './syncPorts';

export type SyncClientEvent = ClientPushEvent | { type: 'client.retry' };

export type SyncClientEmitted =
  | { type: 'toast.show'; message: string; toastType: ToastType }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export interface SyncClientContext {
  credentials: SyncCredentials | null;
  connection: ConnectionState;
  error: SyncFailure | null;
}

const toast = (message: string, toastType: ToastType) =>
  ({ type: 'toast.show', message, toastType }) as const;

/**
 * Owns one twilio-sync client for a signed-in user. `fetchCredentials` gets a token (and the SDK
 * options) from the server; the `session` actor creates the SDK client with it, reports its
 * connection state and token warnings, and applies renewed tokens. On `tokenAboutToExpire` (or
 * `tokenExpired`) the machine fetches a new token and hands it to the session. Failures a person
 * can act on are emitted as `toast.show` events; connection changes are re-emitted as
 * `sync.connectionChanged` for whoever needs them.
 *
 * Provided: actors `fetchCredentials`, `session`.
 */
export const syncClientMachine = setup({
  types: {
    context: {} as SyncClientContext,
    events: {} as SyncClientEvent,
    emitted: {} as SyncClientEmitted,
  },
  actors: {
    fetchCredentials: fromPromise<SyncCredentials>(() =>
      Promise.reject(new Error('syncClient: the "fetchCredentials" actor was not provided')),
    ),
    session: fromCallback<SessionCommand, { credentials: SyncCredentials }>(() => () => {}),
  },
  guards: {
    isConnected: ({ context }) => context.connection === 'connected',
    isDenied: ({ context }) => context.connection === 'denied',
  },
  actions: {
    recordConnection: assign({
      connection: ({ event }) =>
        event.type === 'sync.connectionChanged' ? event.state : ('unknown' as const),
    }),
    reemitConnection: emit(({ context }) => ({
      type: 'sync.connectionChanged' as const,
      state: context.connection,
    })),
  },
}).createMachine({
  id: 'syncClient',
  context: { credentials: null, connection: 'connecting', error: null },
  initial: 'authorizing',
  states: {
    authorizing: {
      description: 'Fetching the first sync token from the server.',
      invoke: {
        src: 'fetchCredentials',
        onDone: {
          target: 'running',
          actions: assign({ credentials: ({ event }) => event.output, error: null }),
        },
        onError: {
          target: 'failed',
          actions: [
            assign({ error: ({ event }) => toSyncFailure(event.error) }),
            emit(({ event }) =>
              toast(
                `Live updates are unavailable: ${humanMessage(toSyncFailure(event.error))}`,
                'error',
              ),
            ),
          ],
        },
      },
    },
    running: {
      type: 'parallel',
      invoke: {
        id: 'session',
        src: 'session',
        input: ({ context }) => ({ credentials: context.credentials as SyncCredentials }),
      },
      on: {
        'sync.connectionChanged': {
          target: '.connection.checking',
          actions: ['recordConnection', 'reemitConnection'],
        },
        'client.connectionError': {
          actions: [
            assign({
              error: ({ event }) => new SyncFailure(event.message, 0, null, 'network'),
            }),
            emit(({ event }) =>
              event.terminal
                ? toast(
                    `The live connection stopped: ${event.message}. Reload the page to reconnect.`,
                    'error',
                  )
                : toast('The live connection is having trouble; retrying.', 'warning'),
            ),
          ],
        },
      },
      states: {
        connection: {
          initial: 'checking',
          states: {
            checking: {
              always: [
                { guard: 'isConnected', target: 'connected' },
                { guard: 'isDenied', target: 'denied' },
                { target: 'disconnected' },
              ],
            },
            connected: {},
            disconnected: {
              tags: ['offline'],
              description: 'Connecting or reconnecting; the SDK retries on its own.',
            },
            denied: {
              tags: ['offline'],
              description: 'The service refused our token.',
              entry: emit(
                toast('The live connection was refused. Sign in again to keep working.', 'error'),
              ),
            },
          },
        },
        token: {
          initial: 'valid',
          states: {
            valid: {
              on: {
                'client.tokenAboutToExpire': { target: 'renewing' },
                'client.tokenExpired': { target: 'renewing' },
              },
            },
            renewing: {
              description: 'Fetching a new token before (or after) the current one expires.',
              invoke: {
                src: 'fetchCredentials',
                onDone: {
                  target: 'updating',
                  actions: [
                    assign({ credentials: ({ event }) => event.output }),
                    sendTo('session', ({ event }) => ({
                      type: 'session.updateToken' as const,
                      token: event.output.token,
                    })),
                  ],
                },
                onError: {
                  target: 'renewalFailed',
                  actions: [
                    assign({ error: ({ event }) => toSyncFailure(event.error) }),
                    emit(({ event }) =>
                      toast(
                        `Your session could not be renewed: ${humanMessage(toSyncFailure(event.error))}`,
                        'warning',
                      ),
                    ),
                  ],
                },
              },
            },
            updating: {
              description: 'The session is applying the new token (client.updateToken).',
              on: {
                'client.tokenUpdated': { target: 'valid', actions: assign({ error: null }) },
                'client.tokenRejected': {
                  target: 'renewalFailed',
                  actions: [
                    assign({ error: ({ event }) => event.error }),
                    emit(({ event }) => toast(humanMessage(event.error), 'error')),
                  ],
                },
              },
            },
            renewalFailed: {
              description: 'Renewal failed; the next expiry warning or client.retry tries again.',
              on: {
                'client.tokenAboutToExpire': { target: 'renewing' },
                'client.tokenExpired': { target: 'renewing' },
                'client.retry': { target: 'renewing' },
              },
            },
          },
        },
      },
    },
    failed: {
      description: 'No token could be fetched; client.retry asks again.',
      on: { 'client.retry': { target: 'authorizing' } },
    },
  },
});
