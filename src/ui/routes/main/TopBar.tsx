import { useSelector } from '@xstate/react';
import { useMemo } from 'react';
import {
  selectSessionStatus,
  selectUser,
  selectUserName,
  selectUserRole,
} from '../../../machines/session.selectors';
import { selectMapItem } from '../../../machines/syncMap.selectors';
import { SHARED_MAP } from '../../../app/containers';
import { USERS } from '../../../contracts/objects';
import { userRecord } from '../../../contracts/records/user';
import { useContainerSelector, useSyncMap } from '../../sync/useSyncContainers';
import { useSessionActor } from '../../app/actors';
import { PresenceSelector } from '../../presence/PresenceSelector';

const ROLE_LABELS = { admin: 'Admin', agent: 'Agent' } as const;

export function TopBar() {
  const session = useSessionActor();
  const identity = useSelector(session, selectUser)?.identity ?? '';
  // The directory's name (live: a rename in /setting shows at once), else the session's.
  const users = useSyncMap(USERS.name, SHARED_MAP);
  const select = useMemo(() => selectMapItem(identity), [identity]);
  const listed = useContainerSelector(users, select, undefined);
  const signedInName = useSelector(session, selectUserName);
  const name = (listed && userRecord.read(listed.data)?.name) ?? signedInName;
  const role = useSelector(session, selectUserRole);
  const signingOut = useSelector(session, selectSessionStatus) === 'signingOut';
  return (
    <header className="topbar">
      <span className="topbar__brand">Switchboard</span>
      <PresenceSelector />
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
