/**
 * A ring group as stored in the `groups` map (key = group id): who rings, how, and for how long. Its
 * hours (`schedule:{id}`), holidays (`calendar:{id}`) and forwarding rules (`forwarding:{id}`) live in
 * objects of their own, created and removed with it (commands.ts).
 */
import type { JsonObject } from '../machines/syncPorts';

export type Strategy = 'simultaneous' | 'sequential';

/**
 * When a group plays an announcement: open (the greeting), closed, on a holiday, to a caller on
 * hold, and before a voicemail's tone.
 */
export type GuidanceSlot = 'open' | 'closed' | 'holiday' | 'hold' | 'voicemail';
export const GUIDANCE_SLOTS: readonly GuidanceSlot[] = [
  'open',
  'closed',
  'holiday',
  'hold',
  'voicemail',
];
export const GUIDANCE_SLOT_LABELS: Readonly<Record<GuidanceSlot, string>> = {
  open: 'When open',
  closed: 'When closed',
  holiday: 'On a holiday',
  hold: 'On hold',
  voicemail: 'Voicemail greeting',
};
/** The announcement (a `guidance` map key) chosen for each slot; a slot left out plays nothing. */
export type GroupGuidance = Partial<Record<GuidanceSlot, string>>;

export interface Group {
  name: string;
  /** An extension (2 to 6 digits) or a phone number in international form (+ and 8 to 15 digits). */
  number: string;
  /** Identities, in ringing order. */
  members: string[];
  strategy: Strategy;
  /** Seconds a call rings (each member in turn, for `sequential`) before the no-answer rule applies. */
  ringTimeout: number;
  /** The announcements it plays (stored as `guidance`, only when one is chosen). */
  guidance: GroupGuidance;
}

export const STRATEGY_LABELS: Readonly<Record<Strategy, string>> = {
  simultaneous: 'All at once',
  sequential: 'In order',
};

export const NAME_MAX = 80;
export const RING_TIMEOUT_MIN = 5;
export const RING_TIMEOUT_MAX = 120;
export const DEFAULT_RING_TIMEOUT = 20;

export const emptyGroup = (): Group => ({
  name: '',
  number: '',
  members: [],
  strategy: 'simultaneous',
  ringTimeout: DEFAULT_RING_TIMEOUT,
  guidance: {},
});

/** Reads a stored group, tolerating missing or malformed fields (someone else's older client). */
export function groupFromData(data: JsonObject): Group {
  const members = Array.isArray(data.members)
    ? data.members.filter((m): m is string => typeof m === 'string')
    : [];
  return {
    name: typeof data.name === 'string' ? data.name : '',
    number: typeof data.number === 'string' ? data.number : '',
    members,
    strategy: data.strategy === 'sequential' ? 'sequential' : 'simultaneous',
    ringTimeout:
      typeof data.ringTimeout === 'number' && Number.isInteger(data.ringTimeout)
        ? data.ringTimeout
        : DEFAULT_RING_TIMEOUT,
    guidance: guidanceFromData(data.guidance),
  };
}

function guidanceFromData(raw: unknown): GroupGuidance {
  const guidance: GroupGuidance = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return guidance;
  const record = raw as Record<string, unknown>;
  for (const slot of GUIDANCE_SLOTS) {
    const id = record[slot];
    if (typeof id === 'string' && id !== '') guidance[slot] = id;
  }
  return guidance;
}

export function groupToData(group: Group): JsonObject {
  const data: JsonObject = {
    name: group.name.trim(),
    number: normaliseNumber(group.number),
    members: group.members,
    strategy: group.strategy,
    ringTimeout: group.ringTimeout,
  };
  // Written only when something is chosen, so groups saved before announcements existed compare equal.
  const guidance = guidanceFromData(group.guidance);
  if (Object.keys(guidance).length > 0) data.guidance = guidance;
  return data;
}

/** Spaces, dashes, dots and brackets people type in numbers are dropped. */
export function normaliseNumber(number: string): string {
  return number.trim().replace(/[\s().-]/g, '');
}

export type GroupErrors = Partial<Record<keyof Group, string>>;

/**
 * The form's checks. `others` are the other groups (by id) for the uniqueness of the number,
 * `people` the identities on the team, so a member who was removed meanwhile is caught, and
 * `extensions` the team's extensions (extension → name): a group's number is nobody's extension.
 * The Sync service checks the number again when the group is written (server/users/extensions.ts).
 */
export function validateGroup(
  group: Group,
  others: ReadonlyMap<string, Group>,
  people: ReadonlySet<string>,
  extensions: ReadonlyMap<string, string> = new Map(),
): GroupErrors {
  const errors: GroupErrors = {};
  const name = group.name.trim();
  if (name === '') errors.name = 'Enter a name for the group.';
  else if (name.length > NAME_MAX) errors.name = `Use at most ${NAME_MAX} characters.`;
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u001f\u007f]/.test(name)) errors.name = 'Use letters, digits and punctuation.';

  const number = normaliseNumber(group.number);
  if (number === '') errors.number = 'Enter an extension or a phone number.';
  else if (!/^(\d{2,6}|\+\d{8,15})$/.test(number))
    errors.number = 'Use an extension of 2 to 6 digits, or a number like +442079460000.';
  else {
    const taken = [...others.values()].find((g) => normaliseNumber(g.number) === number);
    const owner = extensions.get(number);
    if (taken) errors.number = `${number} is already the number of ${taken.name}.`;
    else if (owner !== undefined) errors.number = `${number} is already the extension of ${owner}.`;
  }

  const gone = group.members.filter((m) => !people.has(m));
  if (gone.length > 0)
    errors.members = `No longer on the team: ${gone.join(', ')}. Remove them from the group.`;
  else if (new Set(group.members).size !== group.members.length)
    errors.members = 'Each person can be in the group once.';

  if (group.strategy !== 'simultaneous' && group.strategy !== 'sequential')
    errors.strategy = 'Choose how members ring.';
  if (
    !Number.isInteger(group.ringTimeout) ||
    group.ringTimeout < RING_TIMEOUT_MIN ||
    group.ringTimeout > RING_TIMEOUT_MAX
  ) {
    errors.ringTimeout = `Use a whole number of seconds from ${RING_TIMEOUT_MIN} to ${RING_TIMEOUT_MAX}.`;
  }
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

/** Ids are short, random and valid in a route (`paths.isValidRouteId`). */
export function newGroupId(random: () => number = Math.random): string {
  let id = 'grp-';
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  for (let i = 0; i < 10; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}

/** The objects that belong to a group, besides its item in `groups`. */
export const groupObjects = (id: string) => ({
  schedule: `schedule:${id}`,
  calendar: `calendar:${id}`,
  forwarding: `forwarding:${id}`,
});

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
