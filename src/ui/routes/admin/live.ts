/**
 * What the admin screens read live, each the whole of a catalogue map (a team has tens of groups,
 * announcements and files, not thousands), decoded through the object's record: the ring groups,
 * the team, the announcements, the audio files; and the voices the server speaks.
 */
import { useEffect, useMemo, useState } from 'react';
import { API } from '../../../contracts/api';
import { ANNOUNCEMENTS, AUDIO, GROUPS, USERS, type NamedObject } from '../../../contracts/objects';
import type { AnyObjectSchema, RecordContract } from '../../../contracts/record';
import type { Announcement } from '../../../contracts/records/announcement';
import type { AudioFile } from '../../../contracts/records/audio';
import type { Group } from '../../../contracts/records/group';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../machines/syncMap.selectors';
import type { MapItem } from '../../../machines/syncPorts';
import type { ContainerStatus } from '../../../machines/syncContainer.selectors';
import type { SyncFailure } from '../../../contracts/sync-errors';
import { useApiClient } from '../../app/actors';
import { useContainerSelector, useSyncMap, type MapActor } from '../../sync/useSyncContainers';

const NO_ITEMS: readonly MapItem[] = [];

/** A catalogue map, live: its actor, status, error, raw items and its items read by key. */
export interface CatalogueMap<V> {
  actor: MapActor | undefined;
  status: ContainerStatus;
  error: SyncFailure | null;
  items: readonly MapItem[];
  byKey: ReadonlyMap<string, V>;
}

/** The map `object`, live, its items read through its record (one it cannot read is left out). */
export function useCatalogueMap<T>(
  object: NamedObject<'map', RecordContract<AnyObjectSchema, T>>,
): CatalogueMap<NonNullable<T>> {
  const actor = useSyncMap(object.name, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(actor, selectMapError, null);
  const byKey = useMemo(() => {
    const read = new Map<string, NonNullable<T>>();
    for (const i of items) {
      const value = object.record.read(i.data);
      if (value !== null && value !== undefined) read.set(i.key, value);
    }
    return read;
  }, [items, object]);
  return { actor, status, error, items, byKey };
}

/** Every ring group, live, by id. */
export function useGroups(): CatalogueMap<Group> & { groups: ReadonlyMap<string, Group> } {
  const map = useCatalogueMap(GROUPS);
  return { ...map, groups: map.byKey };
}

/** Every announcement, live, by id. */
export function useAnnouncements(): CatalogueMap<Announcement> {
  return useCatalogueMap(ANNOUNCEMENTS);
}

/** The uploaded audio files, live, by id. */
export function useAudioFiles(): CatalogueMap<AudioFile> {
  return useCatalogueMap(AUDIO);
}

export interface Person {
  identity: string;
  name: string;
  /** Their extension, when the directory has one. */
  extension?: string | null;
}

/**
 * How a person reads in a list of people to pick from: their name, and their sign-in address only
 * when someone else in `people` has the same name (the one way to tell them apart).
 */
export function personLabel(person: Person, people: readonly Person[]): string {
  const twin = people.some((p) => p.identity !== person.identity && p.name === person.name);
  return twin ? `${person.name} (${person.identity})` : person.name;
}

/** The team, live, as people a group can ring, sorted by name. */
export function usePeople() {
  const actor = useSyncMap(USERS.name, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const people = useMemo<Person[]>(
    () =>
      items
        .map((i) => {
          const user = USERS.record.read(i.data);
          return {
            identity: i.key,
            name: user?.name || i.key,
            extension: user?.extension ?? null,
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name)),
    [items],
  );
  return { status, people };
}

export interface Language {
  code: string;
  name: string;
}

/** The languages the server's text to speech has a voice for (GET /api/guidance/languages). */
export function useLanguages() {
  const api = useApiClient();
  const [languages, setLanguages] = useState<Language[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    api.call(API.languages).then(
      (answer) => {
        if (live) setLanguages(answer.languages);
      },
      (e: unknown) => {
        if (live) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [api, attempt]);
  return {
    languages,
    error,
    retry: () => {
      setError(null);
      setAttempt((n) => n + 1);
    },
  };
}
