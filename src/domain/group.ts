/**
 * Ring groups' rules beyond their record (src/contracts/records/group.ts): the words for their
 * choices, the form's checks against the rest of the team, and what a group's item is written as.
 */
import {
  GroupSchema,
  GUIDANCE_SLOTS,
  normaliseNumber,
  type Group,
  type GroupGuidance,
  type GuidanceSlot,
  type Strategy,
} from '../contracts/records/group';
import type { JsonObject } from '../contracts/record';
import * as v from 'valibot';

export const GUIDANCE_SLOT_LABELS: Readonly<Record<GuidanceSlot, string>> = {
  open: 'When open',
  closed: 'When closed',
  holiday: 'On a holiday',
  hold: 'On hold',
  voicemail: 'Voicemail greeting',
};

export const STRATEGY_LABELS: Readonly<Record<Strategy, string>> = {
  simultaneous: 'All at once',
  sequential: 'In order',
};

/** Only the slots with an announcement chosen. */
function chosen(guidance: GroupGuidance): GroupGuidance {
  const out: GroupGuidance = {};
  for (const slot of GUIDANCE_SLOTS) {
    const id = guidance[slot];
    if (typeof id === 'string' && id !== '') out[slot] = id;
  }
  return out;
}

export function groupToData(group: Group): JsonObject {
  const data: JsonObject = {
    name: group.name.trim(),
    number: normaliseNumber(group.number),
    members: group.members,
    strategy: group.strategy,
    ringTimeout: group.ringTimeout,
  };
  if (group.noAnswerTimeout !== undefined) data.noAnswerTimeout = group.noAnswerTimeout;
  // Written only when something is chosen, so groups saved before announcements existed compare equal.
  const guidance = chosen(group.guidance);
  if (Object.keys(guidance).length > 0) data.guidance = guidance;
  return data;
}

export type GroupErrors = Partial<Record<keyof Group, string>>;

/**
 * The form's checks. `others` are the other groups (by id) for the uniqueness of the number,
 * `people` the identities on the team, so a member who was removed meanwhile is caught, and
 * `extensions` the team's extensions (extension → name): a group's number is nobody's extension.
 * The server checks the number again when the group is saved (server/groups/routes.ts).
 */
export function validateGroup(
  group: Group,
  others: ReadonlyMap<string, Group>,
  people: ReadonlySet<string>,
  extensions: ReadonlyMap<string, string> = new Map(),
): GroupErrors {
  const errors: GroupErrors = {};
  const rule = <K extends keyof typeof GroupSchema.entries>(field: K, value: unknown) => {
    const result = v.safeParse(GroupSchema.entries[field], value);
    return result.success ? null : (result.issues[0]?.message ?? 'Not valid.');
  };
  const name = rule('name', group.name.trim());
  if (name) errors.name = name;

  const number = normaliseNumber(group.number);
  const numberRule = rule('number', number);
  const clash = numberClash(null, number, dialledGroups(others), extensions);
  if (numberRule) errors.number = numberRule;
  else if (clash) errors.number = clash;

  const gone = group.members.filter((m) => !people.has(m));
  const members = rule('members', group.members);
  if (gone.length > 0)
    errors.members = `No longer on the team: ${gone.join(', ')}. Remove them from the group.`;
  else if (members) errors.members = members;

  const strategy = rule('strategy', group.strategy);
  if (strategy) errors.strategy = strategy;
  const ringTimeout = rule('ringTimeout', group.ringTimeout);
  if (ringTimeout) errors.ringTimeout = ringTimeout;
  const noAnswerTimeout = rule('noAnswerTimeout', group.noAnswerTimeout);
  if (noAnswerTimeout) errors.noAnswerTimeout = noAnswerTimeout;
  return errors;
}

/** The team's extensions, extension → name, for `validateGroup`. */
export function extensionOwners(
  people: readonly { name: string; extension?: string | null }[],
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const p of people) if (p.extension) owners.set(p.extension, p.name);
  return owners;
}

/** A short random id after `prefix`, valid in a route (`paths.isValidRouteId`). */
export function newRouteId(prefix: string, random: () => number = Math.random): string {
  let id = prefix;
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  for (let i = 0; i < 10; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}

export const newGroupId = (random?: () => number): string => newRouteId('grp-', random);

export type GroupGuidanceErrors = Partial<Record<GuidanceSlot, string>>;

/** Each chosen announcement must still exist (`announcements` are the keys of the `guidance` map). */
export function validateGroupGuidance(
  guidance: GroupGuidance,
  announcements: ReadonlySet<string>,
): GroupGuidanceErrors {
  const errors: GroupGuidanceErrors = {};
  for (const slot of GUIDANCE_SLOTS) {
    const id = guidance[slot];
    if (id !== undefined && !announcements.has(id))
      errors[slot] = 'This announcement no longer exists. Choose another, or none.';
  }
  return errors;
}

/**
 * A ring group as colleagues dial it: its id, its name (its id when it has none) and its number,
 * normalised. A group without a number is not dialled.
 */
export interface DialledGroup {
  id: string;
  name: string;
  number: string;
}

/** The ring groups (by id) that can be dialled, as {@link DialledGroup}s. */
export function dialledGroups(groups: Iterable<readonly [string, Group]>): DialledGroup[] {
  const out: DialledGroup[] = [];
  for (const [id, group] of groups) {
    const number = normaliseNumber(group.number);
    if (number !== '') out.push({ id, name: group.name || id, number });
  }
  return out;
}

/**
 * One number reaches one thing: why a ring group may not have `number`, or null. Another group has
 * it, or it is someone's extension (`extensions`: extension → name). `groupId` is the group being
 * saved (null for a new one): its own number is not a clash.
 */
export function numberClash(
  groupId: string | null,
  number: string,
  groups: readonly DialledGroup[],
  extensions: ReadonlyMap<string, string>,
): string | null {
  const normalised = normaliseNumber(number);
  if (normalised === '') return null;
  const group = groups.find((g) => g.number === normalised && g.id !== groupId);
  if (group) return `${normalised} is already the number of ${group.name}.`;
  const owner = extensions.get(normalised);
  if (owner !== undefined) return `${normalised} is already the extension of ${owner}.`;
  return null;
}
