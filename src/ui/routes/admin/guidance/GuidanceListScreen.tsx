import { Link } from 'react-router-dom';
import { deleteAnnouncement } from '../../../../app/mutators/admin/announcements';
import { API } from '../../../../contracts/api';
import { groupsUsing, KIND_LABELS } from '../../../../domain/announcement';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ListScreen } from '../ListScreen';
import { useAnnouncements, useAudioFiles, useGroups, useLanguages } from '../live';
import './guidance.css';
import { pathOf } from '../../../../contracts/api-route';

/**
 * /admin/guidance: every announcement, live, sorted by name: what it is (text in a language, or a
 * file), a player of what callers hear (rendered by the server), edit and delete. Deleting one a
 * group plays is refused, naming the groups.
 */
export function Component() {
  const api = useApiClient();
  const { groups, status } = useGroups();
  const { byKey: files } = useAudioFiles();
  const { languages } = useLanguages();
  const languageName = (code: string) => languages?.find((l) => l.code === code)?.name ?? code;
  return (
    <ListScreen
      map={useAnnouncements()}
      columns={{
        Name: (a, id) => <Link to={paths.adminGuidanceEdit.build(id)}>{a.name || id}</Link>,
        Kind: (a) => KIND_LABELS[a.kind],
        'Language or file': (a) =>
          a.kind === 'tts'
            ? languageName(a.language)
            : (files.get(a.audioId)?.name ?? 'A deleted file'),
      }}
      listen={(id) => pathOf(API.announcementAudio, { id })}
      remove={{
        run: (id, a) => deleteAnnouncement(api, id, a.name, groups),
        disabled: status !== 'ready',
        explain: (id) => {
          const uses = groupsUsing(id, groups);
          return uses.length > 0
            ? `It is played by ${uses.join('; ')}.`
            : 'No ring group plays it.';
        },
      }}
      title="Announcements"
      what="Announcements"
      create={[paths.adminGuidanceCreate.build(), 'New announcement']}
      testId="guidance-list"
      rowTestId="guidance-row"
    >
      No announcements yet. An announcement is what callers hear when a group is closed, on a
      holiday or holding them: text the server speaks, or an audio file.
    </ListScreen>
  );
}
