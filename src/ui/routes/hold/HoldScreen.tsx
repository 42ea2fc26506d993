import { useEffect, useMemo, useState } from 'react';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../machines/syncMap.selectors';
import type { MapItem } from '../../../machines/syncPorts';
import { useNow } from '../../components/clock';
import { Screen } from '../../components/Screen';
import { SHARED_MAP } from '../../../app/containers';
import { HOLDS, USERS } from '../../../contracts/objects';
import { userRecord } from '../../../contracts/records/user';
import { useDial } from '../../phone/usePhone';
import { useContainerSelector, useSyncMap } from '../../sync/useSyncContainers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import type { ParkedCall } from '../../../contracts/records/hold';
import { formatWaiting, holdFrom } from './hold';
import { focusNextCall } from '../../phone/focus';
import './hold.css';

const NO_ITEMS: readonly MapItem[] = [];

/**
 * /hold on the `holds` map, which the server keeps: every parked call, longest waiting first,
 * with who parked it and a running timer. Pick up dials `park:<callId>` from this tab's phone; the
 * server gives the call to the first picker (the row then leaves everyone's list) and tells any
 * later one, in their call card, that a colleague took it.
 */
export function Component() {
  const availability = useSyncAvailability();
  const dial = useDial();
  const holds = useSyncMap(HOLDS.name, SHARED_MAP);
  const users = useSyncMap(USERS.name, SHARED_MAP);
  const status = useContainerSelector(holds, selectMapStatus, 'opening');
  const items = useContainerSelector(holds, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(holds, selectMapError, null);
  const userItems = useContainerSelector(users, selectMapItems, NO_ITEMS);
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());

  const parked = useMemo(
    () =>
      items
        .map((item) => holdFrom(item.key, item.data))
        .filter((hold): hold is ParkedCall => hold !== null)
        .sort((a, b) => a.parkedAt - b.parkedAt || a.callId.localeCompare(b.callId)),
    [items],
  );
  const names = useMemo(
    () => new Map(userItems.map((u) => [u.key, userRecord.read(u.data)?.name ?? u.key])),
    [userItems],
  );
  const now = useNow(1000, parked.length > 0);

  const failed = availability.state === 'failed' || status === 'failed';
  const loading = !failed && status !== 'ready';

  // A pick-up that did not take the call (a colleague was first, our phone was busy) says why in
  // the call card; the row's button is ready again after a moment.
  useEffect(() => {
    if (pending.size === 0) return;
    const timer = setTimeout(() => setPending(new Set()), 5000);
    return () => clearTimeout(timer);
  }, [pending]);

  function pickUp(hold: ParkedCall) {
    if (!dial || pending.has(hold.callId)) return;
    setPending((p) => new Set(p).add(hold.callId));
    focusNextCall();
    dial(`park:${hold.callId}`, hold.caller);
  }

  return (
    <Screen title="On hold">
      {loading && (
        <p className="screen-status" role="status" data-testid="hold-loading">
          Loading parked calls…
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what="Parked calls"
          error={error}
          onRetry={holds ? () => holds.send({ type: 'map.retry' }) : null}
          testId="hold-error"
        />
      )}
      {!loading && !failed && parked.length === 0 && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-state__lead">No calls on hold</p>
          <p>Calls parked by anyone on the team show up here at once.</p>
        </div>
      )}
      {!loading && !failed && parked.length > 0 && !dial && (
        <p className="screen-status" role="status" data-testid="hold-no-phone">
          Your phone is not ready here, so calls cannot be picked up in this tab yet.
        </p>
      )}
      {!loading && !failed && parked.length > 0 && (
        <ul className="hold__list" aria-label="Calls on hold" data-testid="hold-list">
          {parked.map((hold) => {
            const busy = pending.has(hold.callId);
            return (
              <li
                key={hold.callId}
                className="hold__row"
                data-testid="hold-row"
                data-call={hold.callId}
              >
                <span className="hold__caller">{hold.caller}</span>
                <span className="hold__by">
                  Parked by {names.get(hold.parkedBy) ?? (hold.parkedBy || 'someone')}
                </span>
                <span
                  className="hold__timer"
                  role="timer"
                  aria-label={`Waiting ${formatWaiting(hold.parkedAt, now)}`}
                  data-testid="hold-timer"
                >
                  {formatWaiting(hold.parkedAt, now)}
                </span>
                <button
                  type="button"
                  className="button button--primary"
                  disabled={busy || !dial}
                  aria-label={`Pick up ${hold.caller}`}
                  onClick={() => pickUp(hold)}
                >
                  {busy ? 'Picking up…' : 'Pick up'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </Screen>
  );
}
