/** What the announcement screens share: the voices and files there are, and the form's checks. */
import { announcementRecord, type Announcement } from '../../../../contracts/records/announcement';
import { announcementDraft, validateAnnouncement } from '../../../../domain/announcement';
import type { FieldErrors } from '../../../../machines/editor.machine';
import type { FormCodec } from '../form';
import { useAudioFiles, useLanguages } from '../live';

/** An announcement's stored item as its form edits it: every field kept, so switching kind loses nothing. */
export const ANNOUNCEMENT_CODEC: FormCodec<Announcement> = {
  read: (data) => announcementRecord.read(data),
  write: announcementDraft,
};

/** The voices the server speaks (null while unknown: not checked then), the files, the checks. */
export function useAnnouncementContext() {
  const languages = useLanguages();
  const { byKey: files } = useAudioFiles();
  const codes =
    languages.languages === null ? null : new Set(languages.languages.map((l) => l.code));
  const check = (announcement: Announcement): FieldErrors =>
    validateAnnouncement(announcement, codes, files);
  return { languages, files, check };
}

export type AnnouncementContext = ReturnType<typeof useAnnouncementContext>;
