/**
 * Ring groups: create one with everything that belongs to it, change it, delete it with its
 * objects. A group is only listed once its schedule, calendar and forwarding list exist (its
 * `groups` item is written last), and a failed create removes what it had made, so no orphan
 * objects are left behind. On Twilio (Sync with ACL, where browsers cannot create objects) the
 * server makes those three first (`POST /api/groups/:id/objects`) and this opens them.
 */
import { API } from '../../../contracts/api';
import { CALENDARS, GROUPS, groupObjectNames, SCHEDULES } from '../../../contracts/objects';
import type { JsonObject } from '../../../contracts/record';
import type { Group } from '../../../contracts/records/group';
import { SyncFailure, toSyncFailure } from '../../../contracts/sync-errors';
import { groupToData } from '../../../domain/group';
import type { Schedule } from '../../../contracts/records/schedule';
import { scheduleToData, weeklySchedule } from '../../../domain/schedule';
import type { ApiClient } from '../../../io/api/client';
import {
  checked,
  patchDocument,
  putItem,
  removeItem,
  replaceItemIf,
  type DocumentActor,
  type MapActor,
} from '../core';
import { AdminWriteError, explain, isNotFound } from './failure';
import { asWritten, type SaveAnswer } from './written';

/** Announcements are stored only when one is chosen. */
const GROUP = asWritten(GROUPS.record);
import { openDocument, openList, removeObject, type ContainerMachines } from './objects';

/** A zone alone: the default hours (Monday to Friday, 09:00 to 17:00) in it. */
export function initialSchedule(hours: Schedule | string): JsonObject {
  return scheduleToData(typeof hours === 'string' ? weeklySchedule(hours) : hours);
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
  return (await api.call(API.groupObjects, { id }, { timeZone })).created;
}

export interface GroupWrites {
  /** The sync runtime's container machines: a group's objects are opened through them. */
  machines: ContainerMachines;
  /** The open `groups` map. */
  groups: MapActor;
}

/**
 * Creates group `id`: its schedule (`hours`, or a zone alone for the default hours in it), calendar
 * and forwarding list, then its item. `prepare` has the server make the three objects first and
 * resolves true when it did (they are then opened, not created, and the hours written over the
 * server's empty week). A group the contract refuses makes nothing.
 */
export async function createGroup(
  { machines, groups }: GroupWrites,
  id: string,
  group: Group,
  hours: Schedule | string,
  prepare?: (id: string, timeZone: string) => Promise<boolean>,
): Promise<void> {
  const data = checked(GROUP, groupToData(group));
  const schedule = checked(asWritten(SCHEDULES.record), initialSchedule(hours));
  const timeZone = typeof hours === 'string' ? hours : hours.timeZone;
  const calendar = checked(CALENDARS.record, { holidays: [] });
  const names = groupObjectNames(id);
  const made: Array<Awaited<ReturnType<typeof openDocument | typeof openList>>> = [];
  try {
    // Made by the server (and a 409 there means the same as below), or created here.
    const mode = (await prepare?.(id, timeZone)) ? 'open_existing' : 'create_new';
    // create_new (seed 4): a 409 means an object of that name exists, so this id cannot be used.
    const scheduleDoc = await openDocument(machines, { id: names.schedule, mode, data: schedule });
    made.push(scheduleDoc);
    if (mode === 'open_existing') await writeHours(scheduleDoc, schedule);
    made.push(await openDocument(machines, { id: names.calendar, mode, data: calendar }));
    made.push(await openList(machines, { id: names.forwarding, mode }));
    await putItem(groups, GROUP, id, data);
  } catch (error) {
    for (const actor of made.reverse()) {
      // Best effort: an object that cannot be removed now is reported by nobody; the id is never reused.
      await removeObject(actor).catch(() => undefined);
    }
    const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
    if (failure.status === 409) {
      throw new AdminWriteError(
        'The group could not be created: its schedule or calendar name is already taken. Try again.',
      );
    }
    throw explain('The group could not be created', error);
  } finally {
    for (const actor of made) actor.stop();
  }
}

/** The hours over what the server made (its week is empty). */
function writeHours(doc: DocumentActor, schedule: JsonObject): Promise<void> {
  return patchDocument(doc, SCHEDULES.record, null, schedule);
}

/**
 * Saves a group's settings only if its item is still `base` (the stored data the edit started
 * from); otherwise answers with what is stored now (null when the group was deleted).
 */
export async function updateGroup(
  groups: MapActor,
  id: string,
  base: JsonObject,
  group: Group,
): Promise<SaveAnswer> {
  try {
    return await replaceItemIf(groups, GROUP, id, base, groupToData(group));
  } catch (error) {
    throw explain('The group could not be saved', error);
  }
}

/** Removes the group from the list first (it stops ringing), then its schedule, calendar and rules. */
export async function deleteGroup({ machines, groups }: GroupWrites, id: string): Promise<void> {
  try {
    await removeItem(groups, id);
  } catch (error) {
    // Someone else deleted it first: what the admin wanted has happened.
    if (!isNotFound(error)) throw explain('The group could not be deleted', error);
  }
  const names = groupObjectNames(id);
  const left: string[] = [];
  for (const [name, open] of [
    [names.schedule, openDocument],
    [names.calendar, openDocument],
    [names.forwarding, openList],
  ] as const) {
    try {
      const actor = await open(machines, { id: name, mode: 'open_existing' });
      try {
        await removeObject(actor);
      } finally {
        actor.stop();
      }
    } catch (error) {
      if (!isNotFound(error)) left.push(name);
    }
  }
  if (left.length > 0) {
    throw new AdminWriteError(
      `The group was deleted, but ${left.join(', ')} could not be removed. Try deleting again later.`,
    );
  }
}
