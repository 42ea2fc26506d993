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
import type { ListItem } from '../../../machines/syncPorts';
import { Screen } from '../../components/Screen';
import { useContainerSelector, useSyncList, type ListActor } from '../../sync/useSyncContainers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import { callOf, filterFrom, FILTERS, passes, type Filter } from './call';
import { CallList, type RowContext } from './CallList';
import { useDial } from '../../phone/usePhone';
import './history.css';
import { CALLS } from '../../../contracts/objects';
import { markAllVoicemailHeard, markVoicemailHeard } from '../../../app/mutators/settings';
import { useNames } from '../../names/useNames';
import { CALLS_PAGE, useVoicemailAccess } from './voicemail';

const NO_ITEMS: readonly ListItem[] = [];

const selectPageFailed = (snapshot: SnapshotFrom<ListActor>) =>
  snapshot.matches({ ready: 'pageFailed' });

const FILTER_LABEL: Record<Filter, string> = {
  all: 'All',
  inbound: 'Inbound',
  outbound: 'Outbound',
  missed: 'Missed',
  voicemail: 'Voicemail',
};

const EMPTY_LABEL: Record<Filter, string> = {
  all: 'No calls yet.',
  inbound: 'No inbound calls.',
  outbound: 'No outbound calls.',
  missed: 'No missed calls.',
  voicemail: 'No voicemail messages.',
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
  const calls = useSyncList(CALLS.name, CALLS_PAGE);
  const status = useContainerSelector(calls, selectListStatus, 'opening');
  const items = useContainerSelector(calls, selectListItems, NO_ITEMS);
  const loadingPage = useContainerSelector(calls, selectListLoadingPage, false);
  const hasMore = useContainerSelector(calls, selectListHasMore, false);
  const error = useContainerSelector(calls, selectListError, null);
  const pageFailed = useContainerSelector(calls, selectPageFailed, false);

  const dial = useDial();
  const names = useNames();
  const { identity: myIdentity, canHear, isUnread, settings } = useVoicemailAccess();
  const shown = useMemo(
    () => items.map(callOf).filter((call) => passes(call, filter, myIdentity)),
    [items, filter, myIdentity],
  );
  const unread = useMemo(() => shown.filter(isUnread).length, [shown, isUnread]);
  const loadMore = useCallback(() => calls?.send({ type: 'list.loadMore' }), [calls]);
  const onHeard = useCallback(
    (id: string) => {
      // A refused write only leaves the mark on; the message itself played.
      if (settings) void markVoicemailHeard(settings, id).catch(() => {});
    },
    [settings],
  );
  const context = useMemo<RowContext>(
    () => ({ me: myIdentity, names, onCall: dial, canHear, isUnread, onHeard }),
    [myIdentity, names, dial, canHear, isUnread, onHeard],
  );

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
          {unread > 0 && (
            <p className="history__unread" data-testid="history-unread">
              {unread === 1 ? '1 new voicemail message' : `${unread} new voicemail messages`}{' '}
              <button
                type="button"
                className="button button--quiet"
                disabled={!settings}
                onClick={() =>
                  settings && void markAllVoicemailHeard(settings, Date.now()).catch(() => {})
                }
              >
                Mark all as heard
              </button>
            </p>
          )}
          <CallList calls={shown} loaded={items.length} onNearEnd={loadMore} context={context} />
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
