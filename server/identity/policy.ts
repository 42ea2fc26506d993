/**
 * Who may do what to the Sync objects, derived from the catalogue (src/contracts/objects.ts): each
 * object's `writers` and whether it is a group's or a person's. {@link objectAccess} says what one
 * person may do to one object (read, write, manage); both backends use it, the embedded Sync
 * service per request ({@link createAccessPolicy}) and Twilio Sync as per-object permissions
 * (server/twilio/acl.ts). The table is in docs/sync-service.md ("Who may do what"):
 * - `server` (`users`, `calls`, `holds`): read by the team, written only by the server (roles through
 *   the admin API, call history and parked calls by the voice service), so none can be forged;
 * - `admins` (`groups`, `guidance`, `audio` and each group's `schedule:*`, `calendar:*`,
 *   `forwarding:*`): read by the team, changed by admins;
 * - `ownItems` (`presence`): read by the team; each person writes only the item keyed by their own
 *   identity, and nobody changes the map itself;
 * - `owner` (`settings:{identity}`): read and written by that person only;
 * - `team` (`contacts`, and any object the catalogue does not name): open to everyone on the team.
 * Someone no longer on the team (a token not yet expired) may do nothing at all.
 *
 * What a write must hold comes from the catalogue too: {@link writeProblem} checks a client's item or
 * document against the object's record (the embedded Sync service refuses what fails it).
 */
import {
  lookUpObject,
  type NamedObject,
  type ObjectFamily,
  type ObjectKind,
} from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import type { Role } from '../../src/contracts/roles';

/** What one person may do to a whole object: Twilio Sync's permission flags. */
export interface ObjectAccess {
  /** Open it, read its items, be told of changes. */
  read: boolean;
  /** Change its data, add, change and remove its items. */
  write: boolean;
  /** Remove the object itself. */
  manage: boolean;
}

export const NO_ACCESS: ObjectAccess = { read: false, write: false, manage: false };
const READ_ONLY: ObjectAccess = { read: true, write: false, manage: false };
const READ_WRITE: ObjectAccess = { read: true, write: true, manage: false };

/** An object by its kind and unique name. */
export interface ObjectRef {
  kind: ObjectKind;
  name: string;
}

const isFamily = (object: NamedObject | ObjectFamily): object is ObjectFamily => 'prefix' in object;

/**
 * What `identity` (with `role`, or null when off the team) may do to the object. `manage` (removing
 * the object) is given only where the object goes with what it belongs to: a ring group's own
 * objects, to admins; the shared objects the server made are removed by nobody.
 */
export function objectAccess(object: ObjectRef, identity: string, role: Role | null): ObjectAccess {
  if (role === null) return NO_ACCESS;
  const found = lookUpObject(object.name, object.kind);
  if (!found) return READ_WRITE;
  switch (found.object.writers) {
    case 'owner':
      return found.id === identity ? READ_WRITE : NO_ACCESS;
    case 'server':
      return READ_ONLY;
    case 'admins': {
      const admin = role === 'admin';
      const groupOwned = isFamily(found.object) && found.object.per === 'group';
      return { read: true, write: admin, manage: admin && groupOwned };
    }
    case 'ownItems':
    case 'team':
      return READ_WRITE;
  }
}

/**
 * Why `data`, written by a client to an item of the object (a map's or a list's) or as its data (a
 * document's), breaks the object's record, naming the field and the reason; null when it passes, or
 * when the catalogue does not name the object (a script's own object holds what it likes). A
 * document is checked whole: the SDK sends the document a patch makes, not the patch.
 */
export function writeProblem(object: ObjectRef, data: JsonObject): string | null {
  const found = lookUpObject(object.name, object.kind);
  if (!found) return null;
  const record = found.object.record;
  const checked = record.check(data);
  if (checked.ok) return null;
  return checked.field === ''
    ? `Invalid ${record.name}: ${checked.reason}`
    : `Invalid ${record.name} ${checked.field}: ${checked.reason}`;
}
