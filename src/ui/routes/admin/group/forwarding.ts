import { FORWARDING } from '../../../../contracts/objects';
import type { ListItem } from '../../../../machines/syncPorts';
import { useSyncList, type ListActor } from '../../../sync/useSyncContainers';

export const NO_ITEMS: readonly ListItem[] = [];

/** A group's forwarding list, whole and live (it was made with the group). */
export function useForwardingList(groupId: string): ListActor | undefined {
  return useSyncList(FORWARDING.name(groupId), {
    mode: 'open_existing',
    pageSize: 100,
    loadAll: true,
  });
}
