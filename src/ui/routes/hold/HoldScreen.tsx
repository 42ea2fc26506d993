import { useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import { selectUser } from '../../../machines/session.selectors';
import { ask } from '../../../machines/syncCommand';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../machines/syncMap.selectors';
import { humanMessage, toSyncFailure } from '../../../sync/errors';
import type { MapItem } from '../../../sync/ports';
import { useSessionActor, useToastActor } from '../../app/actors';
import { useNow } from '../../components/clock';
import { Screen } from '../../components/Screen';
import { HOLDS_MAP, USERS_MAP } from '../../presence/maps';
import { useContainerSelector, useSyncMap, type MapActor } from '../../sync/containers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import { claimHold, TAKEN_MESSAGE, type ClaimTarget } from './claim';
import { formatWaiting, holdFrom, type Hold } from './hold';
import './hold.css';

const NO_ITEMS: readonly MapItem[] = [];

/** The claim's two commands, sent through the holds map actor (validated like any command). */
function claimTarget(map: MapActor): ClaimTarget {
  return {
    mutate: (key, mutator, metadata) =>
      ask(map, { type: 'map.mutate', key, mutator, ...metadata }, 'map'),
    remove: (key) => ask(map, { type: 'map.remove', key }, 'map'),
  };
}

export const pickedUpMessage = (caller: string): string =>
  `Picked up ${caller}. Audio connects when the softphone arrives.`;

/**
 * /hold on the `holds` map: every parked call, longest waiting first, with who parked it and a
 * running timer. Pick up claims the call with a revision precondition (claim.ts): of colleagues
 * clicking at once exactly one gets it, the others are told kindly, and the call leaves everyone's
 * list.
 */
export function Component() {
  const availability = useSyncAvailability();
  const session = useSessionActor();
  const me = useSelector(session, selectUser);
  const toast = useToastActor();
  const holds = useSyncMap(HOLDS_MAP, { pageSize: 100, loadAll: true });
  const users = useSyncMap(USERS_MAP, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(holds, selectMapStatus, 'opening');
  const items = useContainerSelector(holds, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(holds, selectMapError, null);
  const userItems = useContainerSelector(users, selectMapItems, NO_ITEMS);
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());

  const parked = useMemo(
    () =>
      items
        .map((item) => holdFrom(item.key, item.data))
        .filter((hold): hold is Hold => hold !== null)
        .sort((a, b) => a.parkedAt - b.parkedAt || a.callId.localeCompare(b.callId)),
    [items],
  );
  const names = useMemo(
    () =>
      new Map(userItems.map((u) => [u.key, typeof u.data.name === 'string' ? u.data.name : u.key])),
    [userItems],
  );
  const now = useNow(1000, parked.length > 0);

  const failed = availability.state === 'failed' || status === 'failed';
  const loading = !failed && status !== 'ready';

  async function pickUp(hold: Hold) {
    if (!holds || !me || pending.has(hold.callId)) return;
    setPending((p) => new Set(p).add(hold.callId));
    try {
      const outcome = await claimHold(claimTarget(holds), hold.callId, me.identity);
      toast.send(
        outcome === 'won'
          ? { type: 'toast.show', message: pickedUpMessage(hold.caller), toastType: 'success' }
          : { type: 'toast.show', message: TAKEN_MESSAGE, toastType: 'info' },
      );
    } catch (e) {
      toast.send({
        type: 'toast.show',
        message: `The call could not be picked up. ${humanMessage(toSyncFailure(e))}`,
        toastType: 'error',
      });
    } finally {
      setPending((p) => {
        const next = new Set(p);
        next.delete(hold.callId);
        return next;
      });
    }
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
      {!loading && !failed && parked.length > 0 && (
        <ul className="hold__list" aria-label="Calls on hold" data-testid="hold-list">
          {parked.map((hold) => {
            const claimedElsewhere = hold.claimedBy !== null && hold.claimedBy !== me?.identity;
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
                  disabled={busy || claimedElsewhere || !holds}
                  aria-label={`Pick up ${hold.caller}`}
                  onClick={() => void pickUp(hold)}
                >
                  {busy ? 'Picking up…' : claimedElsewhere ? 'Being picked up…' : 'Pick up'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </Screen>
  );
}
