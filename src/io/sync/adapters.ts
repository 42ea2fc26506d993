/**
 * The ports over twilio-sync objects: the only place (with bridges/ and client.ts) that calls the
 * SDK. Results become plain data (epoch-ms dates) so machine context stays serialisable.
 */
import type {
  Paginator,
  SyncDocument,
  SyncList,
  SyncListItem,
  SyncMap,
  SyncMapItem,
  SyncStream,
} from 'twilio-sync';
import { toListItem, toMapItem, toMillis } from './bridges/convert';
import { syncErrors } from '../../contracts/sync-errors';
import type {
  ContainerMeta,
  DocumentPort,
  DocumentState,
  ItemMetadata,
  ItemPage,
  ItemQuery,
  JsonObject,
  ListPort,
  MapPort,
  Mutator,
  StreamPort,
} from '../../machines/syncPorts';

interface SdkDescribed {
  readonly sid: string;
  readonly uniqueName: string | null;
  readonly dateExpires: string | Date | null | undefined;
}

function describeOf(
  entity: SdkDescribed,
  version: { revision?: string; lastEventId?: number; dateUpdated?: Date | null },
): ContainerMeta {
  return {
    sid: entity.sid,
    uniqueName: entity.uniqueName ?? null,
    revision: version.revision ?? '',
    lastEventId: typeof version.lastEventId === 'number' ? version.lastEventId : 0,
    dateUpdated: toMillis(version.dateUpdated),
    dateExpires: toMillis(entity.dateExpires),
  };
}

/** The SDK wants `undefined`, not an empty object, when no metadata was given. */
const meta = (metadata?: ItemMetadata) => metadata;

// The SDK types data as `Object`; ports say JsonObject (validated before sending).
const sdkMutator = (mutator: Mutator) => (current: object) =>
  mutator(current as JsonObject) as object;

const listItem = (item: SyncListItem) =>
  toListItem({
    index: item.index,
    data: item.data,
    revision: item.revision,
    lastEventId: item.lastEventId,
    dateUpdated: item.dateUpdated,
    dateExpires: item.dateExpires,
  });

const mapItem = (item: SyncMapItem) =>
  toMapItem({
    key: item.key,
    data: item.data,
    revision: item.revision,
    lastEventId: item.lastEventId,
    dateUpdated: item.dateUpdated,
    dateExpires: item.dateExpires,
  });

function pageOf<S, T>(paginator: Paginator<S>, convert: (item: S) => T): ItemPage<T> {
  return { items: paginator.items.map(convert), hasMore: paginator.hasNextPage };
}

function queryOf<K>(query: ItemQuery<K>) {
  return {
    ...(query.from === undefined ? {} : { from: query.from }),
    ...(query.pageSize === undefined ? {} : { pageSize: query.pageSize }),
    ...(query.order === undefined ? {} : { order: query.order }),
  };
}

/**
 * twilio-sync 4.0.1 keeps a removed list item in its cache as null: `get` then resolves null and
 * `set`/`update`/`mutate` throw a TypeError, and a write whose item a pushed removal has just
 * dropped resolves null. The service's answer for a missing item is 404 "No item with index N
 * found" (seed 8), so that is what such a call says.
 */
async function listItemCall(
  index: number,
  call: () => Promise<SyncListItem | null>,
): Promise<ReturnType<typeof listItem>> {
  let item: SyncListItem | null;
  try {
    item = await call();
  } catch (error) {
    if (error instanceof TypeError) throw syncErrors.listItemMissing(index);
    throw error;
  }
  if (!item) throw syncErrors.listItemMissing(index);
  return listItem(item);
}

export function listPort(list: SyncList): ListPort {
  return {
    kind: 'list',
    describe: () => describeOf(list, list),
    push: async (data, metadata) => listItem(await list.push(data, meta(metadata))),
    set: (index, data, metadata) =>
      listItemCall(index, () => list.set(index, data, meta(metadata))),
    update: (index, data, metadata) =>
      listItemCall(index, () => list.update(index, data, meta(metadata))),
    mutate: (index, mutator, metadata) =>
      listItemCall(index, () => list.mutate(index, sdkMutator(mutator), meta(metadata))),
    remove: (index) => list.remove(index),
    get: (index) => listItemCall(index, () => list.get(index)),
    getItems: async (query) => pageOf(await list.getItems(queryOf(query)), listItem),
    getContext: async () => (await list.getContext()) as JsonObject,
    setTtl: (ttl) => list.setTtl(ttl),
    setItemTtl: (index, ttl) => list.setItemTtl(index, ttl),
    removeList: () => list.removeList(),
  };
}

export function mapPort(map: SyncMap): MapPort {
  return {
    kind: 'map',
    describe: () => describeOf(map, map),
    set: async (key, data, metadata) => mapItem(await map.set(key, data, meta(metadata))),
    update: async (key, data, metadata) => mapItem(await map.update(key, data, meta(metadata))),
    mutate: async (key, mutator, metadata) =>
      mapItem(await map.mutate(key, sdkMutator(mutator), meta(metadata))),
    remove: (key) => map.remove(key),
    get: async (key) => mapItem(await map.get(key)),
    getItems: async (query) => pageOf(await map.getItems(queryOf(query)), mapItem),
    setTtl: (ttl) => map.setTtl(ttl),
    setItemTtl: (key, ttl) => map.setItemTtl(key, ttl),
    removeMap: () => map.removeMap(),
  };
}

export function documentPort(doc: SyncDocument): DocumentPort {
  const state = (): DocumentState => ({
    data: doc.data as JsonObject,
    revision: doc.revision,
    lastEventId: doc.lastEventId,
    dateUpdated: toMillis(doc.dateUpdated),
  });
  return {
    kind: 'document',
    describe: () => describeOf(doc, doc),
    data: () => doc.data as JsonObject,
    set: async (data, metadata) => {
      await doc.set(data, meta(metadata));
      return state();
    },
    update: async (data, metadata) => {
      await doc.update(data, meta(metadata));
      return state();
    },
    mutate: async (mutator, metadata) => {
      await doc.mutate(sdkMutator(mutator), meta(metadata));
      return state();
    },
    setTtl: (ttl) => doc.setTtl(ttl),
    removeDocument: async () => {
      await doc.removeDocument();
    },
  };
}

export function streamPort(stream: SyncStream): StreamPort {
  return {
    kind: 'stream',
    describe: () => describeOf(stream, {}),
    publishMessage: async (data) => {
      const message = await stream.publishMessage(data);
      return { sid: message.sid, data: message.data as JsonObject };
    },
    setTtl: (ttl) => stream.setTtl(ttl),
    removeStream: () => stream.removeStream(),
  };
}
