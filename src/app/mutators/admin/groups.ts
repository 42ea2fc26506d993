/**
 * Ring groups: create one with everything that belongs to it, change it, delete it with its
 * objects. These go through the server's `/api/groups/:id` (a ring group's number is nobody else's,
 * which Sync's per-object permissions cannot hold): it checks the group, makes the group's schedule,
 * calendar and forwarding list before its `groups` item (so a group is only listed once they exist,
 * and a failed create leaves nothing behind), and saves an edit only over what it started from.
 * The contract checks each group here first, so a refusal names the field before anything is sent.
 */
import { API } from '../../../contracts/api';
import { GROUPS, SCHEDULES } from '../../../contracts/objects';
import type { JsonObject } from '../../../contracts/record';
import type { Group } from '../../../contracts/records/group';
import type { Schedule } from '../../../contracts/records/schedule';
import { groupToData } from '../../../domain/group';
import { scheduleToData, weeklySchedule } from '../../../domain/schedule';
import type { ApiClient } from '../../../io/api/client';
import { checked } from '../core';
import { AdminWriteError, explain, isNotFound } from './failure';
import { asWritten, type SaveAnswer } from './written';

/** Announcements are stored only when one is chosen. */
const GROUP = asWritten(GROUPS.record);

/** A zone alone: the default hours (Monday to Friday, 09:00 to 17:00) in it. */
export function initialSchedule(hours: Schedule | string): JsonObject {
  return scheduleToData(typeof hours === 'string' ? weeklySchedule(hours) : hours);
}

/**
 * Creates group `id` with its schedule (`hours`, or a zone alone for the default hours in it),
 * calendar and forwarding list. A group the contract refuses makes nothing.
 */
export async function createGroup(
  api: ApiClient,
  id: string,
  group: Group,
  hours: Schedule | string,
): Promise<void> {
  const data = checked(GROUP, groupToData(group));
  const schedule = checked(asWritten(SCHEDULES.record), initialSchedule(hours));
  try {
    await api.call(API.createGroup, { id }, { group: data, schedule });
  } catch (error) {
    throw explain('The group could not be created', error);
  }
}

/**
 * Saves a group's settings only if its item is still `base` (the stored data the edit started
 * from); otherwise answers with what is stored now (null when the group was deleted).
 */
export async function updateGroup(
  api: ApiClient,
  id: string,
  base: JsonObject,
  group: Group,
): Promise<SaveAnswer> {
  const data = checked(GROUP, groupToData(group));
  try {
    return await api.call(API.updateGroup, { id }, { base, group: data });
  } catch (error) {
    throw explain('The group could not be saved', error);
  }
}

/** Removes the group from the list first (it stops ringing), then its schedule, calendar and rules. */
export async function deleteGroup(api: ApiClient, id: string): Promise<void> {
  try {
    await api.call(API.deleteGroup, { id });
  } catch (error) {
    // Someone else deleted it first: what the admin wanted has happened.
    if (isNotFound(error)) return;
    if (error instanceof AdminWriteError) throw error;
    throw explain('The group could not be deleted', error);
  }
}
