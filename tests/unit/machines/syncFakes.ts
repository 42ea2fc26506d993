/* eslint-disable @typescript-eslint/require-await -- the fakes answer like the async ports they replace */
/**
 * In-memory stand-ins for the sync ports of every container kind, behaving like the service for one
 * container: event ids grow per container, list indexes are never reused, map keys sort in
 * code-unit order, `from` is inclusive. Every call is recorded so tests can assert that nothing was
 * sent.
 */
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { SyncFailure } from '../../../src/contracts/sync-errors';
import type {
  ContainerMeta,
  ContainerPort,
  DocumentPort,
  DocumentState,
  ItemMetadata,
  ItemPage,
  ItemQuery,
  JsonObject,
  ListItem,
  ListPort,
  MapItem,
  MapPort,
  Mutator,
  Opened,
  OpenRequest,
  StreamPort,
} from '../../../src/machines/syncPorts';

export const notFound = (code = 54150) => new SyncFailure('Not found', 404, code, 'notFound');
export const conflict = () =>
  new SyncFailure('Unique name already exists', 409, 54301, 'nameTaken');
export const serverError = () => new SyncFailure('Service unavailable', 503, null, 'network');

/** Records every call; `failNext` queues errors to throw from the next calls of a method. */
abstract class Recorder {
  calls: Array<{ method: string; args: unknown[] }> = [];
  failures = new Map<string, Error[]>();
  failNext(method: string, error: Error) {
    this.failures.set(method, [...(this.failures.get(method) ?? []), error]);
  }
  protected record(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
    const error = this.failures.get(method)?.shift();
    if (error !== undefined) throw error;
  }
}

abstract class FakeContainer<K, T extends { lastEventId: number }> extends Recorder {
  eventId = 0;
  revision = 0;
  closed = 0;
  meta: ContainerMeta;
  constructor(sid: string, uniqueName: string | null) {
    super();
    this.meta = {
      sid,
      uniqueName,
      revision: '0',
      lastEventId: 0,
      dateUpdated: null,
      dateExpires: null,
    };
  }
  describe(): ContainerMeta {
    return { ...this.meta, lastEventId: this.eventId, revision: String(this.revision) };
  }
  protected bump() {
    this.eventId += 1;
    this.revision += 1;
    return this.eventId;
  }
  protected abstract keyOf(item: T): K;
  protected abstract compare(a: K, b: K): number;
  protected abstract live(): T[];
  protected page(query: ItemQuery<K>): ItemPage<T> {
    const order = query.order ?? 'asc';
    const size = query.pageSize ?? 50;
    const sorted = this.live().sort((a, b) => this.compare(this.keyOf(a), this.keyOf(b)));
    if (order === 'desc') sorted.reverse();
    const from = query.from;
    const start =
      from === undefined
        ? sorted
        : sorted.filter((i) => {
            const c = this.compare(this.keyOf(i), from);
            return order === 'asc' ? c >= 0 : c <= 0;
          });
    return { items: start.slice(0, size), hasMore: start.length > size };
  }
}

