/** Sorted, memoised views of an item store, shared by the container selectors. */
import type { SortOrder } from './syncPorts';
import type { ItemStore } from './syncItemStore';

const cache = new WeakMap<object, { order: SortOrder; view: readonly unknown[] }>();

/**
 * The live items of `store` sorted by `compare` (reversed for desc). Stores are immutable, so the
 * result is cached per store and order: selectors return the same array until something changes.
 */
export function orderedView<K, V>(
  store: ItemStore<K, V>,
  order: SortOrder,
  compare: (a: V, b: V) => number,
): readonly V[] {
  const hit = cache.get(store);
  if (hit && hit.order === order) return hit.view as readonly V[];
  const view = store.values().sort(order === 'asc' ? compare : (a, b) => compare(b, a));
  cache.set(store, { order, view });
  return view;
}
