import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../../machines/syncMap.selectors';
import type { MapItem } from '../../../../machines/syncPorts';
import { useApiClient, useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Screen } from '../../../components/Screen';
import { useContainerSelector, useSyncMap } from '../../../sync/containers';
import { LoadFailure } from '../../../sync/LoadFailure';
import { useSyncAvailability } from '../../../sync/SyncProvider';
import './audio.css';
import { formatDuration, formatSize } from './upload';

const NO_ITEMS: readonly MapItem[] = [];

interface AudioRow {
  id: string;
  name: string;
  duration: number;
  size: number;
}

/** /admin/audio: the team's audio files, live, each with a player, its length and size, and delete. */
export function Component() {
  const availability = useSyncAvailability();
  const api = useApiClient();
  const toast = useToastActor();
  const audio = useSyncMap('audio', { pageSize: 100, loadAll: true });
  const status = useContainerSelector(audio, selectMapStatus, 'opening');
  const items = useContainerSelector(audio, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(audio, selectMapError, null);
  const [deleting, setDeleting] = useState<AudioRow | null>(null);
  const rows = useMemo<AudioRow[]>(
    () =>
      items
        .map((i) => ({
          id: i.key,
          name: typeof i.data.name === 'string' ? i.data.name : i.key,
          duration: typeof i.data.duration === 'number' ? i.data.duration : 0,
          size: typeof i.data.size === 'number' ? i.data.size : 0,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    [items],
  );
  const failed = availability.state === 'failed' || status === 'failed';
  const loading = !failed && status !== 'ready';

  return (
    <Screen title="Audio files">
      <p>
        <Link className="button button--primary" to={paths.adminAudioCreate.build()}>
          Upload audio
        </Link>
      </p>
      {loading && (
        <p className="screen-status" role="status">
          Loading audio files…
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what="Audio files"
          error={error}
          onRetry={audio ? () => audio.send({ type: 'map.retry' }) : null}
        />
      )}
      {!loading && !failed && rows.length === 0 && (
        <p className="screen-status">No audio files yet. Upload one to use it in announcements.</p>
      )}
      {rows.length > 0 && (
        <table className="groups-table" data-testid="audio-files">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Length</th>
              <th scope="col">Size</th>
              <th scope="col">Listen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid="audio-row">
                <td>{r.name}</td>
                <td>{formatDuration(r.duration)}</td>
                <td>{formatSize(r.size)}</td>
                <td>
                  <audio
                    controls
                    preload="none"
                    src={`/api/audio/${r.id}`}
                    aria-label={`Play ${r.name}`}
                  />
                </td>
                <td>
                  <button type="button" className="button" onClick={() => setDeleting(r)}>
                    Delete<span className="visually-hidden"> {r.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          action={{
            label: 'Delete',
            busyLabel: 'Deleting…',
            run: async () => {
              await api.request('DELETE', `/api/audio/${encodeURIComponent(deleting.id)}`);
              toast.send({
                type: 'toast.show',
                message: `${deleting.name} was deleted.`,
                toastType: 'success',
              });
            },
          }}
          onClose={() => setDeleting(null)}
        >
          The file is removed from the server. Announcements cannot use it any more.
        </ConfirmDialog>
      )}
    </Screen>
  );
}
