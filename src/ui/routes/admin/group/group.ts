/** What the ring group screens share: the form's checks, how a group's item reads, its editor. */
import { updateGroup } from '../../../../app/mutators/admin/groups';
import {
  DEFAULT_NO_ANSWER_TIMEOUT,
  groupRecord,
  type Group,
} from '../../../../contracts/records/group';
import { extensionOwners, groupToData, validateGroup } from '../../../../domain/group';
import type { FieldErrors } from '../../../../machines/editor.machine';
import { useApiClient } from '../../../app/actors';
import type { MapActor } from '../../../sync/useSyncContainers';
import type { FormCodec } from '../form';
import type { Person } from '../live';
import { useMapItemEditor } from '../useMapItemEditor';

/**
 * A group's stored item as its form edits it: the name and number as typed (the groups mutator
 * trims and normalises them when it saves, so a space typed between two words stays). A group
 * stored before it had a no-answer time shows the default, and is saved with what the form shows.
 */
export const GROUP_CODEC: FormCodec<Group> = {
  read: (data) => {
    const group = groupRecord.read(data);
    return { ...group, noAnswerTimeout: group.noAnswerTimeout ?? DEFAULT_NO_ANSWER_TIMEOUT };
  },
  write: (group) => ({ ...groupToData(group), name: group.name, number: group.number }),
};

/** The checks of a group's form against the team; `self` is the group edited (not another's number). */
export function groupChecks(
  groups: ReadonlyMap<string, Group>,
  people: readonly Person[],
  self: string | null = null,
): (group: Group) => FieldErrors {
  const others = new Map([...groups].filter(([key]) => key !== self));
  return (group) =>
    validateGroup(group, others, new Set(people.map((p) => p.identity)), extensionOwners(people));
}

/**
 * The editor of group `id` in the open `groups` map, saved through the groups mutator (its edit
 * screen and its announcements screen edit the same item, each checking its own fields).
 */
export function useGroupEditor(
  groups: MapActor | undefined,
  id: string,
  validate: (group: Group) => FieldErrors,
) {
  const api = useApiClient();
  return useMapItemEditor({
    map: groups,
    key: id,
    codec: GROUP_CODEC,
    validate,
    save: (key, base, group) => updateGroup(api, key, base, group),
    thing: 'group',
    missing: 'This ring group does not exist (it may have been deleted).',
  });
}
