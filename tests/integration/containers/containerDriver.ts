/**
 * One driver for the list and map machines against the real service: client A is the machine
 * actor (commands through askList/askMap), client B a plain SDK client. Keys are list indexes or
 * map keys; the view and the service are both read as sorted `[key, data]` pairs.
 */
import type { SyncClient, SyncList, SyncMap } from 'twilio-sync';
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import { askList, askMap } from '../../../src/machines/syncAsk';
import type { syncListMachine } from '../../../src/machines/syncList.machine';
import { selectListItems, selectListOffline } from '../../../src/machines/syncList.selectors';
import type { syncMapMachine } from '../../../src/machines/syncMap.machine';
import { selectMapItems, selectMapOffline } from '../../../src/machines/syncMap.selectors';
import type { JsonObject } from '../../../src/machines/syncPorts';
import { allListItems, allMapItems, type World } from './modelSupport';

export type Kind = 'list' | 'map';
export type Key = number | string;
export type Pairs = Array<[Key, unknown]>;

type ListActor = Actor<typeof syncListMachine>;
type MapActor = Actor<typeof syncMapMachine>;

export interface Container {
  kind: Kind;
  id: string;
  actor: ListActor | MapActor;
  view(): Pairs;
  status(): 'opening' | 'ready' | 'removed' | 'failed';
  offline(): boolean;
  removal(): { isLocal: boolean } | null;
  hasMore(): boolean;
  /** Local commands through the machine (askList/askMap). */
  add(data: JsonObject): Promise<Key>;
  /** Map only: set a chosen key (create or replace). */
  setKey(key: string, data: JsonObject): Promise<void>;
  update(key: Key, data: JsonObject): Promise<void>;
  remove(key: Key): Promise<void>;
  setTtl(ttl: number): Promise<void>;
  removeContainer(): Promise<void>;
  /** A command seed 5 refuses: must reject with a clear error and send nothing. */
  invalid(): Promise<unknown>;
  loadMore(): void;
  retry(): void;
  /** Runs `fn` on every snapshot the actor emits. */
  watch(fn: () => void): void;
}

let keyCounter = 0;

export function openContainer(
  world: World,
  kind: Kind,
  input: { id: string; mode?: 'open_or_create' | 'open_existing'; pageSize?: number },
  inspect?: (e: InspectionEvent) => void,
): Container {
  if (kind === 'list') {
    const actor = createActor(world.runtime.machines.list, {
      input,
      ...(inspect ? { inspect } : {}),
    }).start();
    const snap = () => actor.getSnapshot();
    return {
      kind,
      id: input.id,
      actor,
      view: () => selectListItems(snap()).map((i) => [i.index, i.data]),
      status: () =>
        snap().matches('ready')
          ? 'ready'
          : snap().matches('removed')
            ? 'removed'
            : snap().matches('failed')
              ? 'failed'
              : 'opening',
      offline: () => selectListOffline(snap()),
      removal: () => snap().context.removal,
      hasMore: () => snap().context.paging.hasMore,
      add: async (data) => (await askList(actor, { type: 'list.push', data })).index,
      setKey: () => Promise.reject(new Error('a list has no keys to set')),
      update: async (key, data) => {
        await askList(actor, { type: 'list.update', index: Number(key), data });
      },
      remove: (key) => askList(actor, { type: 'list.remove', index: Number(key) }),
      setTtl: (ttl) => askList(actor, { type: 'list.setTtl', ttl }),
      removeContainer: () => askList(actor, { type: 'list.removeList' }),
      invalid: () => askList(actor, { type: 'list.set', index: -1, data: { bad: true } }),
      loadMore: () => actor.send({ type: 'list.loadMore' }),
      retry: () => actor.send({ type: 'list.retry' }),
      watch: (fn) => void actor.subscribe(fn),
    };
  }
  const actor = createActor(world.runtime.machines.map, {
    input,
    ...(inspect ? { inspect } : {}),
  }).start();
  const snap = () => actor.getSnapshot();
  return {
    kind,
    id: input.id,
    actor,
    view: () => selectMapItems(snap()).map((i) => [i.key, i.data]),
    status: () =>
      snap().matches('ready')
        ? 'ready'
        : snap().matches('removed')
          ? 'removed'
          : snap().matches('failed')
            ? 'failed'
            : 'opening',
    offline: () => selectMapOffline(snap()),
    removal: () => snap().context.removal,
    hasMore: () => snap().context.paging.hasMore,
    add: async (data) => {
      const key = `a${++keyCounter}`;
      return (await askMap(actor, { type: 'map.set', key, data })).key;
    },
    setKey: async (key, data) => {
      await askMap(actor, { type: 'map.set', key, data });
    },
    update: async (key, data) => {
      await askMap(actor, { type: 'map.update', key: String(key), data });
    },
    remove: (key) => askMap(actor, { type: 'map.remove', key: String(key) }),
    setTtl: (ttl) => askMap(actor, { type: 'map.setTtl', ttl }),
    removeContainer: () => askMap(actor, { type: 'map.removeMap' }),
    invalid: () => askMap(actor, { type: 'map.set', key: '', data: { bad: true } }),
    loadMore: () => actor.send({ type: 'map.loadMore' }),
    retry: () => actor.send({ type: 'map.retry' }),
    watch: (fn) => void actor.subscribe(fn),
  };
}

/** Client B's handle on the same container (plain SDK). */
export interface Remote {
  add(data: JsonObject): Promise<Key>;
  setKey(key: string, data: JsonObject): Promise<void>;
  update(key: Key, data: JsonObject): Promise<void>;
  remove(key: Key): Promise<void>;
  removeContainer(): Promise<void>;
  close(): void;
}

export async function remoteHandle(
  b: SyncClient,
  kind: Kind,
  id: string,
  mode: 'open_or_create' | 'open_existing' = 'open_or_create',
): Promise<Remote> {
  if (kind === 'list') {
    const list: SyncList = await b.list({ id, mode });
    return {
      add: async (data) => (await list.push(data)).index,
      setKey: () => Promise.reject(new Error('a list has no keys to set')),
      update: async (key, data) => {
        await list.update(Number(key), data);
      },
      remove: (key) => list.remove(Number(key)),
      removeContainer: () => list.removeList(),
      close: () => list.close(),
    };
  }
  const map: SyncMap = await b.map({ id, mode });
  return {
    add: async (data) => {
      const key = `b${++keyCounter}`;
      return (await map.set(key, data)).key;
    },
    setKey: async (key, data) => {
      await map.set(key, data);
    },
    update: async (key, data) => {
      await map.update(String(key), data);
    },
    remove: (key) => map.remove(String(key)),
    removeContainer: () => map.removeMap(),
    close: () => map.close(),
  };
}

/** Every item the service holds, read by `c` over all pages. */
export function serviceItems(c: SyncClient, kind: Kind, id: string): Promise<Pairs> {
  return kind === 'list' ? allListItems(c, id) : allMapItems(c, id);
}
