/**
 * What the container machines need from the sync service, with no SDK type in sight. The adapters in
 * `src/io/sync/adapters.ts` implement these over twilio-sync; unit tests implement them with fakes.
 * Times are epoch milliseconds so machine context stays plain data.
 */
import type { JsonObject } from '../contracts/record';
import type { ContainerKind, SyncFailure } from '../contracts/sync-errors';
import type { ItemMetadata, Mutator, SortOrder } from '../contracts/sync-rules';

export type { ContainerKind } from '../contracts/sync-errors';
export type { JsonObject } from '../contracts/record';
export type { ItemMetadata, Mutator, SortOrder } from '../contracts/sync-rules';

export type OpenMode = 'open_or_create' | 'open_existing' | 'create_new';

/** Mirrors twilio-sync's ConnectionState. */
export type ConnectionState =
  | 'unknown'
  | 'connecting'
  | 'connected'
  | 'retrying'
  | 'disconnecting'
  | 'disconnected'
  | 'denied'
  | 'error';

/** Descriptor fields of an opened container (seed 3). Streams have no revision or event id: '' and 0. */
export interface ContainerMeta {
  sid: string;
  uniqueName: string | null;
  revision: string;
  lastEventId: number;
  /** null until the service reports one. */
  dateUpdated: number | null;
  dateExpires: number | null;
}

interface ItemFields {
  data: JsonObject;
  revision: string;
  lastEventId: number;
  dateUpdated: number;
  dateExpires: number | null;
}
export interface ListItem extends ItemFields {
  index: number;
}
export interface MapItem extends ItemFields {
  key: string;
}

export interface ItemQuery<K> {
  from?: K;
  pageSize?: number;
  order?: SortOrder;
}

export interface ItemPage<T> {
  items: T[];
  /** More items exist after the last one returned, in the query's order. */
  hasMore: boolean;
}

/** What opening asked for. `id` is the SID or unique name; absent only for create_new. */
export interface OpenRequest {
  kind: ContainerKind;
  id?: string;
  mode: OpenMode;
  ttl?: number;
  /** Initial data of a document created by this open. */
  data?: JsonObject;
}

export interface ListPort {
  readonly kind: 'list';
  describe(): ContainerMeta;
  push(data: JsonObject, metadata?: ItemMetadata): Promise<ListItem>;
  set(index: number, data: JsonObject, metadata?: ItemMetadata): Promise<ListItem>;
  update(index: number, data: JsonObject, metadata?: ItemMetadata): Promise<ListItem>;
  mutate(index: number, mutator: Mutator, metadata?: ItemMetadata): Promise<ListItem>;
  remove(index: number): Promise<void>;
  get(index: number): Promise<ListItem>;
  getItems(query: ItemQuery<number>): Promise<ItemPage<ListItem>>;
  getContext(): Promise<JsonObject>;
  setTtl(ttl: number): Promise<void>;
  setItemTtl(index: number, ttl: number): Promise<void>;
  removeList(): Promise<void>;
}

export interface MapPort {
  readonly kind: 'map';
  describe(): ContainerMeta;
  set(key: string, data: JsonObject, metadata?: ItemMetadata): Promise<MapItem>;
  update(key: string, data: JsonObject, metadata?: ItemMetadata): Promise<MapItem>;
  mutate(key: string, mutator: Mutator, metadata?: ItemMetadata): Promise<MapItem>;
  remove(key: string): Promise<void>;
  get(key: string): Promise<MapItem>;
  getItems(query: ItemQuery<string>): Promise<ItemPage<MapItem>>;
  setTtl(ttl: number): Promise<void>;
  setItemTtl(key: string, ttl: number): Promise<void>;
  removeMap(): Promise<void>;
}

export interface DocumentPort {
  readonly kind: 'document';
  describe(): ContainerMeta;
  data(): JsonObject;
  set(data: JsonObject, metadata?: ItemMetadata): Promise<DocumentState>;
  update(data: JsonObject, metadata?: ItemMetadata): Promise<DocumentState>;
  mutate(mutator: Mutator, metadata?: ItemMetadata): Promise<DocumentState>;
  setTtl(ttl: number): Promise<void>;
  removeDocument(): Promise<void>;
}

