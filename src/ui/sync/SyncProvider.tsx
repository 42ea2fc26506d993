import {
  createContext,
  useContext,
  useEffect,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import type { SyncRuntime } from '../../io/sync/client';
import {
  IDLE_SYNC_SCOPE,
  startSyncScope,
  type SyncAvailability,
  type SyncScope,
} from '../../app/sync-scope';
import type { StartSyncRuntime } from '../../app/sync-runtime';
import { useApiClient, useSessionActor, useToastActor } from '../app/actors';

export type { SyncAvailability } from '../../app/sync-scope';

const SyncContext = createContext<SyncScope | null>(null);

/**
 * Hands the signed-in person's Sync (the workspace's scope: one SyncClient, the containers over it)
 * to the screens below. The workspace starts and stops it; this only passes it down.
 *
 * `start` is for tests that render screens over SDK fakes without a workspace: the scope is then
 * started for as long as this provider is mounted. Prefer a scope made outside React
 * (`startSyncScope`) or a workspace (`WorkspaceProvider`).
 */
export function SyncProvider({
  scope,
  start,
  children,
}: {
  scope?: SyncScope;
  /** @deprecated Tests only: pass `scope` (started outside React) instead. */
  start?: StartSyncRuntime;
  children: ReactNode;
}) {
  const own = useOwnScope(scope === undefined ? start : undefined);
  return <SyncContext.Provider value={scope ?? own}>{children}</SyncContext.Provider>;
}

/** The scope a test's `start` makes, for the provider's life. */
function useOwnScope(start: StartSyncRuntime | undefined): SyncScope {
  const api = useApiClient();
  const toast = useToastActor();
  const session = useSessionActor();
  const [scope, setScope] = useState<SyncScope>(IDLE_SYNC_SCOPE);
  useEffect(() => {
    if (start === undefined) return;
    const started = startSyncScope({ api, toast, session, start });
    setScope(started);
    return () => {
      started.stop();
      setScope(IDLE_SYNC_SCOPE);
    };
  }, [api, start, toast, session]);
  return scope;
}

/** The Sync scope the screens open containers in; throws outside {@link SyncProvider}. */
export function useSyncScope(): SyncScope {
  const scope = useContext(SyncContext);
  if (scope === null) throw new Error('SyncProvider is missing above this component');
  return scope;
}

/** The runtime's availability; throws outside {@link SyncProvider} (a wiring mistake). */
export function useSyncAvailability(): SyncAvailability {
  const scope = useSyncScope();
  return useSyncExternalStore(scope.subscribe, scope.getAvailability);
}

/** The running sync runtime (`.machines`, `.client`), or null while it starts (or if it could not). */
export function useSyncRuntime(): SyncRuntime | null {
  return useSyncAvailability().runtime;
}
