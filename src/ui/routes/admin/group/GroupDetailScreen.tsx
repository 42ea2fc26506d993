import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { deleteGroup } from '../../../../app/mutators/admin/groups';
import { PRESENCE } from '../../../../contracts/objects';
import { STRATEGY_LABELS } from '../../../../domain/group';
import { PRESENCE_LABELS, presenceOf } from '../../../../domain/presence';
import { selectMapItems, selectMapStatus } from '../../../../machines/syncMap.selectors';
import type { MapItem } from '../../../../machines/syncPorts';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import '../../../presence/presence.css';
import { useContainerSelector, useSyncMap } from '../../../sync/useSyncContainers';
import { DeleteDialog } from '../DeleteDialog';
import { MapState, useMapState } from '../ListScreen';
import { useGroups, usePeople } from '../live';
import { ForwardingRules } from './ForwardingRules';
import { GroupAnnouncements } from './GroupAnnouncements';
import { GroupHours } from './GroupHours';
import { GroupTest } from './GroupTest';
import './groups.css';

const NO_ITEMS: readonly MapItem[] = [];

/**
 * /admin/group/{id}: one ring group, live: its number, who rings (with presence) and how; links to
 * edit it, its announcements and forwarding; delete (asks first, and removes its schedule, calendar
 * and forwarding rules too).
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const api = useApiClient();
  const map = useGroups();
  const { groups } = map;
  const { people } = usePeople();
  const presence = useSyncMap(PRESENCE.name, { pageSize: 100, loadAll: true });
  const presenceStatus = useContainerSelector(presence, selectMapStatus, 'opening');
  const presenceItems = useContainerSelector(presence, selectMapItems, NO_ITEMS);
  const presenceByKey = useMemo(
    () => new Map(presenceItems.map((i) => [i.key, i.data])),
    [presenceItems],
  );
  const [deleting, setDeleting] = useState(false);

  const group = groups.get(id);
  const { failed, loading } = useMapState(map);
  const nameOfPerson = (identity: string) =>
    people.find((p) => p.identity === identity)?.name ?? identity;

  return (
    <Screen title={group?.name ?? 'Ring group'}>
      <MapState map={map} what="The group" loading="Loading the group…" />
      {!loading && !failed && group === undefined && (
        <p className="screen-status" role="status">
          This ring group does not exist (it may have been deleted).{' '}
          <Link to={paths.adminGroups.build()}>All ring groups</Link>
        </p>
      )}
      {group && (
        <div className="group-detail" data-testid="group-detail">
          <dl>
            <dt>Number</dt>
            <dd>{group.number}</dd>
            <dt>Rings</dt>
            <dd>
              {STRATEGY_LABELS[group.strategy]}, {group.ringTimeout} seconds{' '}
              {group.strategy === 'sequential' ? 'each' : 'together'}
            </dd>
            <dt>No answer after</dt>
            <dd>
              {group.noAnswerTimeout === undefined
                ? 'the no-answer rule’s time, once every member has rung'
                : `${group.noAnswerTimeout} seconds, once every member has rung`}
            </dd>
          </dl>
          <h2>Members</h2>
          {group.members.length === 0 ? (
            <p>Nobody rings for this group yet.</p>
          ) : (
            <ol className="group-detail__members">
              {group.members.map((m) => {
                const state =
                  presenceStatus === 'ready' ? presenceOf(presenceByKey.get(m)) : 'offline';
                return (
                  <li key={m} data-testid="group-member">
                    <span className={`presence-dot presence-dot--${state}`} aria-hidden="true" />
                    {nameOfPerson(m)}{' '}
                    <span className="group-detail__presence">({PRESENCE_LABELS[state]})</span>
                  </li>
                );
              })}
            </ol>
          )}
          {group.members.length > 0 && (
            <p className="group-form__hint">
              Members who are away, on do not disturb, on a call or offline are skipped when the
              group rings.
            </p>
          )}
          <GroupHours groupId={id} />
          <GroupAnnouncements groupId={id} guidance={group.guidance} />
          <h2>Forwarding</h2>
          <ForwardingRules
            groupId={id}
            nameOfPerson={nameOfPerson}
            nameOfGroup={(g) => groups.get(g)?.name ?? g}
          />
          <GroupTest groupId={id} name={group.name} />
          <div className="group-detail__actions">
            <Link className="button button--primary" to={paths.adminGroupEdit.build(id)}>
              Edit
            </Link>
            <Link className="button" to={paths.adminScheduleEdit.build(id)}>
              Business hours
            </Link>
            <Link className="button" to={paths.adminCalendarEdit.build(id)}>
              Holidays
            </Link>
            <Link className="button" to={paths.adminGroupGuidance.build(id)}>
              Announcements
            </Link>
            <Link className="button" to={paths.adminGroupForwardingCreate.build(id)}>
              New forwarding rule
            </Link>
            <button type="button" className="button" onClick={() => setDeleting(true)}>
              Delete
            </button>
          </div>
        </div>
      )}
      {deleting && group && (
        <DeleteDialog
          name={group.name}
          remove={() => deleteGroup(api, id)}
          onDeleted={() => void navigate(paths.adminGroups.build())}
          onClose={() => setDeleting(false)}
        >
          Calls to {group.number} will no longer ring anyone. Its business hours, holidays and
          forwarding rules are deleted with it.
        </DeleteDialog>
      )}
    </Screen>
  );
}
