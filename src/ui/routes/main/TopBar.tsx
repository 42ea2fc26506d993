import { useSelector } from '@xstate/react';
import {
  selectSessionStatus,
  selectUserName,
  selectUserRole,
} from '../../../machines/session.selectors';
import { useSessionActor } from '../../app/actors';
import { PresenceSelector } from '../../presence/PresenceSelector';

const ROLE_LABELS = { admin: 'Admin', agent: 'Agent' } as const;

export function TopBar() {
  const session = useSessionActor();
  const name = useSelector(session, selectUserName);
  const role = useSelector(session, selectUserRole);
  const signingOut = useSelector(session, selectSessionStatus) === 'signingOut';
  return (
    <header className="topbar">
      <span className="topbar__brand">Switchboard</span>
      <PresenceSelector />
      <span className="topbar__placeholder" data-testid="softphone-placeholder">
        Softphone: coming soon
      </span>
      <span className="topbar__user" data-testid="current-user">
        <span className="topbar__name">{name}</span>
        {role !== null && (
          <span className="topbar__role" data-testid="current-role">
            {ROLE_LABELS[role]}
          </span>
        )}
      </span>
      <button
        type="button"
        className="button button--quiet"
        disabled={signingOut}
        onClick={() => session.send({ type: 'session.signOut' })}
      >
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </header>
  );
}
