/**
 * Creating, changing and deleting a ring group with everything that belongs to it. A group is only
 * listed once its schedule, calendar and forwarding list exist (its `groups` item is written last),
 * and a failed create removes what it had made, so no orphan objects are left behind. On Twilio
 * (Sync with ACL, where browsers cannot create objects) the server makes those three first
 * (`prepareGroupObjects`) and the browser opens them.
 */
import type { ApiClient } from '../../../../io/api/client';
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { openWithSdk, type SyncClientLike } from '../../../../io/sync/client';
import { humanMessage, SyncFailure, toSyncFailure } from '../../../../contracts/sync-errors';
import type { DocumentPort, JsonObject, ListPort, Opened } from '../../../../machines/syncPorts';
import type { MapActor } from '../../../sync/containers';
import { groupToData } from '../../../../domain/group';
import type { Group } from '../../../../contracts/records/group';
import { groupObjectNames as groupObjects } from '../../../../contracts/objects';

/** A write that failed, worded for the admin who tried it. */
export class GroupWriteError extends Error {
  override readonly name = 'GroupWriteError';
}

function explain(what: string, error: unknown): GroupWriteError {
  if (error instanceof GroupWriteError) return error;
  const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
  if (failure.status === 403) return new GroupWriteError(`${what}: only admins can do this.`);
  return new GroupWriteError(`${what}: ${humanMessage(failure)}`);
}

/** Closes the SDK handle an open returned; the object itself stays. */
function release(opened: Opened): void {
  (opened.source as { close?: () => void } | null)?.close?.();
}

/** The week starts with no hours: the group is closed until an admin sets its business hours. */
export function initialSchedule(timeZone: string): JsonObject {
  return { timeZone, week: {} };
}

/**
 * Asks the server to make a new group's schedule, calendar and forwarding list: true when it did
 * (Twilio), false when the browser creates them itself (the embedded Sync service).
 */
export async function prepareGroupObjects(
  api: ApiClient,
  id: string,
  timeZone: string,
): Promise<boolean> {
  const body = await api.request('POST', `/api/groups/${encodeURIComponent(id)}/objects`, {
    timeZone,
  });
  return (body as { created?: unknown } | undefined)?.created === true;
}

export async function createGroup(
  client: SyncClientLike,
  groups: MapActor,
  id: string,
  group: Group,
  timeZone: string,
  /** Has the server make the group's objects; resolves true when it did. */
  prepare?: (id: string, timeZone: string) => Promise<boolean>,
): Promise<void> {
  const names = groupObjects(id);
  const made: Opened[] = [];
  const undo = async (): Promise<void> => {
    for (const opened of made.reverse()) {
      try {
        const port = opened.port;
        if (port.kind === 'document') await port.removeDocument();
        else if (port.kind === 'list') await port.removeList();
      } catch {
        // Best effort: an object that cannot be removed now is reported by nobody; the id is never reused.
      }
    }
  };
  try {
    // Made by the server (and a 409 there means the same as below), or created here.
    const mode = (await prepare?.(id, timeZone)) ? 'open_existing' : 'create_new';
    // create_new (seed 4): a 409 means an object of that name exists, so this id cannot be used.
    made.push(
      await openWithSdk(
        client,
        { kind: 'document', id: names.schedule, mode, data: initialSchedule(timeZone) },
        mode,
      ),
    );
    made.push(
      await openWithSdk(
        client,
        { kind: 'document', id: names.calendar, mode, data: { holidays: [] } },
        mode,
      ),
    );
    made.push(await openWithSdk(client, { kind: 'list', id: names.forwarding, mode }, mode));
    await ask<typeof groups.logic, MapCommandResults['map.set']>(
      groups,
      { type: 'map.set', key: id, data: groupToData(group) },
      'map',
    );
  } catch (error) {
    await undo();
    const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
    if (failure.status === 409) {
      throw new GroupWriteError(
        'The group could not be created: its schedule or calendar name is already taken. Try again.',
      );
    }
    throw explain('The group could not be created', error);
  } finally {
    made.forEach(release);
  }
}

/**
 * Saves a group's settings only if nobody changed them since `base` was read: the mutator declines
 * when the stored group differs, and the caller is told who won (a conflict, with their version).
 */
export async function updateGroup(
  groups: MapActor,
  id: string,
  base: JsonObject,
  group: Group,
): Promise<{ ok: true } | { ok: false; current: JsonObject | null }> {
  const data = groupToData(group);
  let seen: JsonObject | null = null;
  let declined = false;
  try {
    await ask<typeof groups.logic, MapCommandResults['map.mutate']>(
      groups,
      {
        type: 'map.mutate',
        key: id,
        mutator: (current) => {
          seen = Object.keys(current).length === 0 ? null : current;
          // The SDK calls this again with the fresh value after a lost race: only the last call counts.
          declined = JSON.stringify(current) !== JSON.stringify(base);
          return declined ? null : data;
        },
      },
      'map',
    );
    return declined ? { ok: false, current: seen } : { ok: true };
  } catch (error) {
    throw explain('The group could not be saved', error);
  }
}

/** Removes the group from the list first (it stops ringing), then its schedule, calendar and rules. */
export async function deleteGroup(
  client: SyncClientLike,
  groups: MapActor,
  id: string,
): Promise<void> {
  try {
    await ask(groups, { type: 'map.remove', key: id }, 'map');
  } catch (error) {
    // Someone else deleted it first: what the admin wanted has happened.
    if (!(error instanceof SyncFailure && error.status === 404))
      throw explain('The group could not be deleted', error);
  }
  const names = groupObjects(id);
  const parts: Array<[string, 'document' | 'list']> = [
    [names.schedule, 'document'],
    [names.calendar, 'document'],
    [names.forwarding, 'list'],
  ];
  const left: string[] = [];
  for (const [name, kind] of parts) {
    try {
      const opened = await openWithSdk(
        client,
        { kind, id: name, mode: 'open_existing' },
        'open_existing',
      );
      try {
        if (kind === 'document') await (opened.port as DocumentPort).removeDocument();
        else await (opened.port as ListPort).removeList();
      } finally {
        release(opened);
      }
    } catch (error) {
      const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
      if (failure.status !== 404) left.push(name);
    }
  }
  if (left.length > 0) {
    throw new GroupWriteError(
      `The group was deleted, but ${left.join(', ')} could not be removed. Try deleting again later.`,
    );
  }
}
