import { Link } from 'react-router-dom';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { LoadFailure } from '../../../sync/LoadFailure';
import { useSyncAvailability } from '../../../sync/SyncProvider';
import { STRATEGY_LABELS } from '../../../../domain/group';
import './groups.css';
import { useGroups } from './useGroups';

/** /admin/group: every ring group, live, sorted by name, with the way to make a new one. */
export function Component() {
  const availability = useSyncAvailability();
  const { actor, status, error, groups } = useGroups();
  const failed = availability.state === 'failed' || status === 'failed';
  const loading = !failed && status !== 'ready';
  const rows = [...groups.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name));

  return (
    <Screen title="Ring groups">
      <p>
        <Link className="button button--primary" to={paths.adminGroupCreate.build()}>
          New ring group
        </Link>
      </p>
      {loading && (
        <p className="screen-status" role="status">
          Loading ring groups…
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what="Ring groups"
          error={error}
          onRetry={actor ? () => actor.send({ type: 'map.retry' }) : null}
        />
      )}
      {!loading && !failed && rows.length === 0 && (
        <p className="screen-status">
          No ring groups yet. A ring group is a number or extension that rings a set of people.
        </p>
      )}
      {rows.length > 0 && (
        <table className="groups-table" data-testid="groups">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Number</th>
              <th scope="col">Members</th>
              <th scope="col">Rings</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([id, g]) => (
              <tr key={id}>
                <td>
                  <Link to={paths.adminGroup.build(id)}>{g.name}</Link>
                </td>
                <td>{g.number}</td>
                <td>{g.members.length}</td>
                <td>
                  {STRATEGY_LABELS[g.strategy]}, {g.ringTimeout} s
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Screen>
  );
}
