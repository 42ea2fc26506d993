/**
 * Writing announcements. A save carries what the edit started from (the mutator declines when the
 * stored announcement differs, and the caller is told who won); a delete is refused while a ring
 * group plays the announcement, naming the groups.
 */
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { humanMessage, SyncFailure, toSyncFailure } from '../../../../contracts/sync-errors';
import type { JsonObject } from '../../../../machines/syncPorts';
import type { MapActor } from '../../../sync/containers';
import { groupsUsing, guidanceFromData, guidanceToData, type Guidance } from './guidance';
import type { Group } from '../../../../contracts/records/group';

/** A write that failed, worded for the admin who tried it. */
export class GuidanceWriteError extends Error {
  override readonly name = 'GuidanceWriteError';
}

function explain(what: string, error: unknown): GuidanceWriteError {
  if (error instanceof GuidanceWriteError) return error;
  const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
  if (failure.status === 403) return new GuidanceWriteError(`${what}: only admins can do this.`);
  return new GuidanceWriteError(`${what}: ${humanMessage(failure)}`);
}

export async function createGuidance(map: MapActor, id: string, g: Guidance): Promise<void> {
  try {
    await ask<typeof map.logic, MapCommandResults['map.set']>(
      map,
      { type: 'map.set', key: id, data: guidanceToData(g) },
      'map',
    );
  } catch (error) {
    throw explain('The announcement could not be created', error);
  }
}

/**
 * Saves only if the stored announcement is still `base` (compared as stored: a draft keeps the other
 * kind's fields too); otherwise answers with what is stored now (null when it was deleted).
 */
export async function updateGuidance(
  map: MapActor,
  id: string,
  base: JsonObject,
  g: Guidance,
): Promise<{ ok: true } | { ok: false; current: JsonObject | null }> {
  const data = guidanceToData(g);
  let seen: JsonObject | null = null;
  let declined = false;
  try {
    await ask<typeof map.logic, MapCommandResults['map.mutate']>(
      map,
      {
        type: 'map.mutate',
        key: id,
        mutator: (current) => {
          seen = Object.keys(current).length === 0 ? null : current;
          // The SDK calls this again with the fresh value after a lost race: only the last call counts.
          declined =
            JSON.stringify(guidanceToData(guidanceFromData(current))) !==
            JSON.stringify(guidanceToData(guidanceFromData(base)));
          return declined ? null : data;
        },
      },
      'map',
    );
    return declined ? { ok: false, current: seen } : { ok: true };
  } catch (error) {
    throw explain('The announcement could not be saved', error);
  }
}

/** Refused while a group plays it (the server refuses it too); someone else's delete counts as done. */
export async function deleteGuidance(
  map: MapActor,
  id: string,
  name: string,
  groups: ReadonlyMap<string, Group>,
): Promise<void> {
  const uses = groupsUsing(id, groups);
  if (uses.length > 0) {
    throw new GuidanceWriteError(
      `${name} is played by ${uses.length === 1 ? 'the ring group' : 'the ring groups'} ${uses.join('; ')}. Choose another announcement there first.`,
    );
  }
  try {
    await ask(map, { type: 'map.remove', key: id }, 'map');
  } catch (error) {
    if (!(error instanceof SyncFailure && error.status === 404))
      throw explain('The announcement could not be deleted', error);
  }
}
