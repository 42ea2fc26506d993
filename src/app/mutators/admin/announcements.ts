/**
 * Announcements (the `guidance` map): create, change against what the edit started from, delete.
 * A delete is refused while a ring group plays the announcement, naming the groups (the server
 * refuses it too).
 */
import { ANNOUNCEMENTS } from '../../../contracts/objects';
import type { JsonObject } from '../../../contracts/record';
import type { Announcement } from '../../../contracts/records/announcement';
import type { Group } from '../../../contracts/records/group';
import { announcementToData, groupsUsing } from '../../../domain/announcement';
import { putItem, removeItem, replaceItemIf, type MapActor } from '../core';
import { AdminWriteError, explain, isNotFound } from './failure';
import { asWritten, type SaveAnswer } from './written';

/** Only the fields of its kind are stored. */
const ANNOUNCEMENT = asWritten(ANNOUNCEMENTS.record);

export async function createAnnouncement(
  map: MapActor,
  id: string,
  announcement: Announcement,
): Promise<void> {
  try {
    await putItem(map, ANNOUNCEMENT, id, announcementToData(announcement));
  } catch (error) {
    throw explain('The announcement could not be created', error);
  }
}

/**
 * Saves only if the stored announcement is still `base` (the stored data the edit started from);
 * otherwise answers with what is stored now (null when it was deleted).
 */
export async function updateAnnouncement(
  map: MapActor,
  id: string,
  base: JsonObject,
  announcement: Announcement,
): Promise<SaveAnswer> {
  try {
    return await replaceItemIf(map, ANNOUNCEMENT, id, base, announcementToData(announcement));
  } catch (error) {
    throw explain('The announcement could not be saved', error);
  }
}

/** Refused while a group plays it; someone else's delete counts as done. */
export async function deleteAnnouncement(
  map: MapActor,
  id: string,
  name: string,
  groups: ReadonlyMap<string, Group>,
): Promise<void> {
  const uses = groupsUsing(id, groups);
  if (uses.length > 0) {
    throw new AdminWriteError(
      `${name} is played by ${uses.length === 1 ? 'the ring group' : 'the ring groups'} ${uses.join('; ')}. Choose another announcement there first.`,
    );
  }
  try {
    await removeItem(map, id);
  } catch (error) {
    if (!isNotFound(error)) throw explain('The announcement could not be deleted', error);
  }
}
