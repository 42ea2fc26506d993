/**
 * Ring groups as the embedded backend stores them (the `groups` map, which admins' browsers write):
 * one group, every group's number (and those of groups read from Twilio Sync), and the rule that one number reaches one thing: a group's number
 * is no other group's and no one's extension. The Sync service asks {@link checkGroupNumber} of every
 * group a browser writes; people's extensions are checked against these numbers
 * (server/identity/users.ts).
 */
import { GROUPS } from '../../src/contracts/objects';
import { groupRecord, normaliseNumber, type Group } from '../../src/contracts/records/group';
import type { GroupNumber } from '../identity/extensions';
import type { InternalSync } from '../twins/sync/internal';
import type { JsonObject } from '../../src/contracts/record';

/** A ring group as stored (read tolerantly), or null when there is none. */
export function readGroup(internal: InternalSync | undefined, groupId: string): Group | null {
  const item = internal?.getMapItem(GROUPS.name, groupId);
  return item ? groupRecord.read(item) : null;
}

/** Every ring group with a number (none without the embedded service). */
export function groupNumbers(internal: InternalSync | undefined): GroupNumber[] {
  if (!internal) return [];
  const groups: [string, Group][] = [];
  for (const [id, data] of internal.mapItems(GROUPS.name))
    groups.push([id, groupRecord.read(data)]);
  return numbersOfGroups(groups);
}

/** The numbers of these ring groups (by id), normalised; a group without one is left out. */
export function numbersOfGroups(groups: Iterable<[string, Group]>): GroupNumber[] {
  const out: GroupNumber[] = [];
  for (const [id, group] of groups) {
    const number = normaliseNumber(group.number);
    if (number === '') continue;
    out.push({ id, name: group.name || id, number });
  }
  return out;
}

/**
 * Why a ring group may not have this number, or null: another group has it, or it is a person's
 * extension. `groupId` is the group being written (its own number is not a clash).
 */
export function groupNumberClash(
  groupId: string,
  number: string,
  groups: readonly GroupNumber[],
  people: readonly { name: string; extension: string | null }[],
): string | null {
  const normalised = normaliseNumber(number);
  if (normalised === '') return null;
  const group = groups.find((g) => g.number === normalised && g.id !== groupId);
  if (group) return `${normalised} is already the number of ${group.name}`;
  const person = people.find((p) => p.extension === normalised);
  if (person) return `${normalised} is already the extension of ${person.name}`;
  return null;
}

/**
 * The check of a `groups` item a browser writes (key = the group's id): why its number is taken,
 * or null. Other objects pass.
 */
export function checkGroupNumber(
  groups: () => readonly GroupNumber[],
  people: () => readonly { name: string; extension: string | null }[],
): (
  object: { kind: string; name: string | null; key?: string },
  data: JsonObject,
) => string | null {
  return (object, data) =>
    object.kind === GROUPS.kind &&
    object.name === GROUPS.name &&
    object.key !== undefined &&
    typeof data.number === 'string'
      ? groupNumberClash(object.key, data.number, groups(), people())
      : null;
}
