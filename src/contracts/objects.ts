/**
 * Every Sync object the app uses, defined once: its name (or the pattern of a family of names), its
 * kind, who writes it, and the record it holds. The Sync service's per-object permissions (ACL,
 * server/twilio/acl.ts) are derived from `writers`; the server's writers and every screen open
 * objects by these names; the mutators and the server's routes check writes against `record`, and
 * the server puts right a browser's write that breaks it (server/records/).
 *
 * Everyone on the team reads every object but `settings:*` (its owner only). Writers:
 * - `server`: only the server (the app's API key), so a browser cannot forge history, parked calls
 *   or the directory; and where a write must obey a rule Sync's per-object permissions cannot hold,
 *   people write through the server's `/api`, which checks it (a presence item only its own person's,
 *   a ring group's number nobody else's, an announcement a group plays kept);
 * - `admins`: admins only (each ring group's hours, holidays and forwarding, audio, the team's
 *   settings);
 * - `owner`: the person the name is built from, who alone reads it too;
 * - `team`: anyone on the team.
 * Nobody but the server makes or removes an object.
 */
import type { AnyObjectSchema, RecordContract } from './record';
import { announcementRecord } from './records/announcement';
import { audioRecord } from './records/audio';
import { calendarRecord } from './records/calendar';
import { callRecord } from './records/call';
import { contactRecord } from './records/contact';
import { forwardingRuleRecord } from './records/forwarding';
import { groupRecord } from './records/group';
import { holdRecord } from './records/hold';
import { presenceRecord } from './records/presence';
import { scheduleRecord } from './records/schedule';
import { settingsRecord } from './records/settings';
import { teamRecord } from './records/team';
import { userRecord } from './records/user';

export type ObjectKind = 'document' | 'list' | 'map' | 'stream';
export type Writers = 'server' | 'admins' | 'owner' | 'team';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordContract<AnyObjectSchema, any>;

interface ObjectDef<K extends ObjectKind, R extends AnyRecord> {
  readonly kind: K;
  readonly writers: Writers;
  /** What each item (maps, lists) or the data (documents) is. */
  readonly record: R;
}

export interface NamedObject<
  K extends ObjectKind = ObjectKind,
  R extends AnyRecord = AnyRecord,
> extends ObjectDef<K, R> {
  readonly name: string;
}

/** A family of objects, one per group or per person: `{prefix}{id}`. */
export interface ObjectFamily<
  K extends ObjectKind = ObjectKind,
  R extends AnyRecord = AnyRecord,
> extends ObjectDef<K, R> {
  readonly prefix: string;
  /** What the id in the name is. */
  readonly per: 'group' | 'person';
  /** The object's name for one group or person. */
  name(id: string): string;
  /** The id in a name of this family, or null when the name is not one. */
  idOf(name: string): string | null;
}

const named = <K extends ObjectKind, R extends AnyRecord>(
  name: string,
  kind: K,
  writers: Writers,
  record: R,
): NamedObject<K, R> => ({ name, kind, writers, record });

const family = <K extends ObjectKind, R extends AnyRecord>(
  prefix: string,
  per: 'group' | 'person',
  kind: K,
  writers: Writers,
  record: R,
): ObjectFamily<K, R> => ({
  prefix,
  per,
  kind,
  writers,
  record,
  name: (id) => `${prefix}${id}`,
  idOf: (name) =>
    name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null,
});

export const CONTACTS = named('contacts', 'map', 'team', contactRecord);
export const CALLS = named('calls', 'list', 'server', callRecord);
export const HOLDS = named('holds', 'map', 'server', holdRecord);
export const USERS = named('users', 'map', 'server', userRecord);
/** Written for each person by `/api/presence`: nobody writes a colleague's item. */
export const PRESENCE = named('presence', 'map', 'server', presenceRecord);
/** Written by admins through `/api/groups`: a group's number is nobody else's. */
export const GROUPS = named('groups', 'map', 'server', groupRecord);
/**
 * Announcements (the map keeps its first name), written by admins through `/api/announcements`: one
 * a group plays is not removed.
 */
export const ANNOUNCEMENTS = named('guidance', 'map', 'server', announcementRecord);
export const AUDIO = named('audio', 'map', 'admins', audioRecord);
/** The team's settings (its default country for phone numbers). */
export const TEAM = named('team-settings', 'document', 'admins', teamRecord);

export const SCHEDULES = family('schedule:', 'group', 'document', 'admins', scheduleRecord);
export const CALENDARS = family('calendar:', 'group', 'document', 'admins', calendarRecord);
export const FORWARDING = family('forwarding:', 'group', 'list', 'admins', forwardingRuleRecord);
export const SETTINGS = family('settings:', 'person', 'document', 'owner', settingsRecord);

/** The objects the app names, all of them. */
export const NAMED_OBJECTS: readonly NamedObject[] = [
  CONTACTS,
  CALLS,
  HOLDS,
  USERS,
  PRESENCE,
  GROUPS,
  ANNOUNCEMENTS,
  AUDIO,
  TEAM,
];
export const OBJECT_FAMILIES: readonly ObjectFamily[] = [
  SCHEDULES,
  CALENDARS,
  FORWARDING,
  SETTINGS,
];

/** A ring group's own objects, made with it and removed with it. */
export const GROUP_OBJECTS = [SCHEDULES, CALENDARS, FORWARDING] as const;

/** The names of a group's own objects. */
export const groupObjectNames = (groupId: string) => ({
  schedule: SCHEDULES.name(groupId),
  calendar: CALENDARS.name(groupId),
  forwarding: FORWARDING.name(groupId),
});

export type Lookup =
  { object: NamedObject; id: null } | { object: ObjectFamily; id: string } | null;

/** Which object of the catalogue a name (and kind) is, with the id in a family's name; null: none. */
export function lookUpObject(name: string, kind?: ObjectKind): Lookup {
  for (const object of NAMED_OBJECTS)
    if (object.name === name && (kind === undefined || object.kind === kind))
      return { object, id: null };
  for (const object of OBJECT_FAMILIES) {
    const id = object.idOf(name);
    if (id !== null && (kind === undefined || object.kind === kind)) return { object, id };
  }
  return null;
}
