import { useMemo } from 'react';
import { SHARED_MAP } from '../../../app/containers';
import { HOLDS } from '../../../contracts/objects';
import { selectMapItems } from '../../../machines/syncMap.selectors';
import type { MapItem } from '../../../machines/syncPorts';
import { useContainerSelector, useSyncMap } from '../../sync/useSyncContainers';
import { holdFrom } from '../hold/hold';

const NO_ITEMS: readonly MapItem[] = [];

/**
 * How many calls wait on /hold (the ones it lists), beside the nav's Hold entry; nothing when none.
 * The number is shown, and read out as words in the link's name ("Hold, 2 calls waiting").
 */
export function HoldCount() {
  const holds = useSyncMap(HOLDS.name, SHARED_MAP);
  const items = useContainerSelector(holds, selectMapItems, NO_ITEMS);
  const count = useMemo(
    () => items.filter((item) => holdFrom(item.key, item.data) !== null).length,
    [items],
  );
  if (count === 0) return null;
  return (
    <>
      <span className="nav__count" aria-hidden="true" data-testid="hold-count">
        {count}
      </span>
      <span className="visually-hidden">
        , {count === 1 ? '1 call waiting' : `${count} calls waiting`}
      </span>
    </>
  );
}
