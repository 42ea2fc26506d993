/**
 * Hooks that hand a component a synced container's actor, opened through the workspace's Sync
 * scope: containers are shared (one actor per name and options, counted) and stop once the last
 * holder lets go. Components read with `useSelector(actor, selectX)` (selectors in
 * src/machines/*.selectors.ts, or {@link useContainerSelector} while the actor may still be
 * undefined) and write through the named mutators of src/app/mutators/.
 */
import { useSelector } from '@xstate/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Actor, AnyActorLogic, SnapshotFrom } from 'xstate';
import type {
  ActorOf,
  DocumentOptions,
  OpenKind,
  OptionsOf,
  PagedOptions,
} from '../../app/containers';
import { useSyncRuntime, useSyncScope } from './SyncProvider';

export type {
  ContainerOptions,
  DocumentActor,
  ListActor,
  MapActor,
  PagedOptions,
} from '../../app/containers';

/**
 * Holds the container `name` while the component lives (and the runtime is up), through the
 * scope; undefined until then. Options are compared by value, so an object written inline is fine.
 */
function useContainer<K extends OpenKind>(
  kind: K,
  name: string,
  options: OptionsOf<K>,
): ActorOf<K> | undefined {
  const scope = useSyncScope();
  const runtime = useSyncRuntime();
  const [actor, setActor] = useState<ActorOf<K>>();
  // A document's initial data only matters on create: a new object each render must not re-open.
  const { data, ...keyed } = options as OptionsOf<K> & { data?: unknown };
  const initial = useRef(data);
  initial.current = data;
  const key = JSON.stringify(keyed);
  useEffect(() => {
    if (runtime === null) return;
    const given = JSON.parse(key) as OptionsOf<K>;
    const withData = initial.current === undefined ? given : { ...given, data: initial.current };
    const lease = scope.open(kind, name, withData);
    if (lease === null) return;
    setActor(lease.actor);
    return () => {
      lease.release();
      setActor(undefined);
    };
  }, [scope, runtime, kind, name, key]);
  return actor;
}

/** Opens the map `name` (open_or_create unless told otherwise) for as long as the component lives. */
export function useSyncMap(name: string, options: PagedOptions = {}): ActorOf<'map'> | undefined {
  return useContainer('map', name, options);
}

/** Opens the list `name`; send `list.loadMore` to fetch the next page. */
export function useSyncList(name: string, options: PagedOptions = {}): ActorOf<'list'> | undefined {
  return useContainer('list', name, options);
}

/** Opens the document `name`; `data` is its content if this open creates it. */
export function useSyncDocument(
  name: string,
  options: DocumentOptions = {},
): ActorOf<'document'> | undefined {
  return useContainer('document', name, options);
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
