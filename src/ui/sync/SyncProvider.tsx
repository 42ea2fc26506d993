import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { SyncRuntime } from '../../io/sync/client';
import type { SyncAvailability, SyncScope } from '../../app/sync-scope';

export type { SyncAvailability } from '../../app/sync-scope';

const SyncContext = createContext<SyncScope | null>(null);

/**
 * Hands the signed-in person's Sync (the workspace's scope: one SyncClient, the containers over it)
 * to the screens below. The workspace starts and stops it; this only passes it down.
 */
export function SyncProvider({ scope, children }: { scope: SyncScope; children: ReactNode }) {
  return <SyncContext.Provider value={scope}>{children}</SyncContext.Provider>;
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
