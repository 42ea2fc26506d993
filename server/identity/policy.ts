/**
 * Who may do what to the Sync objects, derived from the catalogue (src/contracts/objects.ts): each
 * object's `writers`. {@link objectAccess} says what one person may do to one object (read, write,
 * manage), granted as Sync's per-object permissions on every backend (server/twilio/acl.ts; the
 * service's ACL on). The table is in docs/operations.md ("Who may do what"):
 * - `server` (`users`, `calls`, `holds`, `presence`, `groups`, `guidance`): read by the team,
 *   written only by the server: roles through the admin API, call history and parked calls from
 *   Twilio's webhooks, and what people change under a rule per item (their own presence, a group's
 *   number, an announcement in use) through their own `/api` routes, so none can be forged;
 * - `admins` (`audio`, `team-settings`, each group's `schedule:*`, `calendar:*`, `forwarding:*`):
 *   read by the team, changed by admins;
 * - `owner` (`settings:{identity}`): read and written by that person only;
 * - `team` (`contacts`, and any object the catalogue does not name): open to everyone on the team.
 * Nobody but the server makes or removes an object (no `manage`). Someone no longer on the team (a
 * token not yet expired) may do nothing at all.
 *
 * What a write must hold comes from the catalogue too: {@link writeProblem} checks an item or a
 * document against the object's record; a route checks a person's write with {@link checkedWrite},
 * and a browser's own write that breaks its record is put right (server/records/).
 */
import { lookUpObject, type ObjectKind } from '../../src/contracts/objects';
import type { AnyObjectSchema, JsonObject, RecordContract } from '../../src/contracts/record';
import { badRequest } from '../platform/http/errors';
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

/**
 * What `identity` (with `role`, or null when off the team) may do to the object. `manage` (removing
 * the object) is nobody's: the server makes and removes every object (a ring group's with it).
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
    case 'admins':
      return { read: true, write: role === 'admin', manage: false };
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
  return found ? recordProblem(found.object.record, data) : null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordContract<AnyObjectSchema, any>;

/** Why `data` breaks `record`, naming the field and the reason; null when it passes. */
function recordProblem(record: AnyRecord, data: unknown): string | null {
  const checked = record.check(data);
  if (checked.ok) return null;
  return checked.field === ''
    ? `Invalid ${record.name}: ${checked.reason}`
    : `Invalid ${record.name} ${checked.field}: ${checked.reason}`;
}

/**
 * `data` as a person's write through /api stores it, once it passes `record` (as written: the
 * defaults the record fills in are for reading); refused with 400 naming the field and the reason.
 */
export function checkedWrite(record: AnyRecord, data: JsonObject): JsonObject {
  const problem = recordProblem(record, data);
  if (problem !== null) throw badRequest(problem);
  return data;
}
