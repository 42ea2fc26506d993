/**
 * The signed-in person's open Sync containers, shared: whoever opens a container with the same
 * name and options gets the same actor (one SDK subscription, one copy of the items), counted, and
 * the actor stops once the last one lets go. The workspace holds its shared containers (`users`,
 * `presence`, `holds`, `groups`, the person's settings) for its whole life; screens open others on
 * demand (`contacts`, `calls`) through the same door.
 */
import { createActor } from 'xstate';
import type { SyncRuntime } from '../io/sync/client';
import type { JsonObject, OpenMode, SortOrder } from '../machines/syncPorts';
import type { DocumentActor, ListActor, MapActor } from './mutators/core';

export type { DocumentActor, ListActor, MapActor } from './mutators/core';

export interface ContainerOptions {
  /** How to open (seed 4); screens use the default, open_or_create. */
  mode?: OpenMode;
  ttl?: number;
}

export interface PagedOptions extends ContainerOptions {
  /** Items per page (1 to 100; default 50). */
  pageSize?: number;
  order?: SortOrder;
  /** Keep fetching pages until the whole container is held (maps a screen searches in full). */
  loadAll?: boolean;
}

export interface DocumentOptions extends ContainerOptions {
  /** The document's content if this open creates it. */
  data?: JsonObject;
}

interface Kinds {
  map: { actor: MapActor; options: PagedOptions };
  list: { actor: ListActor; options: PagedOptions };
  document: { actor: DocumentActor; options: DocumentOptions };
}
export type OpenKind = keyof Kinds;
export type ActorOf<K extends OpenKind> = Kinds[K]['actor'];
export type OptionsOf<K extends OpenKind> = Kinds[K]['options'];

/**
 * How the maps a screen holds whole are opened (the directory, presence, parked calls, groups,
 * contacts): a screen opening one with these options shares the workspace's.
 */
export const SHARED_MAP: PagedOptions = { pageSize: 100, loadAll: true };

/** How a person's own settings document is opened (made empty on first use). */
export const SETTINGS_DOCUMENT: DocumentOptions = { data: {} };

/** One holder's claim on a shared container: `release()` once, when done with it. */
export interface Lease<A> {
  readonly actor: A;
  release(): void;
}

export interface ContainerRegistry {
  open<K extends OpenKind>(kind: K, name: string, options?: OptionsOf<K>): Lease<ActorOf<K>>;
  /** How many containers are open now (tests). */
  readonly size: number;
  /** Stops every container, whoever holds it (the workspace is ending). */
  stopAll(): void;
}

interface Entry {
  actor: MapActor | ListActor | DocumentActor;
  holders: number;
  /** Holders that want every page; the loader runs while there is one. */
  loadingAll: number;
  stopLoading: (() => void) | null;
}

/** The machine's input: the name and only the options given (the initial data is not a key). */
function inputOf(kind: OpenKind, name: string, options: PagedOptions & DocumentOptions) {
  const { mode, ttl, pageSize, order, data } = options;
  return {
    id: name,
    ...(mode === undefined ? {} : { mode }),
    ...(ttl === undefined ? {} : { ttl }),
    ...(kind !== 'document' && pageSize !== undefined ? { pageSize } : {}),
    ...(kind !== 'document' && order !== undefined ? { order } : {}),
    ...(kind === 'document' && data !== undefined ? { data } : {}),
  };
}

/**
 * Sends `loadMore` whenever a paged container is idle with more pages to fetch, until stopped.
 * Both paged machines share the paging shape; only the event's domain differs.
 */
export function loadEveryPage(actor: MapActor | ListActor): () => void {
  const target = actor as unknown as {
    getSnapshot(): {
      status: string;
      context: { paging: { hasMore: boolean } };
      matches(state: { ready: 'idle' }): boolean;
    };
    subscribe(next: () => void): { unsubscribe(): void };
    send(event: { type: string }): void;
  };
  const type = actor.logic.id === 'syncList' ? 'list.loadMore' : 'map.loadMore';
  const check = () => {
    const snapshot = target.getSnapshot();
    if (snapshot.status !== 'active' || !snapshot.context.paging.hasMore) return;
    if (!snapshot.matches({ ready: 'idle' })) return;
    target.send({ type });
  };
  const subscription = target.subscribe(check);
  check();
  return () => subscription.unsubscribe();
}

/** Containers over one running Sync runtime. */
export function createContainerRegistry(runtime: Pick<SyncRuntime, 'machines'>): ContainerRegistry {
  const entries = new Map<string, Entry>();

  function release(key: string, entry: Entry, loadAll: boolean): void {
    if (entries.get(key) !== entry) return;
    entry.holders -= 1;
    if (loadAll) entry.loadingAll -= 1;
    if (entry.loadingAll === 0) {
      entry.stopLoading?.();
      entry.stopLoading = null;
    }
    if (entry.holders > 0) return;
    entries.delete(key);
    // Stopping the container stops its event bridge: every SDK listener off, the handle closed.
    entry.actor.stop();
  }

  return {
    open(kind, name, options = {}) {
      const input = inputOf(kind, name, options);
      const { data: _data, ...keyed } = input as typeof input & { data?: unknown };
      const key = `${kind}\u0000${JSON.stringify(keyed)}`;
      let entry = entries.get(key);
      if (!entry) {
        const actor = createActor(runtime.machines[kind] as never, {
          input: input as never,
          systemId: `${kind}:${name}`,
        }) as unknown as Entry['actor'];
        actor.start();
        entry = { actor, holders: 0, loadingAll: 0, stopLoading: null };
        entries.set(key, entry);
      }
      const held = entry;
      const loadAll = kind !== 'document' && (options as PagedOptions).loadAll === true;
      held.holders += 1;
      if (loadAll) {
        held.loadingAll += 1;
        held.stopLoading ??= loadEveryPage(held.actor as MapActor | ListActor);
      }
      let released = false;
      return {
        actor: held.actor,
        release: () => {
          if (released) return;
          released = true;
          release(key, held, loadAll);
        },
      };
    },
    get size() {
      return entries.size;
    },
    stopAll() {
      for (const entry of entries.values()) {
        entry.stopLoading?.();
        entry.actor.stop();
      }
      entries.clear();
    },
  };
}
