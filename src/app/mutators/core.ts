/**
 * The one way the app writes to Sync. Every mutator (one file per feature beside this one) checks
 * the value against its contract first and refuses it with the field and the reason
 * ({@link WriteRefused}), then sends the write to the container machine and waits for its answer
 * (a {@link SyncFailure} when the service refused it). Nothing in `src/ui` writes any other way:
 * no fire-and-forget `send`, no SDK object (lint enforces both).
 */
import type { Actor } from 'xstate';
import type { AnyObjectSchema, JsonObject, RecordContract } from '../../contracts/record';
import type * as v from 'valibot';
import { askDocument, askList, askMap } from '../../machines/syncAsk';
import type { syncDocumentMachine } from '../../machines/syncDocument.machine';
import type { syncListMachine } from '../../machines/syncList.machine';
import type { syncMapMachine } from '../../machines/syncMap.machine';
import type { ListItem, MapItem } from '../../machines/syncPorts';

export type MapActor = Actor<typeof syncMapMachine>;
export type ListActor = Actor<typeof syncListMachine>;
export type DocumentActor = Actor<typeof syncDocumentMachine>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordContract<AnyObjectSchema, any>;
type Stored<R extends AnyRecord> = v.InferOutput<R['schema']>;

/** A write its contract refuses: nothing was sent. `field` is a dot path ("phones.1.number"). */
export class WriteRefused extends Error {
  override readonly name = 'WriteRefused';
  constructor(
    readonly record: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(field === '' ? reason : `${field}: ${reason}`);
  }
}

/** `data` as it will be stored, or {@link WriteRefused} with the first field at fault. */
export function checked<R extends AnyRecord>(record: R, data: unknown): Stored<R> & JsonObject {
  const result = record.check(data);
  if (!result.ok) throw new WriteRefused(record.name, result.field, result.reason);
  return result.value;
}

/** Writes a map item whole (created or replaced); `ttl` (seconds) makes it lapse unless renewed. */
export function putItem<R extends AnyRecord>(
  map: MapActor,
  record: R,
  key: string,
  data: unknown,
  options: { ttl?: number } = {},
): Promise<MapItem> {
  const ttl = options.ttl === undefined ? {} : { ttl: options.ttl };
  return askMap(map, { type: 'map.set', key, data: checked(record, data), ...ttl });
}

/**
 * Replaces a map item whole only if it still exists: an item someone removed meanwhile is not
 * silently made again (the answer is then `{ ok: false }` and nothing was written).
 */
export async function updateItem<R extends AnyRecord>(
  map: MapActor,
  record: R,
  key: string,
  data: unknown,
): Promise<{ ok: boolean }> {
  const next = checked(record, data);
  let gone = false;
  await askMap(map, {
    type: 'map.mutate',
    key,
    mutator: (current) => {
      // The SDK calls this again with the fresh value after a lost race: only the last call counts.
      gone = Object.keys(current).length === 0;
      return gone ? null : next;
    },
  });
  return { ok: !gone };
}

/** A map item as the service holds it now, with its revision (not the copy the map holds). */
export async function fetchItem(
  map: MapActor,
  key: string,
): Promise<{ data: JsonObject; revision: string }> {
  const item = await askMap(map, { type: 'map.get', key });
  return { data: item.data, revision: item.revision };
}

/** Removes a map item. */
export function removeItem(map: MapActor, key: string): Promise<undefined> {
  return askMap(map, { type: 'map.remove', key });
}

/**
 * Writes a map item only if it is still `base` (what the edit started from): the answer says
 * whether it was saved, or who won a race (their version; null when the item is gone).
 */
export async function replaceItemIf<R extends AnyRecord>(
  map: MapActor,
  record: R,
  key: string,
  base: JsonObject,
  data: unknown,
): Promise<{ ok: true } | { ok: false; current: JsonObject | null }> {
  const write = onlyIf(base, checked(record, data), (current) =>
    Object.keys(current).length === 0 ? null : current,
  );
  await askMap(map, { type: 'map.mutate', key, mutator: write.mutator });
  return write.answer();
}

/** Appends a list item. */
export function pushItem<R extends AnyRecord>(
  list: ListActor,
  record: R,
  data: unknown,
): Promise<ListItem> {
  return askList(list, { type: 'list.push', data: checked(record, data) });
}

/** Replaces a list item whole. */
export function setListItem<R extends AnyRecord>(
  list: ListActor,
  record: R,
  index: number,
  data: unknown,
): Promise<ListItem> {
  return askList(list, { type: 'list.set', index, data: checked(record, data) });
}

/** Removes a list item. */
export function removeListItem(list: ListActor, index: number): Promise<undefined> {
  return askList(list, { type: 'list.remove', index });
}

/**
 * Changes some fields of a document: the whole document as it would be after the change (what is
 * held now, decoded, with `patch` over it) must pass the contract; only the patch is sent.
 */
export async function patchDocument<R extends AnyRecord>(
  doc: DocumentActor,
  record: R,
  current: JsonObject | null,
  patch: JsonObject,
): Promise<void> {
  checked(record, { ...(record.read(current ?? {}) as JsonObject), ...patch });
  await askDocument(doc, { type: 'document.update', data: patch });
}

/**
 * Saves a whole document only if it is still `base`: as {@link replaceItemIf}, for documents.
 */
export async function replaceDocumentIf<R extends AnyRecord>(
  doc: DocumentActor,
  record: R,
  base: JsonObject,
  data: unknown,
): Promise<{ ok: true } | { ok: false; current: JsonObject | null }> {
  const write = onlyIf(base, checked(record, data), (current) => current);
  await askDocument(doc, { type: 'document.mutate', mutator: write.mutator });
  return write.answer();
}

/**
 * A mutator that writes `next` only over `base`, and the answer it leads to. The SDK calls the
 * mutator again with the fresh value after a lost race: only the last call counts.
 */
function onlyIf(
  base: JsonObject,
  next: JsonObject,
  seenAs: (current: JsonObject) => JsonObject | null,
): {
  mutator: (current: JsonObject) => JsonObject | null;
  answer: () => { ok: true } | { ok: false; current: JsonObject | null };
} {
  let seen: JsonObject | null = null;
  let declined = false;
  return {
    mutator: (current) => {
      seen = seenAs(current);
      declined = JSON.stringify(current) !== JSON.stringify(base);
      return declined ? null : next;
    },
    answer: () => (declined ? { ok: false, current: seen } : { ok: true }),
  };
}
