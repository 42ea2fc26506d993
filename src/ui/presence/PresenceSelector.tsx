import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { selectOwnStatus, selectPresenceFailing } from '../../machines/presence.selectors';
import './presence.css';
import { setPresenceStatus } from '../../app/mutators/presence';
import { usePresence } from './usePresence';

/** The top bar's status selector (Available / Away) for this browser's presence. */
export function PresenceSelector() {
  const { actor, problem: startProblem } = usePresence();
  const status = useSelector(actor, (s) => (s ? selectOwnStatus(s) : null));
  const failing = useSelector(actor, (s) => (s ? selectPresenceFailing(s) : false));
  const id = useId();
  const problem =
    startProblem ?? (failing ? 'Your status could not be shared; trying again.' : null);
  return (
    <span className="presence-selector" data-testid="presence-selector">
      <span className={`presence-dot presence-dot--${status ?? 'offline'}`} aria-hidden="true" />
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
        <option value="away">Away</option>
      </select>
      {problem && (
        <span id={`${id}-problem`} className="presence-selector__problem" role="status">
          {problem}
        </span>
      )}
    </span>
  );
}
