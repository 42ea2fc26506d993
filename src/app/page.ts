import { createActor, fromPromise } from 'xstate';
import type { SessionUser } from '../contracts/api-session';
import { createApiClient, type ApiClient } from '../io/api/client';
import { restoreSession, signIn, signOut } from '../io/api/session';
import { sessionMachine, type NotifyParams } from '../machines/session.machine';
import type { SignInRequest } from '../machines/session.types';
import { toastMachine } from '../machines/toast.machine';
import type { Workspace, WorkspaceOptions } from './workspace';

import type { SessionActor } from '../machines/session.machine';
import type { ToastActor } from '../machines/toast.machine';

export type { SessionActor, ToastActor };

/** The signed-in person's workspace, while there is one (it loads in its own chunk). */
export interface WorkspaceHost {
  current: () => Workspace | null;
  /** Calls `listener` when a workspace starts or stops; returns the unsubscribe. */
  subscribe: (listener: () => void) => () => void;
}

export interface AppActors {
  session: SessionActor;
  toast: ToastActor;
  api: ApiClient;
  workspace: WorkspaceHost;
}

export interface AppActorDeps {
  fetch: typeof fetch;
  /** The path, query and hash the user is on, kept as `redirect` when the session expires. */
  currentPath: () => string;
  /** How the signed-in workspace starts its parts (tests swap Sync and the phone). */
  workspace?: WorkspaceOptions;
}

/** Each page's start: the actors, then the workspace kept for whoever is signed in. */
const starters = new WeakMap<AppActors, () => void>();

/**
 * The composition root for machines: the one place they get real I/O. Actors are created but not
 * started, so tests can subscribe first; {@link startAppActors} starts them.
 */
export function createAppActors({
  fetch: fetchImpl,
  currentPath,
  workspace: options = {},
}: AppActorDeps): AppActors {
  const toast = createActor(toastMachine, { systemId: 'toast' });
  // The api client is built before the session actor exists; the late binding is what lets a 401
  // from any request reach the session.
  let session: SessionActor | null = null;
  const api = createApiClient({
    fetch: fetchImpl,
    onUnauthorized: () => session?.send({ type: 'session.expired', redirect: currentPath() }),
  });

  let current: Workspace | null = null;
  const listeners = new Set<() => void>();
  const host: WorkspaceHost = {
    current: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  session = createActor(
    sessionMachine.provide({
      actors: {
        restoreSession: fromPromise(() => restoreSession(api)),
        signIn: fromPromise(({ input }: { input: SignInRequest }) => signIn(api, input)),
        signOut: fromPromise(async ({ signal }) => {
          // The phone hangs up and unregisters, and the presence item goes, before the session ends.
          await current?.leave().catch(() => undefined);
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
    { systemId: 'session' },
  );
  const actors: AppActors = { session, toast, api, workspace: host };
  const started = session;
  starters.set(actors, () => {
    let owner: SessionUser | null = null;
    let running: Workspace | null = null;
    const publish = (next: Workspace | null) => {
      running = next;
      current = next;
      for (const listener of [...listeners]) listener();
    };
    started.subscribe((snapshot) => {
      const user = snapshot.context.user;
      if (user?.identity === owner?.identity) return;
      running?.stop();
      publish(null);
      owner = user;
      if (user === null) return;
      import('./workspace').then(
        ({ startWorkspace }) => {
          if (owner !== user) return;
          publish(startWorkspace({ session: started, toast, api, user, ...options }));
        },
        (error: unknown) => {
          // Only a failed chunk load lands here (a new build replaced the one this page came from).
          const message = `Live updates are unavailable: ${error instanceof Error ? error.message : String(error)}. Reload the page to try again.`;
          toast.send({ type: 'toast.show', message, toastType: 'error' });
        },
      );
    });
  });
  return actors;
}

/**
 * Starts the actors, and from then on keeps one workspace for whoever the session says is signed
 * in: started when a user appears (its chunk loaded first), stopped when the session ends.
 */
export function startAppActors(actors: AppActors): void {
  actors.toast.start();
  starters.get(actors)?.();
  actors.session.start();
}
