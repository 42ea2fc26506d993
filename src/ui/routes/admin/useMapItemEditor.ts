/**
 * Editing one item of a map (a ring group in `groups`, an announcement in `guidance`) through the
 * editor machine: the item is read with its revision once the map is open; a save goes through
 * the screen's mutator against the stored data the edit started from (the server saves it only
 * over that: PUT /api/groups/:id, /api/announcements/:id), and when
 * another admin saved first the machine holds both versions for the person to choose; someone
 * else's save arriving through the map is followed while nothing is unsaved, kept aside otherwise.
 */
import { useMemo, useState } from 'react';
import type { SaveAnswer } from '../../../app/mutators/admin/written';
import type { JsonObject } from '../../../contracts/record';
import { humanMessage, toSyncFailure } from '../../../contracts/sync-errors';
import { fetchItem } from '../../../app/mutators/core';
import { selectMapItem, selectMapStatus } from '../../../machines/syncMap.selectors';
import { useContainerSelector, type MapActor } from '../../sync/useSyncContainers';
import type { EditorActor } from './EditorFrame';
import { useStoredEditor, type Stored, type StoredEditorSpec } from './editing';

export interface MapItemEditorSpec<V> extends StoredEditorSpec<V> {
  /** The open map (undefined until it is). */
  map: MapActor | undefined;
  key: string;
  /** The mutator: writes `value` as item `key` only if its stored data is still `base`. */
  save: (key: string, base: JsonObject, value: V) => Promise<SaveAnswer>;
  /** What the item is, for messages: "group" ("The group could not be loaded", "this group"). */
  thing: string;
  /** Why there is nothing to edit: "This ring group does not exist (it may have been deleted)." */
  missing: string;
}

async function readItem(
  map: MapActor,
  key: string,
  { thing, missing }: { thing: string; missing: string },
): Promise<Stored> {
  try {
    return await fetchItem(map, key);
  } catch (error) {
    const failure = toSyncFailure(error);
    throw new Error(
      failure.status === 404
        ? missing
        : `The ${thing} could not be loaded: ${humanMessage(failure)}`,
    );
  }
}

/**
 * An editor actor for item `key` of `map`, started for as long as the component lives; null until
 * the map is open (the editor reads through the map's machine, and stays once started).
 */
export function useMapItemEditor<V>(spec: MapItemEditorSpec<V>): EditorActor | null {
  const { map, key } = spec;
  const status = useContainerSelector(map, selectMapStatus, 'opening');
  const [opened, setOpened] = useState(false);
  if (!opened && status === 'ready') setOpened(true);
  const target = useMemo(() => (map && opened ? { map, key } : null), [map, key, opened]);
  const selectItem = useMemo(() => selectMapItem(key), [key]);
  const item = useContainerSelector(map, selectItem, undefined);
  const stored = useMemo(
    () => (item ? { data: item.data, revision: item.revision } : null),
    [item],
  );
  return useStoredEditor(
    target,
    spec,
    (open) => ({
      read: () => readItem(open.map, open.key, spec),
      save: (base, value) => spec.save(open.key, base, value),
      failed: (error) => (error instanceof Error ? error : new Error(String(error))),
      first: `Another admin saved this ${spec.thing} first.`,
      deleted: `Another admin deleted this ${spec.thing} while you were editing it.`,
    }),
    stored,
  );
}
