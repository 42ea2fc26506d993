/** Page-by-page loading shared by the list and map machines (seed 9: pages of 50, ascending). */
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../contracts/sync-constants';
import type { ItemPage, ItemQuery, SortOrder } from './syncPorts';
import type { ItemStore } from './syncItemStore';

export interface Paging<K> {
  pageSize: number;
  order: SortOrder;
  /** More items exist after the last loaded one, in `order`. */
  hasMore: boolean;
  /** Key of the last item loaded by paging; null before the first page. */
  cursor: K | null;
}

/**
 * The query for the next page. `from` is inclusive on the service, so after the first page we ask
 * for one more item than a page and drop the cursor item that comes back.
 */
export function nextPageQuery<K>(paging: Paging<K>): ItemQuery<K> {
  if (paging.cursor === null) return { pageSize: paging.pageSize, order: paging.order };
  return {
    from: paging.cursor,
    pageSize: Math.min(paging.pageSize + 1, MAX_PAGE_SIZE),
    order: paging.order,
  };
}

/**
 * Folds a fetched page into the store. An item already known with the same or a newer event id (a
 * pushed event overtook the page, or it was removed since) keeps what we know.
 */
export function applyPage<K, T extends { lastEventId: number }>(
  store: ItemStore<K, T>,
  paging: Paging<K>,
  page: ItemPage<T>,
  keyOf: (item: T) => K,
): { items: ItemStore<K, T>; paging: Paging<K> } {
  let items = store;
  let cursor = paging.cursor;
  for (const item of page.items) {
    const key = keyOf(item);
    cursor = key;
    if (items.isNewer(key, item.lastEventId)) items = items.set(key, item, item.lastEventId);
  }
  return { items, paging: { ...paging, cursor, hasMore: page.hasMore } };
}

/** The query of a `getItems` command: defaults filled in, `from` only when given. */
export function commandQuery<K>(command: { from?: K; pageSize?: number; order?: SortOrder }) {
  const query: ItemQuery<K> = { pageSize: command.pageSize ?? DEFAULT_PAGE_SIZE };
  if (command.from !== undefined) query.from = command.from;
  query.order = command.order ?? DEFAULT_ORDER;
  return query;
}
