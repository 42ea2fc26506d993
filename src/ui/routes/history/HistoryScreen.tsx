import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { SnapshotFrom } from 'xstate';
import {
  selectListError,
  selectListHasMore,
  selectListItems,
  selectListLoadingPage,
  selectListStatus,
} from '../../../machines/syncList.selectors';
import type { ListItem, MapItem } from '../../../machines/syncPorts';
import { selectMapItems } from '../../../machines/syncMap.selectors';
import { Screen } from '../../components/Screen';
import {
  useContainerSelector,
  useSyncList,
  useSyncMap,
  type ListActor,
} from '../../sync/containers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import { callOf, filterFrom, FILTERS, passes, type Filter } from './call';
import { CallList } from './CallList';
import { useDial } from '../../phone/phone';
import { useSessionActor } from '../../app/actors';
import { selectUser } from '../../../machines/session.selectors';
import { useSelector } from '@xstate/react';
import './history.css';
import { groupRecord } from '../../../contracts/records/group';
import { CALLS, GROUPS } from '../../../contracts/objects';
import { SHARED_MAP } from '../../../app/containers';

const NO_ITEMS: readonly ListItem[] = [];
const NO_GROUPS: readonly MapItem[] = [];

const selectPageFailed = (snapshot: SnapshotFrom<ListActor>) =>
  snapshot.matches({ ready: 'pageFailed' });
const PAGE_SIZE = 50;

const FILTER_LABEL: Record<Filter, string> = {
  all: 'All',
  inbound: 'Inbound',
  outbound: 'Outbound',
  missed: 'Missed',
};

const EMPTY_LABEL: Record<Filter, string> = {
  all: 'No calls yet.',
  inbound: 'No inbound calls.',
  outbound: 'No outbound calls.',
  missed: 'No missed calls.',
};

/**
 * /history on the `calls` list: newest first (descending index), 50 per page as you scroll,
 * filtered by the `filter` query parameter so a filtered view can be shared as a link. Calls
 * written while the screen is open appear at the top.
 */
export function Component() {
  const [params, setParams] = useSearchParams();
  const filter = filterFrom(params.get('filter'));
  const availability = useSyncAvailability();
  const calls = useSyncList(CALLS.name, { order: 'desc', pageSize: PAGE_SIZE });
  const status = useContainerSelector(calls, selectListStatus, 'opening');
  const items = useContainerSelector(calls, selectListItems, NO_ITEMS);
  const loadingPage = useContainerSelector(calls, selectListLoadingPage, false);
  const hasMore = useContainerSelector(calls, selectListHasMore, false);
  const error = useContainerSelector(calls, selectListError, null);
  const pageFailed = useContainerSelector(calls, selectPageFailed, false);

  const session = useSessionActor();
  const me = useSelector(session, selectUser);
  const dial = useDial();
  const myIdentity = me?.identity ?? null;
  const shown = useMemo(
    () => items.map(callOf).filter((call) => passes(call, filter, myIdentity)),
    [items, filter, myIdentity],
  );
  const loadMore = useCallback(() => calls?.send({ type: 'list.loadMore' }), [calls]);
  // Voicemail plays for the group's members and admins (the server refuses anyone else).
  const groups = useSyncMap(GROUPS.name, SHARED_MAP);
  const groupItems = useContainerSelector(groups, selectMapItems, NO_GROUPS);
  const admin = me?.role === 'admin';
  // The groups whose voicemail I may hear, worked out once per change, not per row.
  const mine = useMemo(
    () =>
      new Set(
        groupItems
          .filter(
            (g) => myIdentity !== null && groupRecord.read(g.data).members.includes(myIdentity),
          )
          .map((g) => g.key),
      ),
    [groupItems, myIdentity],
  );
  const canHear = useCallback((groupId: string) => admin || mine.has(groupId), [admin, mine]);

  const firstLoad =
    status === 'opening' || (status === 'ready' && loadingPage && items.length === 0);
  const failed =
    availability.state === 'failed' || status === 'failed' || status === 'removed' || pageFailed;

  return (
    <Screen title="Call history">
      <div className="history__filters" role="group" aria-label="Show">
        {FILTERS.map((value) => (
          <button
            key={value}
            type="button"
            className={`history__filter ${value === filter ? 'history__filter--active' : ''}`}
            aria-pressed={value === filter}
            onClick={() => setParams(value === 'all' ? {} : { filter: value })}
          >
            {FILTER_LABEL[value]}
          </button>
        ))}
      </div>
      {failed && (
        <LoadFailure
          availability={availability}
          what="Calls"
          error={error}
          removed={
            status === 'removed'
              ? 'The call history was removed. Reload the page to start a new one.'
              : null
          }
          onRetry={calls ? () => calls.send({ type: 'list.retry' }) : null}
        />
      )}
      {firstLoad && !failed ? (
        <p role="status" data-testid="history-loading">
          Loading calls…
        </p>
      ) : shown.length === 0 && !hasMore && !loadingPage && !failed ? (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-state__lead">{EMPTY_LABEL[filter]}</p>
          <p>Every finished call is added here for the whole team, newest first.</p>
        </div>
      ) : (
        <>
          <CallList
            calls={shown}
            loaded={items.length}
            onNearEnd={loadMore}
            me={myIdentity}
            onCall={dial}
            canHear={canHear}
          />
          <p className="history__more" role="status" data-testid="history-more">
            {loadingPage
              ? 'Loading more calls…'
              : hasMore
                ? ''
                : `${shown.length.toLocaleString()} calls, all loaded`}
          </p>
        </>
      )}
    </Screen>
  );
}
