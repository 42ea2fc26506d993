/**
 * Writes to the shared `contacts` map: add (or restore), change, delete. Each contact is checked
 * against its contract first (a refusal is a {@link WriteRefused} naming the field, and nothing is
 * sent); what the service says no to comes back as a {@link ContactWriteError} worded for the person
 * who tried.
 */
import type { Contact } from '../../contracts/records/contact';
import { contactRecord } from '../../contracts/records/contact';
import { humanMessage, SyncFailure } from '../../contracts/sync-errors';
import { putItem, removeItem, updateItem, WriteRefused, type MapActor } from './core';

/** What went wrong with a save or delete, worded for the person who tried it. */
export class ContactWriteError extends Error {
  override readonly name = 'ContactWriteError';
  constructor(
    message: string,
    /** The contact no longer exists (deleted by someone else). */
    readonly gone = false,
  ) {
    super(message);
  }
}

const GONE_WHILE_EDITING =
  'A colleague deleted this contact while you were editing. Your changes are still here: save again to restore it.';

function explain(error: unknown): Error {
  if (error instanceof ContactWriteError || error instanceof WriteRefused) return error;
  if (error instanceof SyncFailure) {
    // A refusal (no permission, too large, invalid) is about this change, not about the session.
    if (error.status === 403 || error.status === 413 || error.reason === 'invalid') {
      return new ContactWriteError(`The service refused this change: ${error.message}`);
    }
    return new ContactWriteError(humanMessage(error));
  }
  return new ContactWriteError(
    `The contact could not be saved: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Adds the contact under `id`, or restores it there (a colleague deleted it while it was open). */
export async function createContact(map: MapActor, id: string, contact: Contact): Promise<void> {
  try {
    await putItem(map, contactRecord, id, contact);
  } catch (error) {
    throw explain(error);
  }
}

/**
 * Replaces an existing contact. A contact deleted meanwhile is not silently made again: that is a
 * {@link ContactWriteError} with `gone`, and saving once more (as {@link createContact}) restores it.
 */
export async function updateContact(map: MapActor, id: string, contact: Contact): Promise<void> {
  let saved: { ok: boolean };
  try {
    saved = await updateItem(map, contactRecord, id, contact);
  } catch (error) {
    throw explain(error);
  }
  if (!saved.ok) throw new ContactWriteError(GONE_WHILE_EDITING, true);
}

export async function deleteContact(map: MapActor, id: string): Promise<void> {
  try {
    await removeItem(map, id);
  } catch (error) {
    // Someone else deleted it first: what the person wanted has happened.
    if (error instanceof SyncFailure && error.status === 404) return;
    throw explain(error);
  }
}
