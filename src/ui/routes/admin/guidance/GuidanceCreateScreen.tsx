import { useNavigate } from 'react-router-dom';
import { createAnnouncement } from '../../../../app/mutators/admin/announcements';
import { emptyAnnouncement, newAnnouncementId } from '../../../../domain/announcement';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useAnnouncements } from '../live';
import { useCreateForm } from '../useCreateForm';
import { useAnnouncementContext } from './announcement';
import { ANNOUNCEMENT_FIELDS, AnnouncementForm } from './AnnouncementForm';
import './guidance.css';

/**
 * /admin/guidance/create: a new announcement, text to speech or an audio file, with a preview of what
 * callers will hear. Nothing typed is lost when the save is refused.
 */
export function Component() {
  const navigate = useNavigate();
  const api = useApiClient();
  const { status } = useAnnouncements();
  const context = useAnnouncementContext();
  const onDone = () => void navigate(paths.adminGuidance.build());
  const form = useCreateForm({
    initial: () => emptyAnnouncement(),
    validate: context.check,
    fields: ANNOUNCEMENT_FIELDS,
    create:
      status === 'ready'
        ? (announcement) => createAnnouncement(api, newAnnouncementId(), announcement)
        : null,
    savedMessage: (announcement) => `${announcement.name.trim()} was created.`,
    onCreated: onDone,
  });
  const frame = { submitLabel: 'Create announcement', onCancel: onDone };
  return (
    <Screen title="New announcement">
      <AnnouncementForm form={form} context={context} frame={frame} />
    </Screen>
  );
}
