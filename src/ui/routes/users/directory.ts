/** The team directory: `users` items joined with `presence` items, for the /users screen. */
import type { MapItem } from '../../../machines/syncPorts';
import { presenceOf, type PresenceState } from '../../../domain/presence';

export type Role = 'admin' | 'agent';

export interface TeamMember {
  identity: string;
  name: string;
  email: string;
  role: Role;
  /** The short number that rings them; null in a directory from before extensions. */
  extension: string | null;
  presence: PresenceState;
}

/** The member in a `users` item, or null when the item is not one (it is then not listed). */
export function memberFrom(item: MapItem, presence: PresenceState): TeamMember | null {
  const { name, email, role, extension } = item.data;
  if (typeof name !== 'string' || name === '') return null;
  return {
    identity: item.key,
    name,
    email: typeof email === 'string' ? email : item.key,
    role: role === 'admin' ? 'admin' : 'agent',
    extension: typeof extension === 'string' && extension !== '' ? extension : null,
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
  const counts: Record<PresenceState, number> = { available: 0, onCall: 0, away: 0, offline: 0 };
  for (const m of members) counts[m.presence] += 1;
  return counts;
}