export class FakeList extends FakeContainer<number, ListItem> implements ListPort {
  readonly kind = 'list' as const;
  items = new Map<number, ListItem>();
  nextIndex = 0;
  protected keyOf(item: ListItem) {
    return item.index;
  }
  protected compare(a: number, b: number) {
    return a - b;
  }
  protected live() {
    return [...this.items.values()];
  }
  private write(index: number, data: JsonObject, metadata?: ItemMetadata): ListItem {
    const eventId = this.bump();
    const item: ListItem = {
      index,
      data,
      revision: `r${eventId}`,
      lastEventId: eventId,
      dateUpdated: 1_000 + eventId,
      dateExpires: metadata?.ttl === undefined ? null : 1_000 + eventId + metadata.ttl * 1000,
    };
    this.items.set(index, item);
    return item;
  }
  /** Seeds an item without recording a call (state that existed before the test). */
  seed(data: JsonObject): ListItem {
    const index = this.nextIndex++;
    return this.write(index, data);
  }
  async push(data: JsonObject, metadata?: ItemMetadata) {
    this.record('push', data, metadata);
    return this.write(this.nextIndex++, data, metadata);
  }
  async set(index: number, data: JsonObject, metadata?: ItemMetadata) {
    this.record('set', index, data, metadata);
    if (!this.items.has(index))
      throw new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound');
    return this.write(index, data, metadata);
  }
  async update(index: number, data: JsonObject, metadata?: ItemMetadata) {
    this.record('update', index, data, metadata);
    const current = this.items.get(index);
    if (!current)
      throw new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound');
    return this.write(index, { ...current.data, ...data }, metadata);
  }
  async mutate(index: number, mutator: Mutator, metadata?: ItemMetadata) {
    this.record('mutate', index, mutator, metadata);
    const current = this.items.get(index);
    if (!current)
      throw new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound');
    return this.write(index, mutator(current.data) ?? current.data, metadata);
  }
  async remove(index: number) {
    this.record('remove', index);
    if (!this.items.delete(index))
      throw new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound');
    this.bump();
  }
  async get(index: number) {
    this.record('get', index);
    const item = this.items.get(index);
    if (!item) throw new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound');
    return item;
  }
  async getItems(query: ItemQuery<number>) {
    this.record('getItems', query);
    return this.page(query);
  }
  async getContext() {
    this.record('getContext');
    return {};
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async setItemTtl(index: number, ttl: number) {
    this.record('setItemTtl', index, ttl);
  }
  async removeList() {
    this.record('removeList');
  }
}

export class FakeMap extends FakeContainer<string, MapItem> implements MapPort {
  readonly kind = 'map' as const;
  items = new Map<string, MapItem>();
  protected keyOf(item: MapItem) {
    return item.key;
  }
  protected compare(a: string, b: string) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  protected live() {
    return [...this.items.values()];
  }
  private write(key: string, data: JsonObject, metadata?: ItemMetadata): MapItem {
    const eventId = this.bump();
    const item: MapItem = {
      key,
      data,
      revision: `r${eventId}`,
      lastEventId: eventId,
      dateUpdated: 1_000 + eventId,
      dateExpires: metadata?.ttl === undefined ? null : 1_000 + eventId + metadata.ttl * 1000,
    };
    this.items.set(key, item);
    return item;
  }
  seed(key: string, data: JsonObject): MapItem {
    return this.write(key, data);
  }
  async set(key: string, data: JsonObject, metadata?: ItemMetadata) {
    this.record('set', key, data, metadata);
    return this.write(key, data, metadata);
  }
  async update(key: string, data: JsonObject, metadata?: ItemMetadata) {
    this.record('update', key, data, metadata);
    return this.write(key, { ...(this.items.get(key)?.data ?? {}), ...data }, metadata);
  }
  async mutate(key: string, mutator: Mutator, metadata?: ItemMetadata) {
    this.record('mutate', key, mutator, metadata);
    const current = this.items.get(key)?.data ?? {};
    return this.write(key, mutator(current) ?? current, metadata);
  }
  async remove(key: string) {
    this.record('remove', key);
    if (!this.items.delete(key))
      throw new SyncFailure('The specified Map Item does not exist', 404, 54201, 'notFound');
    this.bump();
  }
  async get(key: string) {
    this.record('get', key);
    const item = this.items.get(key);
    if (!item)
      throw new SyncFailure('The specified Map Item does not exist', 404, 54201, 'notFound');
    return item;
  }
  async getItems(query: ItemQuery<string>) {
    this.record('getItems', query);
    return this.page(query);
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async setItemTtl(key: string, ttl: number) {
    this.record('setItemTtl', key, ttl);
  }
  async removeMap() {
    this.record('removeMap');
  }
}

export class FakeDocument extends Recorder implements DocumentPort {
  readonly kind = 'document' as const;
  state: DocumentState = {
    data: { theme: 'light' },
    revision: 'r1',
    lastEventId: 1,
    dateUpdated: 1_001,
  };
  describe(): ContainerMeta {
    const { revision, lastEventId, dateUpdated } = this.state;
    return {
      sid: 'ET1',
      uniqueName: 'settings',
      revision,
      lastEventId,
      dateUpdated,
      dateExpires: null,
    };
  }
  data() {
    return this.state.data;
  }
  private write(data: JsonObject): DocumentState {
    const id = this.state.lastEventId + 1;
    this.state = { data, revision: `r${id}`, lastEventId: id, dateUpdated: 1_000 + id };
    return this.state;
  }
  async set(data: JsonObject, metadata?: ItemMetadata) {
    this.record('set', data, metadata);
    return this.write(data);
  }
  async update(data: JsonObject, metadata?: ItemMetadata) {
    this.record('update', data, metadata);
    return this.write({ ...this.state.data, ...data });
  }
  async mutate(mutator: Mutator, metadata?: ItemMetadata) {
    this.record('mutate', mutator, metadata);
    return this.write(mutator(this.state.data) ?? this.state.data);
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async removeDocument() {
    this.record('removeDocument');
  }
}

export class FakeStream extends Recorder implements StreamPort {
  readonly kind = 'stream' as const;
  published = 0;
  describe(): ContainerMeta {
    return {
      sid: 'TO1',
      uniqueName: 'ringing',
      revision: '',
      lastEventId: 0,
      dateUpdated: null,
      dateExpires: null,
    };
  }
  async publishMessage(data: JsonObject) {
    this.record('publishMessage', data);
    this.published += 1;
    return { sid: `TZ${this.published}`, data };
  }
  async setTtl(ttl: number) {
    this.record('setTtl', ttl);
  }
  async removeStream() {
    this.record('removeStream');
  }
}

/**
 * A pretend service directory: `open` finds an entity by id, `create` makes one. Scripted errors
 * (queued per step) simulate races such as a concurrent creator.
 */
export class FakeDirectory<P extends ContainerPort> {
  entities = new Map<string, P>();
  opens: OpenRequest[] = [];
  creates: OpenRequest[] = [];
  openErrors: Error[] = [];
  createErrors: Error[] = [];
  constructor(private readonly make: (id: string) => P) {}

