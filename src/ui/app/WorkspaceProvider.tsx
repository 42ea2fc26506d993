import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { IDLE_SYNC_SCOPE } from '../../app/sync-scope';
import type { Workspace, WorkspaceSnapshot } from '../../app/workspace';
import { SyncProvider } from '../sync/SyncProvider';
import { useWorkspaceHost } from './actors';

const WorkspaceContext = createContext<Workspace | null>(null);

const NOTHING_YET: WorkspaceSnapshot = {
  presence: { actor: undefined, problem: null },
  phone: { runtime: null, problem: null },
};
const noChanges = () => () => undefined;
const nothingYet = () => NOTHING_YET;

/**
 * Hands the signed-in person's workspace (src/app/workspace.ts: Sync, presence, the phone) to the
 * signed-in frame. The page root starts and stops it with the session; until it is there (its chunk
 * loading) the screens read "starting". Tests pass a `workspace` of their own.
 */
export function WorkspaceProvider({
  workspace: given,
  children,
}: {
  workspace?: Workspace;
  children: ReactNode;
}) {
  const host = useWorkspaceHost();
  const hosted = useSyncExternalStore(host.subscribe, host.current);
  const workspace = given ?? hosted;
  return (
    <WorkspaceContext.Provider value={workspace}>
      <SyncProvider scope={workspace?.sync ?? IDLE_SYNC_SCOPE}>{children}</SyncProvider>
    </WorkspaceContext.Provider>
  );
}

/** The workspace, or null while it starts. */
export function useWorkspace(): Workspace | null {
  return useContext(WorkspaceContext);
}

/** What the workspace holds now (presence, phone), re-rendering when it changes. */
export function useWorkspaceSnapshot(): WorkspaceSnapshot {
  const workspace = useWorkspace();
  return useSyncExternalStore(
    workspace?.subscribe ?? noChanges,
    workspace?.getSnapshot ?? nothingYet,
  );
}
