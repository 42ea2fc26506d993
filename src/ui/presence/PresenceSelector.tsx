import { useSelector } from '@xstate/react';
import { useEffect, useId, useState } from 'react';
import type { PresenceStatus } from '../../machines/presence.machine';
import { selectOwnStatus, selectPresenceFailing } from '../../machines/presence.selectors';
import { selectSessionStatus, selectUser } from '../../machines/session.selectors';
import { useApiClient, useSessionActor } from '../app/actors';
import { useSyncMap } from '../sync/containers';
import { PRESENCE_MAP } from './maps';
import './presence.css';
import { fetchPresenceSettings, type PresenceSettings } from './settings';
import { usePresenceActor } from './usePresenceActor';

/**
 * The top bar's status selector (Available / Away). Mounting it starts this browser's presence
 * heartbeat; signing out withdraws the item so colleagues see Offline at once. A closed browser
 * simply stops refreshing, and its item lapses with the ttl.
 */
export function PresenceSelector() {
  const api = useApiClient();
  const session = useSessionActor();
  const user = useSelector(session, selectUser);
  const signingOut = useSelector(session, selectSessionStatus) === 'signingOut';
  const [settings, setSettings] = useState<PresenceSettings | null>(null);
  const [settingsError, setSettingsError] = useState<string | null>(null);
  const map = useSyncMap(PRESENCE_MAP);
  const presence = usePresenceActor(map, user?.identity ?? null, settings);
  const status = useSelector(presence, (s) => (s ? selectOwnStatus(s) : null));
  const failing = useSelector(presence, (s) => (s ? selectPresenceFailing(s) : false));
  const id = useId();

  useEffect(() => {
    let cancelled = false;
    fetchPresenceSettings(api).then(
      (value) => !cancelled && setSettings(value),
      (error: unknown) =>
        !cancelled && setSettingsError(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      cancelled = true;
    };
  }, [api]);

  useEffect(() => {
    if (signingOut) presence?.send({ type: 'presence.withdraw' });
  }, [signingOut, presence]);

  const shown: PresenceStatus | null = status;
  const problem =
    settingsError ?? (failing ? 'Your status could not be shared; trying again.' : null);
  return (
    <span className="presence-selector" data-testid="presence-selector">
      <span className={`presence-dot presence-dot--${shown ?? 'offline'}`} aria-hidden="true" />
      <label htmlFor={id} className="visually-hidden">
        Your status
      </label>
      <select
        id={id}
        className="presence-selector__select"
        value={shown ?? 'available'}
        disabled={presence === undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(e) =>
          presence?.send({
            type: 'presence.setStatus',
            status: e.target.value === 'away' ? 'away' : 'available',
          })
        }
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
