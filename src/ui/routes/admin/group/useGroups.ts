import { useMemo } from 'react';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../../machines/syncMap.selectors';
import type { MapItem } from '../../../../machines/syncPorts';
import { USERS_MAP } from '../../../presence/maps';
import { useContainerSelector, useSyncMap } from '../../../sync/containers';
import type { Person } from './GroupForm';
import type { Group } from '../../../../contracts/records/group';
import { groupRecord } from '../../../../contracts/records/group';

const NO_ITEMS: readonly MapItem[] = [];
export const GROUPS_MAP = 'groups';

/** Every ring group, live, by id (the whole map: a team has tens of groups, not thousands). */
export function useGroups() {
  const actor = useSyncMap(GROUPS_MAP, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(actor, selectMapError, null);
  const groups = useMemo(
    () => new Map<string, Group>(items.map((i) => [i.key, groupRecord.read(i.data)])),
    [items],
  );
  return { actor, status, error, groups, items };
}

/** The team, live, as people a group can ring, sorted by name. */
export function usePeople() {
  const actor = useSyncMap(USERS_MAP, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const people = useMemo<Person[]>(
    () =>
      items
        .map((i) => ({
          identity: i.key,
          name: typeof i.data.name === 'string' && i.data.name !== '' ? i.data.name : i.key,
          extension: typeof i.data.extension === 'string' ? i.data.extension : null,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    [items],
  );
  return { status, people };
}
