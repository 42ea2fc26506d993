import type { PresenceHandle } from '../../app/presence';
import { useWorkspaceSnapshot } from '../app/WorkspaceProvider';

/** This browser's presence (the workspace runs it: src/app/presence.ts). */
export function usePresence(): PresenceHandle {
  return useWorkspaceSnapshot().presence;
}