  readonly actors = {
    open: fromPromise<Opened, OpenRequest>(async ({ input }) => {
      this.opens.push(input);
      const scripted = this.openErrors.shift();
      if (scripted !== undefined) throw scripted;
      const found = this.entities.get(input.id ?? '');
      if (!found) throw notFound();
      return { port: found, source: found };
    }),
    create: fromPromise<Opened, OpenRequest>(async ({ input }) => {
      this.creates.push(input);
      const scripted = this.createErrors.shift();
      if (scripted !== undefined) throw scripted;
      const id = input.id ?? `anon-${this.creates.length}`;
      if (this.entities.has(id)) throw conflict();
      const port = this.make(id);
      this.entities.set(id, port);
      return { port, source: port };
    }),
  };
}

/** An `events` actor whose sink a test drives, counting subscriptions and unsubscriptions. */
export function fakeEvents<E extends { type: string }>() {
  const state = {
    sink: null as ((event: E) => void) | null,
    subscribed: 0,
    unsubscribed: 0,
    push(event: E) {
      if (!state.sink) throw new Error('not subscribed');
      state.sink(event);
    },
  };
  const actor = fromCallback<EventObject, { source: unknown }>(({ sendBack }) => {
    state.subscribed += 1;
    state.sink = sendBack;
    return () => {
      state.unsubscribed += 1;
      state.sink = null;
    };
  });
  return { state, actor };
}

/** Lets queued promise callbacks (fake ports, actor settlement) run. */
export async function flush(times = 10) {
  for (let i = 0; i < times; i += 1) await new Promise<void>((resolve) => queueMicrotask(resolve));
}

/**
 * Counts the pushed item events a container actor applied: they are not re-emitted (that would cost
 * more than applying them), and each applied one replaces the immutable item store.
 */
export function countAppliedItems(actor: {
  getSnapshot(): { context: { items: object } };
  subscribe(next: (snapshot: { context: { items: object } }) => void): unknown;
}): () => number {
  let applied = 0;
  let store = actor.getSnapshot().context.items;
  actor.subscribe((snapshot) => {
    if (snapshot.context.items === store) return;
    store = snapshot.context.items;
    applied += 1;
  });
  return () => applied;
}
