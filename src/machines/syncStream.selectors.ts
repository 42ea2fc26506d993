/** Narrow reads of a syncStream actor for `useSelector`. */
import type { SnapshotFrom } from 'xstate';
import type { SyncFailure } from '../sync/errors';
import type { StreamMessage } from '../sync/ports';
import type { ContainerStatus } from './syncList.selectors';
import type { syncStreamMachine } from './syncStream.machine';

type StreamSnapshot = SnapshotFrom<typeof syncStreamMachine>;

export function selectStreamStatus(snapshot: StreamSnapshot): ContainerStatus {
  if (snapshot.matches('ready')) return 'ready';
  if (snapshot.matches('removed')) return 'removed';
  if (snapshot.matches('failed')) return 'failed';
  return 'opening';
}

export const selectStreamMessages = (snapshot: StreamSnapshot): readonly StreamMessage[] =>
  snapshot.context.messages;

export const selectStreamLastMessage = (snapshot: StreamSnapshot): StreamMessage | undefined =>
  snapshot.context.messages.at(-1);

export const selectStreamError = (snapshot: StreamSnapshot): SyncFailure | null =>
  snapshot.context.error;

export const selectStreamOffline = (snapshot: StreamSnapshot): boolean =>
  snapshot.hasTag('offline');
