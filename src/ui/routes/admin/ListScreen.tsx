/**
 * The list screen every admin object has (ring groups, announcements, audio files): the way to make
 * a new one, then a table of the map's items, live, sorted by name, one column per detail (the
 * first usually links to the item), a player when the item can be heard, and a delete (asking
 * first) when it can be deleted here; with its loading, load-failure and empty states.
 */
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { SyncFailure } from '../../../contracts/sync-errors';
import type { ContainerStatus } from '../../../machines/syncContainer.selectors';
import { Screen } from '../../components/Screen';
import type { MapActor } from '../../sync/useSyncContainers';
import { LoadFailure } from '../../sync/LoadFailure';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { DeleteButton, DeleteDialog } from './DeleteDialog';
import type { CatalogueMap } from './live';

type MapView = { actor: MapActor | undefined; status: ContainerStatus; error: SyncFailure | null };

/** Whether the map is still loading, or could not be: what list and detail screens show first. */
export function useMapState(map: MapView) {
  const availability = useSyncAvailability();
  const failed = availability.state === 'failed' || map.status === 'failed';
  return { availability, failed, loading: !failed && map.status !== 'ready' };
}

/** "Loading…" or why the map could not be loaded (with a retry). */
export function MapState({
  map,
  what,
  loading: loadingText,
}: {
  map: MapView;
  /** What could not be loaded, as the sentence starts: "Ring groups". */
  what: string;
  /** "Loading ring groups…" */
  loading: string;
}) {
  const { availability, failed, loading } = useMapState(map);
  const { actor } = map;
  return (
    <>
      {loading && (
        <p className="screen-status" role="status">
          {loadingText}
        </p>
      )}
      {failed && (
        <LoadFailure
          availability={availability}
          what={what}
          error={map.error}
          onRetry={actor ? () => actor.send({ type: 'map.retry' }) : null}
        />
      )}
    </>
  );
}

/** Sorted by name, as every list shows its items. */
export function byName<T extends { name: string }>(
  entries: Iterable<[string, T]>,
): Array<[string, T]> {
  return [...entries].sort(([, a], [, b]) => a.name.localeCompare(b.name));
}

/** A table's header row; `actions` adds a last column with no visible header. */
export function TableHead({ columns, actions }: { columns: readonly string[]; actions: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

export interface ListRemove<T> {
  /** The mutator (an admin's delete goes through the server's /api). */
  run: (key: string, item: T) => Promise<void>;
  /** The delete buttons wait (for what the delete checks against). */
  disabled?: boolean;
  /** What the question says about deleting this one. */
  explain: (key: string, item: T) => ReactNode;
}

export function ListScreen<T extends { name: string }>({
  map,
  columns,
  listen,
  remove,
  title,
  what = title,
  create: [createPath, createLabel],
  testId: tableId,
  rowTestId: rowId,
  children: empty,
}: {
  map: CatalogueMap<T>;
  /** Header → the cell of an item (key: the item's key). */
  columns: Record<string, (item: T, key: string) => ReactNode>;
  /** Where an item's audio is, for a player ("Listen"). */
  listen?: (key: string) => string;
  remove?: ListRemove<T>;
  title: string;
  /** What could not be loaded, if not the title ("Announcements"). */
  what?: string;
  /** The create screen's path and its link's words. */
  create: readonly [string, string];
  /** `data-testid` of the table, and of each row. */
  testId: string;
  rowTestId?: string;
  /** What the screen says when there is nothing yet. */
  children: ReactNode;
}) {
  const state = useMapState(map);
  const [deleting, setDeleting] = useState<{ key: string; item: T } | null>(null);
  const rows = byName(map.byKey);
  const headers = [...Object.keys(columns), ...(listen ? ['Listen'] : [])];
  return (
    <Screen title={title}>
      <p>
        <Link className="button button--primary" to={createPath}>
          {createLabel}
        </Link>
      </p>
      <MapState map={map} what={what} loading={`Loading ${what.toLowerCase()}…`} />
      {!state.loading && !state.failed && rows.length === 0 && (
        <p className="screen-status">{empty}</p>
      )}
      {rows.length > 0 && (
        <table className="table groups-table" data-testid={tableId}>
          <TableHead columns={headers} actions={remove !== undefined} />
          <tbody>
            {rows.map(([key, item]) => (
              <tr key={key} {...(rowId === undefined ? {} : { 'data-testid': rowId })}>
                {Object.values(columns).map((cell, i) => (
                  <td key={i}>{cell(item, key)}</td>
                ))}
                {listen && (
                  <td>
                    <audio
                      controls
                      preload="none"
                      src={listen(key)}
                      aria-label={`Play ${item.name || key}`}
                    />
                  </td>
                )}
                {remove && (
                  <td>
                    <DeleteButton
                      name={item.name}
                      disabled={remove.disabled ?? false}
                      onClick={() => setDeleting({ key, item })}
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && remove && (
        <DeleteDialog
          name={deleting.item.name}
          title={deleting.item.name || deleting.key}
          remove={() => remove.run(deleting.key, deleting.item)}
          onClose={() => setDeleting(null)}
        >
          {remove.explain(deleting.key, deleting.item)}
        </DeleteDialog>
      )}
    </Screen>
  );
}
