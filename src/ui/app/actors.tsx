import { createContext, useContext, type ReactNode } from 'react';
import type { ApiClient } from '../../io/api/client';
import type { AppActors, SessionActor, ToastActor, WorkspaceHost } from '../../app/page';

const ActorsContext = createContext<AppActors | null>(null);

/** The one actor context at the root; components reach actors only through the hooks below. */
export function ActorsProvider({ actors, children }: { actors: AppActors; children: ReactNode }) {
  return <ActorsContext.Provider value={actors}>{children}</ActorsContext.Provider>;
}

function useActors(): AppActors {
  const actors = useContext(ActorsContext);
  if (actors === null) throw new Error('ActorsProvider is missing above this component');
  return actors;
}

export function useSessionActor(): SessionActor {
  return useActors().session;
}

export function useToastActor(): ToastActor {
  return useActors().toast;
}

/** The `/api` client (same-origin JSON, 401s reported to the session). */
export function useApiClient(): ApiClient {
  return useActors().api;
}

/** Where the signed-in person's workspace is kept (see `WorkspaceProvider`). */
export function useWorkspaceHost(): WorkspaceHost {
  return useActors().workspace;
}
