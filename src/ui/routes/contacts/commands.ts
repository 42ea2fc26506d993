/** Writes to the `contacts` map through its machine, with answers a person can act on. */
import { ask } from '../../../machines/syncCommand';
import type { MapCommandResults } from '../../../machines/syncMap.machine';
import { SyncFailure, humanMessage } from '../../../contracts/sync-errors';
import type { MapActor } from '../../sync/containers';
import { contactToData, type Contact } from './contact';

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

function explain(error: unknown): ContactWriteError {
  if (error instanceof ContactWriteError) return error;
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

/** Creates (or restores) the contact under `id`. */
export async function putContact(actor: MapActor, id: string, contact: Contact): Promise<void> {
  try {
    await ask<typeof actor.logic, MapCommandResults['map.set']>(
      actor,
      { type: 'map.set', key: id, data: contactToData(contact) },
      'map',
    );
  } catch (error) {
    throw explain(error);
  }
}

/**
 * Replaces an existing contact. Through `mutate`, so a contact deleted meanwhile is not silently
 * re-created: the mutator declines when the service holds nothing under the key.
 */
export async function updateContact(actor: MapActor, id: string, contact: Contact): Promise<void> {
  const data = contactToData(contact);
  let result: MapCommandResults['map.mutate'];
  try {
    result = await ask<typeof actor.logic, MapCommandResults['map.mutate']>(
      actor,
      {
        type: 'map.mutate',
        key: id,
        mutator: (current) => (Object.keys(current).length === 0 ? null : data),
      },
      'map',
    );
  } catch (error) {
    throw explain(error);
  }
  // A declined mutate answers with the SDK's placeholder for a missing item (event id -1).
  if (result.lastEventId < 0) throw new ContactWriteError(GONE_WHILE_EDITING, true);
}

export async function deleteContact(actor: MapActor, id: string): Promise<void> {
  try {
    await ask(actor, { type: 'map.remove', key: id }, 'map');
  } catch (error) {
    // Someone else deleted it first: what the person wanted has happened.
    if (error instanceof SyncFailure && error.status === 404) return;
    throw explain(error);
  }
}
