import { useMemo } from 'react';
import { SHARED_MAP } from '../../app/containers';
import { CONTACTS, GROUPS, USERS } from '../../contracts/objects';
import { selectMapItems } from '../../machines/syncMap.selectors';
import type { MapItem } from '../../machines/syncPorts';
import { useContainerSelector, useSyncMap } from '../sync/useSyncContainers';
import { useTeamCountry } from '../components/useTeamCountry';
import { namesFrom, type Names } from './names';

const NONE: readonly MapItem[] = [];

/**
 * The team's names (colleagues, ring groups, contacts), from the maps the workspace holds; while a
 * map is still opening its names are missing and the address itself is shown. Numbers read in the
 * team's country.
 */
export function useNames(): Names {
  const users = useContainerSelector(useSyncMap(USERS.name, SHARED_MAP), selectMapItems, NONE);
  const groups = useContainerSelector(useSyncMap(GROUPS.name, SHARED_MAP), selectMapItems, NONE);
  const contacts = useContainerSelector(
    useSyncMap(CONTACTS.name, SHARED_MAP),
    selectMapItems,
    NONE,
  );
  const country = useTeamCountry();
  return useMemo(
    () => namesFrom(users, groups, contacts, country),
    [users, groups, contacts, country],
  );
}
