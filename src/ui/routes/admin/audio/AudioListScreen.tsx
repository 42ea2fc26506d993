import { deleteAudio } from '../../../../app/mutators/admin/audio';
import { API } from '../../../../contracts/api';
import { useApiClient } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ListScreen } from '../ListScreen';
import { useAudioFiles } from '../live';
import './audio.css';
import { formatDuration, formatSize } from './upload';
import { pathOf } from '../../../../contracts/api-route';

/** /admin/audio: the team's audio files, live, each with a player, its length and size, and delete. */
export function Component() {
  const api = useApiClient();
  return (
    <ListScreen
      map={useAudioFiles()}
      columns={{
        Name: (f, id) => f.name || id,
        Length: (f) => formatDuration(f.duration),
        Size: (f) => formatSize(f.size),
      }}
      listen={(id) => pathOf(API.audioFile, { id })}
      remove={{
        run: (id) => deleteAudio(api, id),
        explain: () => 'The file is removed from the server. Announcements cannot use it any more.',
      }}
      title="Audio files"
      create={[paths.adminAudioCreate.build(), 'Upload audio']}
      testId="audio-files"
      rowTestId="audio-row"
    >
      No audio files yet. Upload one to use it in announcements.
    </ListScreen>
  );
}
