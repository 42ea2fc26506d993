/**
 * Announcements (the `guidance` map): create, change against what the edit started from, delete.
 * These go through the server's `/api/announcements/:id`, which keeps one a ring group plays (Sync's
 * per-object permissions cannot): a delete is refused here first while a group plays it, naming the
 * groups, and the server refuses it too.
 */
import { API } from '../../../contracts/api';
import { ANNOUNCEMENTS } from '../../../contracts/objects';
import type { JsonObject } from '../../../contracts/record';
import type { Announcement } from '../../../contracts/records/announcement';
import type { Group } from '../../../contracts/records/group';
import { announcementToData, groupsUsing } from '../../../domain/announcement';
import type { ApiClient } from '../../../io/api/client';
import { checked } from '../core';
import { AdminWriteError, explain, isNotFound } from './failure';
import { asWritten, type SaveAnswer } from './written';

/** Only the fields of its kind are stored. */
const ANNOUNCEMENT = asWritten(ANNOUNCEMENTS.record);

export async function createAnnouncement(
  api: ApiClient,
  id: string,
  announcement: Announcement,
): Promise<void> {
  const data = checked(ANNOUNCEMENT, announcementToData(announcement));
  try {
    await api.call(API.createAnnouncement, { id }, { announcement: data });
  } catch (error) {
    throw explain('The announcement could not be created', error);
  }
}

/**
 * Saves only if the stored announcement is still `base` (the stored data the edit started from);
 * otherwise answers with what is stored now (null when it was deleted).
 */
export async function updateAnnouncement(
  api: ApiClient,
  id: string,
  base: JsonObject,
  announcement: Announcement,
): Promise<SaveAnswer> {
  const data = checked(ANNOUNCEMENT, announcementToData(announcement));
  try {
    return await api.call(API.updateAnnouncement, { id }, { base, announcement: data });
  } catch (error) {
    throw explain('The announcement could not be saved', error);
  }
}

/** Refused while a group plays it; someone else's delete counts as done. */
export async function deleteAnnouncement(
  api: ApiClient,
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
    await api.call(API.deleteAnnouncement, { id });
  } catch (error) {
    if (!isNotFound(error)) throw explain('The announcement could not be deleted', error);
  }
}
