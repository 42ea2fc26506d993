import type { PresenceHandle } from '../../app/presence';
import { useWorkspaceSnapshot } from '../app/workspace';

/** This browser's presence (the workspace runs it: src/app/presence.ts). */
export function usePresence(): PresenceHandle {
  return useWorkspaceSnapshot().presence;
}
