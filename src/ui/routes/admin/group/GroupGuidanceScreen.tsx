import { Link, useNavigate, useParams } from 'react-router-dom';
import { GUIDANCE_SLOTS, type Group } from '../../../../contracts/records/group';
import { GUIDANCE_SLOT_LABELS, validateGroupGuidance } from '../../../../domain/group';
import { paths } from '../../../app/paths';
import { EditScreen, itemScreen, type EditSpec } from '../EditorFrame';
import { AdminForm, Field, useFormKit, type FormFrame, type FormState } from '../form';
import { byName } from '../ListScreen';
import { useAnnouncements, useGroups } from '../live';
import type { Announcement } from '../../../../contracts/records/announcement';
import { GROUP_CODEC, useGroupEditor } from './group';
import './groups.css';

const SCREEN: EditSpec<Group> = {
  ...itemScreen(GROUP_CODEC, 'group', 'Announcements of the group'),
  testId: 'group-guidance',
  title: (group) => `Announcements of ${group?.name || 'the group'}`,
  leave: 'this group’s announcements',
  saved: 'The announcements were saved.',
};

/**
 * /admin/group/{id}/guidance: which announcement the group plays when open, closed, on a holiday and
 * to a caller on hold, stored in its `groups` item (`guidance`). Edited through the editor machine
 * like the group itself: a save carries its revision, a conflict offers reload or overwrite.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { actor } = useGroups();
  const { byKey: announcements, status } = useAnnouncements();
  const nameOf = (gid: string | undefined) =>
    gid === undefined ? 'none' : (announcements.get(gid)?.name ?? 'a deleted announcement');
  return (
    <EditScreen
      editor={useGroupEditor(actor, id, (group) =>
        validateGroupGuidance(group.guidance, new Set(announcements.keys())),
      )}
      spec={SCREEN}
      done={() => void navigate(paths.adminGroup.build(id))}
      describeTheirs={(group) =>
        `Their choice: ${GUIDANCE_SLOTS.map(
          (s) => `${GUIDANCE_SLOT_LABELS[s].toLowerCase()}: ${nameOf(group.guidance[s])}`,
        ).join('; ')}.`
      }
    >
      {(form, frame) => (
        <GuidanceChoice
          form={form}
          announcements={announcements}
          loading={status !== 'ready'}
          frame={frame}
        />
      )}
    </EditScreen>
  );
}

/** One choice of announcement per slot. */
function GuidanceChoice({
  form,
  announcements,
  loading,
  frame,
}: {
  form: FormState<Group>;
  announcements: ReadonlyMap<string, Announcement>;
  loading: boolean;
  frame: FormFrame;
}) {
  const kit = useFormKit(form);
  const { draft: group, fields } = kit;
  const options = byName(announcements).map(([gid, g]): [string, string] => [gid, g.name || gid]);
  return (
    <AdminForm kit={kit} order={GUIDANCE_SLOTS} {...frame}>
      {!loading && options.length === 0 && (
        <p className="group-form__hint">
          There are no announcements yet.{' '}
          <Link to={paths.adminGuidanceCreate.build()}>Create one</Link> first.
        </p>
      )}
      {GUIDANCE_SLOTS.map((slot) => {
        const chosen = group.guidance[slot] ?? '';
        const choose = (next: string) => {
          const guidance = { ...group.guidance };
          if (next === '') delete guidance[slot];
          else guidance[slot] = next;
          form.change({ ...group, guidance });
        };
        return (
          <Field key={slot} fields={fields} field={slot} label={GUIDANCE_SLOT_LABELS[slot]}>
            {kit.select({
              field: slot,
              value: chosen,
              disabled: loading,
              onChange: choose,
              first: (
                <>
                  <option value="">{loading ? 'Loading…' : 'No announcement'}</option>
                  {chosen !== '' && !announcements.has(chosen) && !loading && (
                    <option value={chosen}>(deleted announcement)</option>
                  )}
                </>
              ),
              options,
            })}
          </Field>
        );
      })}
    </AdminForm>
  );
}
