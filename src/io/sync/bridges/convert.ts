/** Turns the SDK's item objects (class instances with Date fields) into the ports' plain data. */
import type { JsonObject, ListItem, MapItem } from '../../../machines/syncPorts';

/** The item fields twilio-sync exposes on SyncListItem and SyncMapItem. */
export interface SdkItemLike {
  readonly data: object;
  readonly revision: string;
  readonly lastEventId: number;
  readonly dateUpdated: Date | string | number | null | undefined;
  readonly dateExpires: string | Date | null | undefined;
}

/** Epoch milliseconds, or null when absent or unparseable. */
export function toMillis(value: Date | string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = value instanceof Date ? value.getTime() : new Date(value).getTime();
  return Number.isFinite(ms) ? ms : null;
}

// Written out field by field rather than spread from a shared helper: this runs once per pushed
// event, and the spread allocates a second object and is several times slower.
export const toListItem = (item: SdkItemLike & { readonly index: number }): ListItem => ({
  index: item.index,
  data: item.data as JsonObject,
  revision: item.revision,
  lastEventId: item.lastEventId,
  dateUpdated: toMillis(item.dateUpdated) ?? 0,
  dateExpires: toMillis(item.dateExpires),
});

export const toMapItem = (item: SdkItemLike & { readonly key: string }): MapItem => ({
  key: item.key,
  data: item.data as JsonObject,
  revision: item.revision,
  lastEventId: item.lastEventId,
  dateUpdated: toMillis(item.dateUpdated) ?? 0,
  dateExpires: toMillis(item.dateExpires),
});

/** The container fields twilio-sync exposes on SyncList and SyncMap. */
export interface SdkContainerLike {
  readonly lastEventId: number;
  readonly revision: string;
  readonly dateUpdated: Date | null | undefined;
}

export const markOf = (container: SdkContainerLike) => ({
  lastEventId: container.lastEventId,
  revision: container.revision,
  dateUpdated: toMillis(container.dateUpdated),
});

/**
 * The event id of the tombstone twilio-sync keeps for a removed item. Its `itemRemoved` event does
 * not carry the id, yet seed 4 wants removals ordered per item; twilio-sync 4.0.1 keeps it in a
 * private cache (`<impl>.cache.items.get(key).lastEventId`). Read defensively: null when the shape
 * differs, and the machine then trusts the SDK's own ordering for that removal.
 */
export function tombstoneEventId(
  container: object,
  implField: 'syncListImpl' | 'syncMapImpl',
  key: string | number,
): number | null {
  const impl = (container as Record<string, unknown>)[implField] as
    { cache?: { items?: { get?: (k: unknown) => unknown } } } | undefined;
  const entry = impl?.cache?.items?.get?.(key) as { lastEventId?: unknown } | undefined;
  return typeof entry?.lastEventId === 'number' ? entry.lastEventId : null;
}
