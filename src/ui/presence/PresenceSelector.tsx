import { useSelector } from '@xstate/react';
import { useCallback, useId } from 'react';
import { SHARED_MAP } from '../../app/containers';
import { PRESENCE } from '../../contracts/objects';
import { PRESENCE_LABELS, presenceOf } from '../../domain/presence';
import { selectOwnStatus, selectPresenceFailing } from '../../machines/presence.selectors';
import { selectUser } from '../../machines/session.selectors';
import { selectMapItem } from '../../machines/syncMap.selectors';
import type { MapItem } from '../../machines/syncPorts';
import { useSessionActor } from '../app/actors';
import { useContainerSelector, useSyncMap } from '../sync/useSyncContainers';
import './presence.css';
import { setPresenceStatus } from '../../app/mutators/presence';
import { usePresence } from './usePresence';

/**
 * The top bar's status selector (Available / Away) for this browser's presence, with what
 * colleagues see when it is more than that: On a call, or Do not disturb (read from the person's own
 * presence item, as /users reads it).
 */
export function PresenceSelector() {
  const { actor, problem: startProblem } = usePresence();
  const status = useSelector(actor, (s) => (s ? selectOwnStatus(s) : null));
  const failing = useSelector(actor, (s) => (s ? selectPresenceFailing(s) : false));
  const identity = useSelector(useSessionActor(), selectUser)?.identity ?? '';
  const presenceMap = useSyncMap(PRESENCE.name, SHARED_MAP);
  const ownItem = useContainerSelector(
    presenceMap,
    useCallback((s) => selectMapItem(identity)(s), [identity]),
    undefined as MapItem | undefined,
  );
  const seen = ownItem ? presenceOf(ownItem.data) : null;
  const shown = seen === 'onCall' || seen === 'doNotDisturb' ? seen : null;
  const id = useId();
  const problem =
    startProblem ?? (failing ? 'Your status could not be shared; trying again.' : null);
  return (
    <span className="presence-selector" data-testid="presence-selector">
      <span
        className={`presence-dot presence-dot--${shown ?? status ?? 'offline'}`}
        aria-hidden="true"
      />
      {shown && (
        <span className="presence-selector__state" data-testid="presence-state" role="status">
          {PRESENCE_LABELS[shown]}
        </span>
      )}
      <label htmlFor={id} className="visually-hidden">
        Your status
      </label>
      <select
        id={id}
        className="presence-selector__select"
        value={status ?? 'available'}
        disabled={actor === undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(e) => {
          if (actor) setPresenceStatus(actor, e.target.value === 'away' ? 'away' : 'available');
        }}
      >
        <option value="available">Available</option>
        <option value="away">Away (no group calls)</option>
      </select>
      {problem && (
        <span id={`${id}-problem`} className="presence-selector__problem" role="status">
          {problem}
        </span>
      )}
    </span>
  );
}
