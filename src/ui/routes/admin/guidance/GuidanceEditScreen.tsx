import { useNavigate, useParams } from 'react-router-dom';
import { updateAnnouncement } from '../../../../app/mutators/admin/announcements';
import { KIND_LABELS } from '../../../../domain/announcement';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { EditScreen, itemScreen } from '../EditorFrame';
import { useAnnouncements } from '../live';
import { useMapItemEditor } from '../useMapItemEditor';
import { ANNOUNCEMENT_CODEC, useAnnouncementContext } from './announcement';
import { AnnouncementForm } from './AnnouncementForm';
import './guidance.css';

/** The conflict banner keeps the test id of the routes' first name. */
const SCREEN = {
  ...itemScreen(ANNOUNCEMENT_CODEC, 'announcement', 'Edit announcement'),
  testId: 'guidance',
};

/**
 * /admin/guidance/{id}/edit through the editor machine: the save carries what the edit started from;
 * when another admin saved first the screen shows their version and offers to reload or overwrite;
 * leaving with unsaved changes asks first.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const context = useAnnouncementContext();
  const api = useApiClient();
  const editor = useMapItemEditor({
    map: useAnnouncements().actor,
    key: id,
    codec: ANNOUNCEMENT_CODEC,
    validate: context.check,
    save: (key, base, announcement) => updateAnnouncement(api, key, base, announcement),
    thing: 'announcement',
    missing: 'This announcement does not exist (it may have been deleted).',
  });
  return (
    <EditScreen
      editor={editor}
      spec={SCREEN}
      done={() => void navigate(paths.adminGuidance.build())}
      describeTheirs={(their) => {
        const what =
          their.kind === 'tts'
            ? `: “${their.text.slice(0, 80)}${their.text.length > 80 ? '…' : ''}”`
            : `: ${context.files.get(their.audioId)?.name ?? 'a deleted file'}`;
        return `Their version: ${their.name}, ${KIND_LABELS[their.kind].toLowerCase()}${what}`;
      }}
    >
      {(form, frame) => <AnnouncementForm form={form} context={context} frame={frame} />}
    </EditScreen>
  );
}
