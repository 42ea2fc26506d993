/** Narrow reads of a syncMap actor for `useSelector` (see syncList.selectors.ts). */
import type { SnapshotFrom } from 'xstate';
import type { SyncFailure } from '../sync/errors';
import type { ConnectionState, ContainerMeta, MapItem } from '../sync/ports';
import { compareKeys } from './syncContainer';
import type { syncMapMachine } from './syncMap.machine';
import type { ContainerStatus } from './syncList.selectors';
import { orderedView } from './syncView';

type MapSnapshot = SnapshotFrom<typeof syncMapMachine>;

export function selectMapStatus(snapshot: MapSnapshot): ContainerStatus {
  if (snapshot.matches('ready')) return 'ready';
  if (snapshot.matches('removed')) return 'removed';
  if (snapshot.matches('failed')) return 'failed';
  return 'opening';
}

/** Items by key in code-unit order (reversed for desc); the same array until the view changes. */
export function selectMapItems(snapshot: MapSnapshot): readonly MapItem[] {
  const { items, paging } = snapshot.context;
  return orderedView(items, paging.order, (a, b) => compareKeys(a.key, b.key));
}

export const selectMapSize = (snapshot: MapSnapshot): number => snapshot.context.items.size;

export const selectMapItem =
  (key: string) =>
  (snapshot: MapSnapshot): MapItem | undefined =>
    snapshot.context.items.get(key);

export const selectMapError = (snapshot: MapSnapshot): SyncFailure | null => snapshot.context.error;

export const selectMapMeta = (snapshot: MapSnapshot): ContainerMeta | null => snapshot.context.meta;

export const selectMapHasMore = (snapshot: MapSnapshot): boolean => snapshot.context.paging.hasMore;

export const selectMapLoadingPage = (snapshot: MapSnapshot): boolean =>
  snapshot.matches({ ready: 'loadingPage' });

/**
 * True while the client's connection is down and the view may be stale. The client machine owns the
 * connection states; the container only mirrors them (a parallel region here would double the cost
 * of every pushed event).
 */
export const selectMapOffline = (snapshot: MapSnapshot): boolean =>
  snapshot.context.connection !== 'connected';

export const selectMapConnection = (snapshot: MapSnapshot): ConnectionState =>
  snapshot.context.connection;

export const selectMapRemoval = (snapshot: MapSnapshot): { isLocal: boolean } | null =>
  snapshot.context.removal;
