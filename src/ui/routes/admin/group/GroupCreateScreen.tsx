import { useNavigate } from 'react-router-dom';
import { createGroup, prepareGroupObjects } from '../../../../app/mutators/admin/groups';
import { newGroupId } from '../../../../domain/group';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useSyncRuntime } from '../../../sync/SyncProvider';
import { useGroups, usePeople } from '../live';
import { useCreateForm } from '../useCreateForm';
import { groupChecks } from './group';
import { GROUP_FIELDS, GroupForm } from './GroupForm';
import './groups.css';
import { emptyGroup } from '../../../../contracts/records/group';

/**
 * /admin/group/create: a new ring group. Its schedule, calendar and forwarding list are created with
 * it (the groups mutator; by the server first on Twilio); nothing typed is lost when the save is
 * refused.
 */
export function Component() {
  const navigate = useNavigate();
  const api = useApiClient();
  const runtime = useSyncRuntime();
  const { actor: groups, status, groups: all } = useGroups();
  const { people } = usePeople();
  const form = useCreateForm({
    initial: emptyGroup,
    validate: groupChecks(all, people),
    fields: GROUP_FIELDS,
    create:
      runtime !== null && groups !== undefined && status === 'ready'
        ? async (group) => {
            const id = newGroupId();
            await createGroup(
              { machines: runtime.machines, groups },
              id,
              group,
              Intl.DateTimeFormat().resolvedOptions().timeZone,
              (groupId, zone) => prepareGroupObjects(api, groupId, zone),
            );
            return id;
          }
        : null,
    savedMessage: (group) => `${group.name.trim()} was created.`,
    onCreated: (id) => void navigate(paths.adminGroup.build(id)),
  });
  const frame = {
    submitLabel: 'Create group',
    onCancel: () => void navigate(paths.adminGroups.build()),
  };
  return (
    <Screen title="New ring group">
      <GroupForm form={form} people={people} frame={frame} />
    </Screen>
  );
}
