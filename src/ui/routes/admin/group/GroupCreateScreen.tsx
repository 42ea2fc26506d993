import { useNavigate } from 'react-router-dom';
import { createGroup } from '../../../../app/mutators/admin/groups';
import { newGroupId } from '../../../../domain/group';
import {
  defaultWeeklyHours,
  validateWeeklyHours,
  weeklySchedule,
  type WeeklyHours,
} from '../../../../domain/schedule';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useGroups, usePeople } from '../live';
import { useCreateForm } from '../useCreateForm';
import type { FormState } from '../form';
import { groupChecks } from './group';
import { GROUP_FIELDS, GroupForm } from './GroupForm';
import { NEW_GROUP_HOURS_FIELDS, NewGroupHours } from './NewGroupHours';
import './groups.css';
import { emptyGroup, type Group } from '../../../../contracts/records/group';

/** A new group and its business hours. */
type NewGroup = Group & { hours: WeeklyHours };

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * /admin/group/create: a new ring group, open Monday to Friday 09:00–17:00 in the admin's browser
 * time zone unless changed here. Its schedule, calendar and forwarding list are created with it (the
 * server makes them first); nothing typed is lost when the save is refused.
 */
export function Component() {
  const navigate = useNavigate();
  const api = useApiClient();
  const { status, groups: all } = useGroups();
  const { people } = usePeople();
  const checks = groupChecks(all, people);
  const form = useCreateForm<NewGroup, string>({
    initial: () => ({ ...emptyGroup(), hours: defaultWeeklyHours(browserZone()) }),
    validate: ({ hours, ...group }) => ({ ...checks(group), ...validateWeeklyHours(hours) }),
    fields: [...GROUP_FIELDS, ...NEW_GROUP_HOURS_FIELDS],
    // The groups are read first: the form checks a new group's number against them.
    create:
      status === 'ready'
        ? async ({ hours, ...group }) => {
            const id = newGroupId();
            await createGroup(
              api,
              id,
              group,
              weeklySchedule(hours.timeZone, hours.days, hours.opens, hours.closes),
            );
            return id;
          }
        : null,
    savedMessage: (group) => `${group.name.trim()} was created.`,
    onCreated: (id) => void navigate(paths.adminGroup.build(id)),
  });
  const groupForm: FormState<Group> = {
    ...form,
    change: (group) => form.change({ ...group, hours: form.draft.hours }),
  };
  const frame = {
    submitLabel: 'Create group',
    onCancel: () => void navigate(paths.adminGroups.build()),
  };
  return (
    <Screen title="New ring group">
      <GroupForm
        form={groupForm}
        people={people}
        frame={frame}
        extra={{
          order: NEW_GROUP_HOURS_FIELDS,
          render: (fields) => (
            <NewGroupHours
              fields={fields}
              hours={form.draft.hours}
              onChange={(hours) => form.change({ ...form.draft, hours })}
            />
          ),
        }}
      />
    </Screen>
  );
}
