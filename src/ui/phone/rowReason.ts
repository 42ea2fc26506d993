/**
 * Why a call that did not connect ended, as its history row says: the sentence the backend wrote
 * there ("Bob declined the call.", "Bob is not taking calls (do not disturb).", "Nobody has extension
 * 199."). The Voice SDK only learns a status code (or a plain hang-up) when a call is refused, so
 * the card shows the row's sentence once the row is in `calls`, on every backend.
 */
import { useMemo } from 'react';
import { CALLS } from '../../contracts/objects';
import { selectListItems } from '../../machines/syncList.selectors';
import type { ListItem } from '../../machines/syncPorts';
import { callOf } from '../routes/history/call';
import { CALLS_PAGE } from '../routes/history/voicemail';
import { useContainerSelector, useSyncList } from '../sync/useSyncContainers';

const NO_ITEMS: readonly ListItem[] = [];

/**
 * The row's reason for call `callId` (or, for one this browser placed, its `attempt`: a call refused
 * before anything rang never tells the SDK its CallSid) once it ended without being answered; null
 * otherwise.
 */
export function useCallRowReason(
  callId: string,
  attempt: string | null,
  ended: boolean,
): string | null {
  const calls = useSyncList(CALLS.name, CALLS_PAGE);
  const items = useContainerSelector(calls, selectListItems, NO_ITEMS);
  return useMemo(() => {
    if (!ended) return null;
    for (const item of items) {
      const row = callOf(item);
      if (!row || (row.callSid !== callId && (attempt === null || row.attempt !== attempt)))
        continue;
      return row.outcome !== 'answered' && row.reason !== '' ? row.reason : null;
    }
    return null;
  }, [items, callId, attempt, ended]);
}
