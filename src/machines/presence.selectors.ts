/** Narrow reads of a presence actor for `useSelector`. */
import type { SnapshotFrom } from 'xstate';
import type { presenceMachine, PresenceStatus } from './presence.machine';

type PresenceSnapshot = SnapshotFrom<typeof presenceMachine>;

export const selectOwnStatus = (s: PresenceSnapshot): PresenceStatus => s.context.status;

/** True while the last write failed and the next try is pending: the status may not be shared. */
export const selectPresenceFailing = (s: PresenceSnapshot): boolean => s.hasTag('failing');

export const selectPresenceError = (s: PresenceSnapshot): string | null => s.context.lastError;
