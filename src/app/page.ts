import { createActor, fromPromise, type ActorRefFrom } from 'xstate';
import { createApiClient, type ApiClient } from '../io/api/client';
import { restoreSession, signIn, signOut } from '../io/api/session';
import { sessionMachine, type NotifyParams } from '../machines/session.machine';
import type { SignInRequest } from '../machines/session.types';
import { toastMachine } from '../machines/toast.machine';

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type ToastActor = ActorRefFrom<typeof toastMachine>;

export interface AppActors {
  session: SessionActor;
  toast: ToastActor;
  api: ApiClient;
  /**
   * Registers work to finish before the session ends (the phone hangs up and unregisters); sign-out
   * waits for every registered step, then asks the server. Returns the unregister function.
   */
  beforeSignOut: (step: () => Promise<void>) => () => void;
}

export interface AppActorDeps {
  fetch: typeof fetch;
  /** The path, query and hash the user is on, kept as `redirect` when the session expires. */
  currentPath: () => string;
}

/**
 * The composition root for machines: the one place they get real I/O. Actors are created but not
 * started, so tests can subscribe first; {@link startAppActors} starts them.
 */
export function createAppActors({ fetch: fetchImpl, currentPath }: AppActorDeps): AppActors {
  const toast = createActor(toastMachine);
  // The api client is built before the session actor exists; the late binding is what lets a 401
  // from any request reach the session.
  let session: SessionActor | null = null;
  const api = createApiClient({
    fetch: fetchImpl,
    onUnauthorized: () => session?.send({ type: 'session.expired', redirect: currentPath() }),
  });
  const leaving = new Set<() => Promise<void>>();
  const finishBeforeSignOut = () =>
    Promise.all([...leaving].map((step) => step().catch(() => undefined)));
  session = createActor(
    sessionMachine.provide({
      actors: {
        restoreSession: fromPromise(() => restoreSession(api)),
        signIn: fromPromise(({ input }: { input: SignInRequest }) => signIn(api, input)),
        signOut: fromPromise(async ({ signal }) => {
          await finishBeforeSignOut();
          // Given up meanwhile (SIGN_OUT_TIMEOUT): the person is still signed in, so no request.
          signal.throwIfAborted();
          await signOut(api, signal);
        }),
      },
      actions: {
        notify: (_, params: NotifyParams) =>
          toast.send({ type: 'toast.show', message: params.message, toastType: params.toastType }),
      },
    }),
  );
  const beforeSignOut = (step: () => Promise<void>) => {
    leaving.add(step);
    return () => {
      leaving.delete(step);
    };
  };
  return { session, toast, api, beforeSignOut };
}

export function startAppActors(actors: AppActors): void {
  actors.toast.start();
  actors.session.start();
}