/** A document's data with the version it belongs to. */
export interface DocumentState {
  data: JsonObject;
  revision: string;
  lastEventId: number;
  dateUpdated: number | null;
}

export interface StreamMessage {
  sid: string;
  data: JsonObject;
}

export interface StreamPort {
  readonly kind: 'stream';
  describe(): ContainerMeta;
  publishMessage(data: JsonObject): Promise<StreamMessage>;
  setTtl(ttl: number): Promise<void>;
  removeStream(): Promise<void>;
}

export type ContainerPort = ListPort | MapPort | DocumentPort | StreamPort;

/**
 * The handle an open produces: the port for commands plus the SDK object the event bridge listens
 * to. Machines never look inside `source`; they only hand it to the provided `events` actor.
 */
export interface Opened<P extends ContainerPort = ContainerPort> {
  port: P;
  source: unknown;
}

/** What the SDK object said about the container when it delivered an event. */
export interface ContainerMark {
  lastEventId: number;
  revision: string;
  dateUpdated: number | null;
}

/** Events the list bridge turns SDK events into. Item events carry the SDK's own item snapshot. */
export type ListPushEvent =
  | { type: 'list.itemAdded'; item: ListItem; isLocal: boolean; container?: ContainerMark }
  | {
      type: 'list.itemUpdated';
      item: ListItem;
      isLocal: boolean;
      previousData?: JsonObject | null;
      container?: ContainerMark;
    }
  | {
      type: 'list.itemRemoved';
      index: number;
      /** The removal's event id when the SDK lets us read it; null means "trust the SDK's order". */
      lastEventId: number | null;
      dateUpdated: number | null;
      isLocal: boolean;
      previousData?: JsonObject | null;
      container?: ContainerMark;
    }
  | {
      type: 'list.contextUpdated';
      context: JsonObject;
      lastEventId: number | null;
      isLocal: boolean;
    }
  | { type: 'list.removed'; isLocal: boolean };

/** Events the map bridge turns SDK events into. */
export type MapPushEvent =
  | { type: 'map.itemAdded'; item: MapItem; isLocal: boolean; container?: ContainerMark }
  | {
      type: 'map.itemUpdated';
      item: MapItem;
      isLocal: boolean;
      previousData?: JsonObject | null;
      container?: ContainerMark;
    }
  | {
      type: 'map.itemRemoved';
      key: string;
      lastEventId: number | null;
      dateUpdated: number | null;
      isLocal: boolean;
      previousData?: JsonObject | null;
      container?: ContainerMark;
    }
  | { type: 'map.removed'; isLocal: boolean };

/** Events the document bridge turns SDK events into. */
export type DocumentPushEvent =
  | {
      type: 'document.updated';
      state: DocumentState;
      isLocal: boolean;
      previousData?: JsonObject | null;
    }
  | { type: 'document.removed'; isLocal: boolean };

/** Events the stream bridge turns SDK events into. Stream messages have no ids: no dedupe. */
export type StreamPushEvent =
  | { type: 'stream.messagePublished'; message: StreamMessage; isLocal: boolean }
  | { type: 'stream.removed'; isLocal: boolean };

/** What the server hands out for a sync session: the token and the SDK options to connect with. */
export interface SyncCredentials {
  token: string;
  clientOptions?: Record<string, unknown>;
}

/** Events the session bridge sends back from the SDK client. */
export type ClientPushEvent =
  | { type: 'sync.connectionChanged'; state: ConnectionState }
  | { type: 'client.tokenAboutToExpire' }
  | { type: 'client.tokenExpired' }
  | { type: 'client.connectionError'; terminal: boolean; message: string }
  | { type: 'client.tokenUpdated' }
  | { type: 'client.tokenRejected'; error: SyncFailure };

/** Sent to the session actor, which applies it with `client.updateToken`. */
export type SessionCommand = { type: 'session.updateToken'; token: string };
