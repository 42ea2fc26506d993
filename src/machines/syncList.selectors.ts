/**
 * Narrow reads of a syncList actor for `useSelector`. Each returns a primitive or a reference that
 * only changes when the thing it names changes, so components re-render only for their slice.
 */
import type { SnapshotFrom } from 'xstate';
import type { ConnectionState, ContainerMeta, JsonObject, ListItem } from '../sync/ports';
import type { SyncFailure } from '../sync/errors';
import type { syncListMachine } from './syncList.machine';
import { orderedView } from './syncView';

type ListSnapshot = SnapshotFrom<typeof syncListMachine>;

export type ContainerStatus = 'opening' | 'ready' | 'removed' | 'failed';

export function selectListStatus(snapshot: ListSnapshot): ContainerStatus {
  if (snapshot.matches('ready')) return 'ready';
  if (snapshot.matches('removed')) return 'removed';
  if (snapshot.matches('failed')) return 'failed';
  return 'opening';
}

/** Items in the paging order (index ascending by default); the same array until the view changes. */
export function selectListItems(snapshot: ListSnapshot): readonly ListItem[] {
  const { items, paging } = snapshot.context;
  return orderedView(items, paging.order, (a, b) => a.index - b.index);
}

export const selectListSize = (snapshot: ListSnapshot): number => snapshot.context.items.size;

export const selectListItem =
  (index: number) =>
  (snapshot: ListSnapshot): ListItem | undefined =>
    snapshot.context.items.get(index);

export const selectListError = (snapshot: ListSnapshot): SyncFailure | null =>
  snapshot.context.error;

export const selectListMeta = (snapshot: ListSnapshot): ContainerMeta | null =>
  snapshot.context.meta;

export const selectListContextData = (snapshot: ListSnapshot): JsonObject | null =>
  snapshot.context.listContext.data;

export const selectListHasMore = (snapshot: ListSnapshot): boolean =>
  snapshot.context.paging.hasMore;

export const selectListLoadingPage = (snapshot: ListSnapshot): boolean =>
  snapshot.matches({ ready: 'loadingPage' });

/**
 * True while the client's connection is down and the view may be stale. The client machine owns the
 * connection states; the container only mirrors them (a parallel region here would double the cost
 * of every pushed event).
 */
export const selectListOffline = (snapshot: ListSnapshot): boolean =>
  snapshot.context.connection !== 'connected';

export const selectListConnection = (snapshot: ListSnapshot): ConnectionState =>
  snapshot.context.connection;

export const selectListRemoval = (snapshot: ListSnapshot): { isLocal: boolean } | null =>
  snapshot.context.removal;
