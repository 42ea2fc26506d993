/**
 * Narrow reads of a container actor for `useSelector`, written once for every kind; each kind's
 * `*.selectors.ts` exports them under its own names. Each returns a primitive or a reference that
 * only changes when the thing it names changes, so components re-render only for their slice.
 */
import type { SyncFailure } from '../contracts/sync-errors';
import type { ConnectionState, ContainerMeta } from './syncPorts';
import type { ItemStore } from './syncItemStore';
import type { Paging } from './syncPaging';
import { orderedView } from './syncView';

export type ContainerStatus = 'opening' | 'ready' | 'removed' | 'failed';

interface Snapshot {
  matches(state: 'ready' | 'removed' | 'failed'): boolean;
  hasTag(tag: 'offline'): boolean;
  context: {
    error: SyncFailure | null;
    meta: ContainerMeta | null;
    connection: ConnectionState;
    removal: { isLocal: boolean } | null;
  };
}

interface PagedSnapshot<K, V> {
  matches(state: { ready: 'loadingPage' }): boolean;
  context: { items: ItemStore<K, V>; paging: Paging<K> };
}

export function selectStatus(snapshot: Snapshot): ContainerStatus {
  if (snapshot.matches('ready')) return 'ready';
  if (snapshot.matches('removed')) return 'removed';
  if (snapshot.matches('failed')) return 'failed';
  return 'opening';
}

export const selectError = (snapshot: Snapshot): SyncFailure | null => snapshot.context.error;

export const selectMeta = (snapshot: Snapshot): ContainerMeta | null => snapshot.context.meta;

/**
 * True while the client's connection is down and the view may be stale. The client machine owns the
 * connection states; the container only mirrors them (a parallel region here would double the cost
 * of every pushed event).
 */
export const selectOffline = (snapshot: Snapshot): boolean =>
  snapshot.context.connection !== 'connected';

/** {@link selectOffline} only while `ready` (the kinds without paging show it as a tag). */
export const selectOfflineTag = (snapshot: Snapshot): boolean => snapshot.hasTag('offline');

export const selectConnection = (snapshot: Snapshot): ConnectionState =>
  snapshot.context.connection;

export const selectRemoval = (snapshot: Snapshot): { isLocal: boolean } | null =>
  snapshot.context.removal;

/** Reads of the paged kinds (list, map); `compare` orders items ascending. */
export function pagedSelectors<K, V>(compare: (a: V, b: V) => number) {
  type S = PagedSnapshot<K, V>;
  return {
    /** Items in the paging order; the same array until the view changes. */
    items: (snapshot: S): readonly V[] =>
      orderedView(snapshot.context.items, snapshot.context.paging.order, compare),
    size: (snapshot: S): number => snapshot.context.items.size,
    item:
      (key: K) =>
      (snapshot: S): V | undefined =>
        snapshot.context.items.get(key),
    hasMore: (snapshot: S): boolean => snapshot.context.paging.hasMore,
    loadingPage: (snapshot: S): boolean => snapshot.matches({ ready: 'loadingPage' }),
  };
}
