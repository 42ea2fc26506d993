/**
 * Hooks that open a synced container through its machine and hand the component the actor.
 * Components read with `useSelector(actor, selectX)` (selectors in src/machines/*.selectors.ts, or
 * {@link useContainerSelector} while the actor may still be undefined) and write with
 * `ask(actor, command, kind)` from src/machines/syncCommand.ts.
 */
import { useSelector } from '@xstate/react';
import { useCallback, useEffect, useState } from 'react';
import { createActor, type Actor, type AnyActorLogic, type SnapshotFrom } from 'xstate';
import type { syncDocumentMachine } from '../../machines/syncDocument.machine';
import type { syncListMachine } from '../../machines/syncList.machine';
import type { syncMapMachine } from '../../machines/syncMap.machine';
import type { SyncRuntime } from '../../io/sync/client';
import type { JsonObject, OpenMode, SortOrder } from '../../machines/syncPorts';
import { useSyncRuntime } from './SyncProvider';

export type MapActor = Actor<typeof syncMapMachine>;
export type ListActor = Actor<typeof syncListMachine>;
export type DocumentActor = Actor<typeof syncDocumentMachine>;

export interface ContainerOptions {
  /** How to open (seed 4); screens use the default, open_or_create. */
  mode?: OpenMode;
  ttl?: number;
}

export interface PagedOptions extends ContainerOptions {
  /** Items per page (1 to 100; default 50). */
  pageSize?: number;
  order?: SortOrder;
  /** Keep fetching pages until the whole container is held (maps the screen searches in full). */
  loadAll?: boolean;
}

/**
 * Creates, starts and (on unmount, or when the runtime or input changes) stops one actor. The
 * actor is undefined until the runtime is up. Stopping the container actor stops its event bridge,
 * which removes every SDK listener it added and closes the SDK handle.
 */
function useRuntimeActor<A extends { start(): unknown; stop(): unknown }>(
  create: ((runtime: SyncRuntime) => A) | null,
): A | undefined {
  const runtime = useSyncRuntime();
  const [actor, setActor] = useState<A>();
  useEffect(() => {
    if (runtime === null || create === null) return;
    const created = create(runtime);
    created.start();
    setActor(created);
    return () => {
      created.stop();
      setActor(undefined);
    };
  }, [runtime, create]);
  return actor;
}

/** Sends `loadMore` whenever the view is idle with more pages to fetch. */
function useLoadAll(actor: MapActor | ListActor | undefined, enabled: boolean): void {
  useEffect(() => {
    if (actor === undefined || !enabled) return;
    // Both machines share the paging shape; only the event's domain differs.
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
  }, [actor, enabled]);
}

/** The list or map machine's input: the name and only the options given. */
function pagedInput(
  name: string,
  mode: PagedOptions['mode'],
  ttl: PagedOptions['ttl'],
  pageSize: PagedOptions['pageSize'],
  order: PagedOptions['order'],
) {
  return {
    id: name,
    ...(mode === undefined ? {} : { mode }),
    ...(ttl === undefined ? {} : { ttl }),
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(order === undefined ? {} : { order }),
  };
}

/** Opens the map `name` (open_or_create unless told otherwise) for as long as the component lives. */
export function useSyncMap(name: string, options: PagedOptions = {}): MapActor | undefined {
  const { mode, ttl, pageSize, order, loadAll = false } = options;
  const create = useCallback(
    (runtime: SyncRuntime): MapActor =>
      createActor(runtime.machines.map, { input: pagedInput(name, mode, ttl, pageSize, order) }),
    [name, mode, ttl, pageSize, order],
  );
  const actor = useRuntimeActor(create);
  useLoadAll(actor, loadAll);
  return actor;
}

/** Opens the list `name`; send `list.loadMore` to fetch the next page. */
export function useSyncList(name: string, options: PagedOptions = {}): ListActor | undefined {
  const { mode, ttl, pageSize, order, loadAll = false } = options;
  const create = useCallback(
    (runtime: SyncRuntime): ListActor =>
      createActor(runtime.machines.list, { input: pagedInput(name, mode, ttl, pageSize, order) }),
    [name, mode, ttl, pageSize, order],
  );
  const actor = useRuntimeActor(create);
  useLoadAll(actor, loadAll);
  return actor;
}

/** Opens the document `name`; `data` is its content if this open creates it. */
export function useSyncDocument(
  name: string,
  options: ContainerOptions & { data?: JsonObject } = {},
): DocumentActor | undefined {
  const { mode, ttl, data } = options;
  const create = useCallback(
    (runtime: SyncRuntime): DocumentActor =>
      createActor(runtime.machines.document, {
        input: {
          id: name,
          ...(mode === undefined ? {} : { mode }),
          ...(ttl === undefined ? {} : { ttl }),
          ...(data === undefined ? {} : { data }),
        },
      }),
    // The initial data only matters on create; a new object each render must not re-open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [name, mode, ttl],
  );
  return useRuntimeActor(create);
}

/**
 * `useSelector` for an actor that may not exist yet: `fallback` until it does. Pass a module-level
 * selector and a primitive (or constant) fallback so the result keeps its reference between renders.
 */
export function useContainerSelector<L extends AnyActorLogic, T>(
  actor: Actor<L> | undefined,
  selector: (snapshot: SnapshotFrom<L>) => T,
  fallback: T,
): T {
  const select = useCallback(
    (snapshot: SnapshotFrom<L> | undefined) =>
      snapshot === undefined ? fallback : selector(snapshot),
    [selector, fallback],
  );
  return useSelector<Actor<L> | undefined, T>(actor, select);
}
