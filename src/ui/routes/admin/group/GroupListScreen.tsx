import { Link } from 'react-router-dom';
import { STRATEGY_LABELS } from '../../../../domain/group';
import { paths } from '../../../app/paths';
import { ListScreen } from '../ListScreen';
import { useGroups } from '../live';
import './groups.css';

/** /admin/group: every ring group, live, sorted by name, with the way to make a new one. */
export function Component() {
  return (
    <ListScreen
      map={useGroups()}
      columns={{
        Name: (g, id) => <Link to={paths.adminGroup.build(id)}>{g.name}</Link>,
        Number: (g) => g.number,
        Members: (g) => g.members.length,
        Rings: (g) => `${STRATEGY_LABELS[g.strategy]}, ${g.ringTimeout} s`,
      }}
      title="Ring groups"
      create={[paths.adminGroupCreate.build(), 'New ring group']}
      testId="groups"
    >
      No ring groups yet. A ring group is a number or extension that rings a set of people.
    </ListScreen>
  );
}
