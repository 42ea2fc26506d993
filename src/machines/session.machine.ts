import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import type { ToastType } from './toast.machine';
import type { SessionUser, SignInRequest } from './session.types';

export interface SessionContext {
  user: SessionUser | null;
  /** Where the user was when the session expired, so sign-in can take them back. */
  redirect: string | null;
  /** The last sign-in or sign-out failure, for inline display; cleared on success. */
  lastError: string | null;
  /** The server's code for that failure, when it gave one (e.g. `sign_in_code_required`). */
  lastErrorCode: string | null;
  /**
   * How the last sign-in was asked for. A local sign-in's form shows its failure beside its fields,
   * so it raises no toast as well (the message once); a Google one has no form and toasts.
   */
  signInMethod: SignInRequest['method'] | null;
}

export type SessionEvent =
  | { type: 'session.signIn'; request: SignInRequest }
  | { type: 'session.signOut' }
  | { type: 'session.expired'; redirect: string | null };

export interface NotifyParams {
  message: string;
  toastType: ToastType;
}

export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please sign in again.';

/**
 * How long a sign-out may take in all (the phone hangs up and unregisters, at most 5 s, then the
 * server is asked). A request that never comes back (a proxy holding it, a network gone quiet)
 * would otherwise leave the person on "Signing out…" with no button to press.
 */
export const SIGN_OUT_TIMEOUT_MS = 15_000;
export const SIGN_OUT_TIMED_OUT = 'the server did not answer in time. Try again.';

function messageOf(error: unknown, fallback: string): string {
  return error instanceof Error && error.message !== '' ? error.message : fallback;
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/**
 * The visitor's session: restored from the server on start, then signed in or out.
 *
 * Provided at the composition root: `restoreSession` (resolves the user or null), `signIn`
 * (resolves the user for a {@link SignInRequest}), `signOut` (its `signal` aborts when the sign-out is
 * given up), and the `notify` action that raises a toast. Invariant: `context.user` is non-null
 * exactly in `signedIn` and `signingOut`; no state but `signedOut` is final or lasts without an exit
 * the person can take (a sign-out the server never answers ends after `SIGN_OUT_TIMEOUT`). Tag `busy`
 * marks states waiting on the server. `session.expired` only matters while signed in: any request
 * that meets a 401 may send it, whatever the state.
 */
export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    restoreSession: fromPromise<SessionUser | null>(() => {
      throw new Error('restoreSession is provided by the composition root');
    }),
    signIn: fromPromise<SessionUser, SignInRequest>(() => {
      throw new Error('signIn is provided by the composition root');
    }),
    signOut: fromPromise<void>(() => {
      throw new Error('signOut is provided by the composition root');
    }),
  },
  delays: {
    SIGN_OUT_TIMEOUT: SIGN_OUT_TIMEOUT_MS,
  },
  actions: {
    notify: (_, _params: NotifyParams) => {},
  },
  guards: {
    hasUser: (_, params: { user: SessionUser | null }) => params.user !== null,
    signingInLocally: ({ context }) => context.signInMethod === 'local',
  },
}).createMachine({
  id: 'session',
  context: {
    user: null,
    redirect: null,
    lastError: null,
    lastErrorCode: null,
    signInMethod: null,
  },
  initial: 'restoring',
  states: {
    restoring: {
      description: 'Asks the server whether the session cookie still names a user. Routes wait.',
      tags: ['busy'],
      invoke: {
        id: 'restoreSession',
        src: 'restoreSession',
        onDone: [
          {
            guard: { type: 'hasUser', params: ({ event }) => ({ user: event.output }) },
            target: 'signedIn',
            actions: assign({ user: ({ event }) => event.output }),
          },
          { target: 'signedOut' },
        ],
        onError: {
          target: 'signedOut',
          actions: [
            assign({
              lastError: ({ event }) => messageOf(event.error, 'Could not reach the server.'),
              lastErrorCode: ({ event }) => codeOf(event.error),
            }),
            {
              type: 'notify',
              params: ({ event }) => ({
                message: `Could not restore your session: ${messageOf(event.error, 'the server did not answer.')}`,
                toastType: 'error',
              }),
            },
          ],
        },
      },
    },
    signedOut: {
      on: {
        'session.signIn': {
          target: 'signingIn',
          actions: assign({
            lastError: null,
            lastErrorCode: null,
            signInMethod: ({ event }) => event.request.method,
          }),
        },
      },
    },
    signingIn: {
      description: 'The server checks the name and email, or the Google result. The form waits.',
      tags: ['busy'],
      invoke: {
        id: 'signIn',
        src: 'signIn',
        input: ({ event }) => {
          if (event.type !== 'session.signIn')
            throw new Error('signingIn entered without a request');
          return event.request;
        },
        onDone: {
          target: 'signedIn',
          actions: assign({
            user: ({ event }) => event.output,
            lastError: null,
            lastErrorCode: null,
            redirect: null,
          }),
        },
        onError: [
          {
            guard: 'signingInLocally',
            target: 'signedOut',
            actions: assign({
              lastError: ({ event }) => messageOf(event.error, 'Sign-in failed.'),
              lastErrorCode: ({ event }) => codeOf(event.error),
            }),
          },
          {
            target: 'signedOut',
            actions: [
              assign({
                lastError: ({ event }) => messageOf(event.error, 'Sign-in failed.'),
                lastErrorCode: ({ event }) => codeOf(event.error),
              }),
              {
                type: 'notify',
                params: ({ event }) => ({
                  message: messageOf(event.error, 'Sign-in failed.'),
                  toastType: 'error',
                }),
              },
            ],
          },
        ],
      },
    },
    signedIn: {
      on: {
        'session.signOut': { target: 'signingOut' },
        'session.expired': {
          target: 'signedOut',
          actions: [
            assign({
              user: null,
              redirect: ({ event }) => event.redirect,
              lastError: null,
              lastErrorCode: null,
            }),
            { type: 'notify', params: { message: SESSION_EXPIRED_MESSAGE, toastType: 'warning' } },
          ],
        },
      },
    },
    signingOut: {
      description:
        'Asks the server to end the session. If it cannot, or has not answered after SIGN_OUT_TIMEOUT, the user stays signed in.',
      tags: ['busy'],
      after: {
        SIGN_OUT_TIMEOUT: {
          target: 'signedIn',
          actions: [
            assign({ lastError: SIGN_OUT_TIMED_OUT, lastErrorCode: 'timeout' }),
            {
              type: 'notify',
              params: { message: `Could not sign out: ${SIGN_OUT_TIMED_OUT}`, toastType: 'error' },
            },
          ],
        },
      },
      invoke: {
        id: 'signOut',
        src: 'signOut',
        onDone: {
          target: 'signedOut',
          actions: assign({ user: null, redirect: null, lastError: null, lastErrorCode: null }),
        },
        onError: {
          target: 'signedIn',
          actions: [
            assign({
              lastError: ({ event }) => messageOf(event.error, 'Sign-out failed.'),
              lastErrorCode: ({ event }) => codeOf(event.error),
            }),
            {
              type: 'notify',
              params: ({ event }) => ({
                message: `Could not sign out: ${messageOf(event.error, 'the server did not answer.')}`,
                toastType: 'error',
              }),
            },
          ],
        },
      },
    },
  },
});

/** A running session machine (the page's, systemId `session`). */
export type SessionActor = ActorRefFrom<typeof sessionMachine>;
