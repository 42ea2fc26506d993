/** Narrow reads of a syncDocument actor for `useSelector`. */
import type { SnapshotFrom } from 'xstate';
import type { SyncFailure } from '../sync/errors';
import type { ContainerMeta, JsonObject } from '../sync/ports';
import type { syncDocumentMachine } from './syncDocument.machine';
import type { ContainerStatus } from './syncList.selectors';

type DocumentSnapshot = SnapshotFrom<typeof syncDocumentMachine>;

export function selectDocumentStatus(snapshot: DocumentSnapshot): ContainerStatus {
  if (snapshot.matches('ready')) return 'ready';
  if (snapshot.matches('removed')) return 'removed';
  if (snapshot.matches('failed')) return 'failed';
  return 'opening';
}

export const selectDocumentData = (snapshot: DocumentSnapshot): JsonObject | null =>
  snapshot.context.data;

export const selectDocumentMeta = (snapshot: DocumentSnapshot): ContainerMeta | null =>
  snapshot.context.meta;

export const selectDocumentError = (snapshot: DocumentSnapshot): SyncFailure | null =>
  snapshot.context.error;

export const selectDocumentOffline = (snapshot: DocumentSnapshot): boolean =>
  snapshot.hasTag('offline');
