/**
 * The team directory for /users: each `users` item read by its contract, joined with the person's
 * `presence` item.
 */
import { userRecord, type UserEntry } from '../../../contracts/records/user';
import type { MapItem } from '../../../machines/syncPorts';
import { presenceOf, type PresenceState } from '../../../domain/presence';

/** A person as the directory lists them: their entry, their identity and their presence now. */
export type TeamMember = Omit<UserEntry, 'extension'> & {
  identity: string;
  /** The short number that rings them; null in a directory from before extensions. */
  extension: string | null;
  presence: PresenceState;
};

/** The member in a `users` item, or null when the item is not one (it is then not listed). */
export function memberFrom(item: MapItem, presence: PresenceState): TeamMember | null {
  const user = userRecord.read(item.data);
  if (user === null) return null;
  return {
    ...user,
    identity: item.key,
    email: user.email || item.key,
    extension: user.extension || null,
    presence,
  };
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/**
 * Everyone in `users`, by name (a stable order: rows do not jump while statuses change under a
 * keyboard user). `presence` is null while the presence map is not open yet: statuses are then
 * unknown rather than Offline.
 */
export function teamDirectory(
  users: readonly MapItem[],
  presence: ReadonlyMap<string, MapItem> | null,
): TeamMember[] {
  const members: TeamMember[] = [];
  for (const item of users) {
    const state = presence === null ? 'offline' : presenceOf(presence.get(item.key)?.data);
    const member = memberFrom(item, state);
    if (member) members.push(member);
  }
  return members.sort(
    (a, b) => collator.compare(a.name, b.name) || a.identity.localeCompare(b.identity),
  );
}

/** Counts for the summary line. */
export function presenceCounts(members: readonly TeamMember[]): Record<PresenceState, number> {
  const counts: Record<PresenceState, number> = {
    available: 0,
    onCall: 0,
    away: 0,
    doNotDisturb: 0,
    offline: 0,
  };
  for (const m of members) counts[m.presence] += 1;
  return counts;
}
