import { useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import { ApiError } from '../../../io/api/client';
import { selectUser } from '../../../machines/session.selectors';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../machines/syncMap.selectors';
import type { MapItem } from '../../../machines/syncPorts';
import { useApiClient, useSessionActor, useToastActor } from '../../app/actors';
import { Screen } from '../../components/Screen';
import { SHARED_MAP } from '../../../app/containers';
import { removeUser, setRole } from '../../../app/mutators/users';
import { PRESENCE, USERS } from '../../../contracts/objects';
import '../../presence/presence.css';
import { PRESENCE_LABELS } from '../../../domain/presence';
import { useContainerSelector, useSyncMap } from '../../sync/useSyncContainers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import { presenceCounts, teamDirectory, type TeamMember } from './directory';
import { ExtensionField } from './ExtensionField';
import { RemoveUserDialog } from './RemoveUserDialog';
import { SignInCodeDialog } from './SignInCodeDialog';
import { roleChangedMessage } from './roles';
import { useDial } from '../../phone/usePhone';
import './users.css';
import type { Role } from '../../../contracts/roles';

const NO_ITEMS: readonly MapItem[] = [];

/**
 * /users: the team directory from the `users` map with each person's live presence from the
 * `presence` map (Offline once a browser's item lapses), and everyone's extension. Admins change
 * roles and extensions here; the change goes through the server and comes back to every open directory through the `users` map.
 */
export function Component() {
  const availability = useSyncAvailability();
  const session = useSessionActor();
  const me = useSelector(session, selectUser);
  const users = useSyncMap(USERS.name, SHARED_MAP);
  const presence = useSyncMap(PRESENCE.name, SHARED_MAP);
  const usersStatus = useContainerSelector(users, selectMapStatus, 'opening');
  const userItems = useContainerSelector(users, selectMapItems, NO_ITEMS);
  const usersError = useContainerSelector(users, selectMapError, null);
  const presenceStatus = useContainerSelector(presence, selectMapStatus, 'opening');
  const presenceItems = useContainerSelector(presence, selectMapItems, NO_ITEMS);

  const presenceReady = presenceStatus === 'ready';
  const members = useMemo(
    () =>
      teamDirectory(
        userItems,
        presenceReady ? new Map(presenceItems.map((i) => [i.key, i])) : null,
      ),
    [userItems, presenceItems, presenceReady],
  );
  const counts = presenceCounts(members);
  // The directory's own record of my role wins: it follows a change made by another admin live.
  const mine = members.find((m) => m.identity === me?.identity);
  const isAdmin = (mine?.role ?? me?.role) === 'admin';

  const api = useApiClient();
  const toast = useToastActor();
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [codeFor, setCodeFor] = useState<TeamMember | null>(null);

  const failed = availability.state === 'failed' || usersStatus === 'failed';
  const loading = !failed && usersStatus !== 'ready';

  return (
    <Screen title="Users">
      {loading && (
        <p className="screen-status" role="status" data-testid="users-loading">
          Loading the team…
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what="The team"
          error={usersError}
          onRetry={users ? () => users.send({ type: 'map.retry' }) : null}
          testId="users-error"
        />
      )}
      {!loading && !failed && members.length === 0 && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-state__lead">No one is on the team yet.</p>
          <p>People appear here after they sign in for the first time.</p>
        </div>
      )}
      {!loading && !failed && members.length > 0 && (
        <>
          <p className="screen-status" data-testid="users-summary">
            {members.length} {members.length === 1 ? 'person' : 'people'}
            {presenceReady
              ? ` · ${counts.available} available · ${counts.onCall} on a call · ${counts.away} away` +
                (counts.doNotDisturb > 0 ? ` · ${counts.doNotDisturb} on do not disturb` : '')
              : ' · checking who is available…'}
          </p>
          <p className="screen-status" data-testid="users-presence-note">
            People who are away or on do not disturb are left out of ring group calls; do not
            disturb also turns direct calls away.
          </p>
          <table className="table users__table" data-testid="users-table">
            <caption className="visually-hidden">Team members and their availability</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Extension</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Call</span>
                </th>
                <th scope="col">Role</th>
                {isAdmin && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <MemberRow
                  key={member.identity}
                  member={member}
                  isMe={member.identity === me?.identity}
                  presenceKnown={presenceReady}
                  canEdit={isAdmin}
                  team={members}
                  onRemove={() => setRemoving(member)}
                  onSignInCode={() => setCodeFor(member)}
                />
              ))}
            </tbody>
          </table>
        </>
      )}
      {codeFor && (
        <SignInCodeDialog
          identity={codeFor.identity}
          name={codeFor.name}
          onClose={() => setCodeFor(null)}
        />
      )}
      {removing && (
        <RemoveUserDialog
          name={removing.name}
          onConfirm={async () => {
            await removeUser(api, removing.identity);
            toast.send({
              type: 'toast.show',
              message: `${removing.name} was removed from the team.`,
              toastType: 'success',
            });
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </Screen>
  );
}

function MemberRow({
  member,
  isMe,
  presenceKnown,
  canEdit,
  team,
  onRemove,
  onSignInCode,
}: {
  member: TeamMember;
  isMe: boolean;
  presenceKnown: boolean;
  canEdit: boolean;
  team: readonly TeamMember[];
  onRemove: () => void;
  onSignInCode: () => void;
}) {
  const dial = useDial();
  return (
    <tr data-testid="user-row" data-identity={member.identity}>
      <th scope="row" className="users__name">
        {member.name}
        {isMe && <span className="users__me"> (you)</span>}
      </th>
      <td className="users__email" data-testid="user-email">
        {member.email}
      </td>
      <td>
        {canEdit ? (
          <ExtensionField member={member} others={team} />
        ) : (
          <span data-testid="user-extension">{member.extension ?? '—'}</span>
        )}
      </td>
      <td>
        <span className="users__presence" data-testid="user-presence" data-state={member.presence}>
          <span className={`presence-dot presence-dot--${member.presence}`} aria-hidden="true" />
          {presenceKnown ? PRESENCE_LABELS[member.presence] : 'Checking…'}
        </span>
      </td>
      <td>
        {!isMe && member.presence === 'doNotDisturb' && (
          <span className="users__not-taking" data-testid="user-not-taking-calls">
            Not taking calls
          </span>
        )}
        {!isMe && member.presence !== 'doNotDisturb' && (
          <button
            type="button"
            className="button button--quiet"
            aria-label={`Call ${member.name}`}
            disabled={!dial}
            title={dial ? undefined : 'The phone is not ready to call'}
            onClick={() => dial?.(`client:${member.identity}`, member.name)}
          >
            Call
          </button>
        )}
      </td>
      <td>{canEdit ? <RoleSelect member={member} /> : <RoleLabel role={member.role} />}</td>
      {canEdit && (
        <td>
          {!isMe && (
            <span className="users__actions">
              <button
                type="button"
                className="button button--quiet"
                aria-label={`Sign-in code for ${member.name}`}
                onClick={onSignInCode}
              >
                Sign-in code
              </button>
              <button
                type="button"
                className="button button--quiet"
                aria-label={`Remove ${member.name}`}
                onClick={onRemove}
              >
                Remove
              </button>
            </span>
          )}
        </td>
      )}
    </tr>
  );
}

const ROLE_LABELS: Record<Role, string> = { admin: 'Admin', agent: 'Agent' };

function RoleLabel({ role }: { role: Role }) {
  return <span data-testid="user-role">{ROLE_LABELS[role]}</span>;
}

/** The role comes from the live map; while a change is on its way the select shows the wish. */
function RoleSelect({ member }: { member: TeamMember }) {
  const api = useApiClient();
  const toast = useToastActor();
  const [pending, setPending] = useState<Role | null>(null);

  async function change(role: Role) {
    if (role === member.role) return;
    setPending(role);
    try {
      await setRole(api, member.identity, role);
      toast.send({
        type: 'toast.show',
        message: roleChangedMessage(member.name, role),
        toastType: 'success',
      });
    } catch (error) {
      const message =
        error instanceof ApiError
          ? error.message
          : `The role could not be changed: ${error instanceof Error ? error.message : String(error)}`;
      toast.send({ type: 'toast.show', message, toastType: 'error' });
    } finally {
      setPending(null);
    }
  }

  return (
    <select
      className="users__role"
      data-testid="user-role-select"
      aria-label={`Role of ${member.name}`}
      value={pending ?? member.role}
      disabled={pending !== null}
      aria-busy={pending !== null}
      onChange={(e) => void change(e.target.value === 'admin' ? 'admin' : 'agent')}
    >
      <option value="agent">Agent</option>
      <option value="admin">Admin</option>
    </select>
  );
}
