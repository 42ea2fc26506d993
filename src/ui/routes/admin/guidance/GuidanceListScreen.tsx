import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Screen } from '../../../components/Screen';
import { LoadFailure } from '../../../sync/LoadFailure';
import { useSyncAvailability } from '../../../sync/SyncProvider';
import { useGroups } from '../group/useGroups';
import { deleteGuidance } from './commands';
import { groupsUsing, KIND_LABELS, type Guidance } from './guidance';
import './guidance.css';
import { useAudioFiles, useGuidanceMap, useLanguages } from './useGuidance';

/**
 * /admin/guidance: every announcement, live, sorted by name: what it is (text in a language, or a
 * file), a player of what callers hear (rendered by the server), edit and delete. Deleting one a
 * group plays is refused, naming the groups.
 */
export function Component() {
  const availability = useSyncAvailability();
  const toast = useToastActor();
  const { actor, status, error, announcements } = useGuidanceMap();
  const { groups, status: groupsStatus } = useGroups();
  const { files } = useAudioFiles();
  const { languages } = useLanguages();
  const [deleting, setDeleting] = useState<{ id: string; g: Guidance } | null>(null);
  const failed = availability.state === 'failed' || status === 'failed';
  const loading = !failed && status !== 'ready';
  const rows = [...announcements.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name));
  const languageName = (code: string) => languages?.find((l) => l.code === code)?.name ?? code;

  return (
    <Screen title="Guidance">
      <p>
        <Link className="button button--primary" to={paths.adminGuidanceCreate.build()}>
          New announcement
        </Link>
      </p>
      {loading && (
        <p className="screen-status" role="status">
          Loading announcements…
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what="Announcements"
          error={error}
          onRetry={actor ? () => actor.send({ type: 'map.retry' }) : null}
        />
      )}
      {!loading && !failed && rows.length === 0 && (
        <p className="screen-status">
          No announcements yet. An announcement is what callers hear when a group is closed, on a
          holiday or holding them: text the server speaks, or an audio file.
        </p>
      )}
      {rows.length > 0 && (
        <table className="groups-table" data-testid="guidance-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Language or file</th>
              <th scope="col">Listen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([id, g]) => (
              <tr key={id} data-testid="guidance-row">
                <td>
                  <Link to={paths.adminGuidanceEdit.build(id)}>{g.name || id}</Link>
                </td>
                <td>{KIND_LABELS[g.kind]}</td>
                <td>
                  {g.kind === 'tts'
                    ? languageName(g.language)
                    : (files.get(g.audioId)?.name ?? 'A deleted file')}
                </td>
                <td>
                  <audio
                    controls
                    preload="none"
                    src={`/api/guidance/${encodeURIComponent(id)}/audio`}
                    aria-label={`Play ${g.name || id}`}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    className="button"
                    onClick={() => setDeleting({ id, g })}
                    disabled={groupsStatus !== 'ready'}
                  >
                    Delete<span className="visually-hidden"> {g.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.g.name || deleting.id}?`}
          action={
            actor
              ? {
                  label: 'Delete',
                  busyLabel: 'Deleting…',
                  run: async () => {
                    await deleteGuidance(actor, deleting.id, deleting.g.name, groups);
                    toast.send({
                      type: 'toast.show',
                      message: `${deleting.g.name} was deleted.`,
                      toastType: 'success',
                    });
                  },
                }
              : null
          }
          onClose={() => setDeleting(null)}
        >
          {groupsUsing(deleting.id, groups).length > 0
            ? `It is played by ${groupsUsing(deleting.id, groups).join('; ')}.`
            : 'No ring group plays it.'}
        </ConfirmDialog>
      )}
    </Screen>
  );
}
