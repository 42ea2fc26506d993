/**
 * Ring groups' numbers, and the rule that one number reaches one thing: a group's number is no
 * other group's and no one's extension. A group's save is checked against the groups and people
 * (groups/routes.ts); people's extensions are checked against the groups' numbers
 * (server/identity/users.ts).
 */
import { normaliseNumber, type Group } from '../../src/contracts/records/group';
import type { GroupNumber } from '../identity/extensions';

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
