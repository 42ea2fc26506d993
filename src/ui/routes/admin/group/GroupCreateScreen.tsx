import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useApiClient, useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useSyncRuntime } from '../../../sync/SyncProvider';
import { createGroup, prepareGroupObjects } from './commands';
import {
  emptyGroup,
  extensionOwners,
  newGroupId,
  validateGroup,
  type GroupErrors,
} from '../../../../domain/group';
import { GroupForm } from './GroupForm';
import './groups.css';
import { useGroups, usePeople } from './useGroups';
import type { Group } from '../../../../contracts/records/group';

/**
 * /admin/group/create: a new ring group. Its schedule, calendar and forwarding list are created with
 * it (commands.ts; by the server first on Twilio); nothing typed is lost when the save is refused.
 */
export function Component() {
  const navigate = useNavigate();
  const toast = useToastActor();
  const api = useApiClient();
  const runtime = useSyncRuntime();
  const { actor: groupsActor, groups, status } = useGroups();
  const { people } = usePeople();
  const [group, setGroup] = useState<Group>(emptyGroup);
  const [errors, setErrors] = useState<GroupErrors>({});
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const ready = runtime !== null && groupsActor !== undefined && status === 'ready';
  const check = (g: Group) =>
    validateGroup(g, groups, new Set(people.map((p) => p.identity)), extensionOwners(people));

  function submit(): GroupErrors {
    const found = check(group);
    setErrors(found);
    if (Object.keys(found).length > 0 || !ready) {
      if (!ready) setFormError('Still connecting to the team’s data; try again in a moment.');
      return found;
    }
    setBusy(true);
    setFormError(null);
    const id = newGroupId();
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    void runtime
      .sdkClient()
      .then((client) =>
        createGroup(client, groupsActor, id, group, timeZone, (groupId, zone) =>
          prepareGroupObjects(api, groupId, zone),
        ),
      )
      .then(
        () => {
          toast.send({
            type: 'toast.show',
            message: `${group.name.trim()} was created.`,
            toastType: 'success',
          });
          void navigate(paths.adminGroup.build(id));
        },
        (e: unknown) => {
          setBusy(false);
          setFormError(e instanceof Error ? e.message : String(e));
        },
      );
    return found;
  }

  return (
    <Screen title="New ring group">
      <GroupForm
        value={group}
        errors={errors}
        people={people}
        busy={busy}
        submitLabel="Create group"
        formError={formError}
        onChange={(g) => {
          setGroup(g);
          // Once shown, errors follow the typing.
          if (Object.keys(errors).length > 0) setErrors(check(g));
        }}
        onSubmit={submit}
        onCancel={() => void navigate(paths.adminGroups.build())}
      />
    </Screen>
  );
}
