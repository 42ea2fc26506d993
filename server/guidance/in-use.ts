/**
 * An announcement a ring group plays cannot be removed: the groups' `guidance` slots point at it by
 * id, and a call would find nothing to play. The screens say so first; this is the service's refusal
 * for any client that tries anyway.
 */
import type { AccessPolicy } from '../twins/sync/policy';
import type { InternalSync } from '../twins/sync/internal';
import { ANNOUNCEMENTS, GROUPS } from '../../src/contracts/objects';
import { GUIDANCE_SLOTS } from '../../src/contracts/records/group';

/** The names of the ring groups (`groups` map) that play announcement `id`, sorted. */
export function groupsPlaying(sync: InternalSync | undefined, id: string): string[] {
  if (!sync) return [];
  const names: string[] = [];
  for (const [key, group] of sync.mapItems(GROUPS.name)) {
    const guidance = group.guidance;
    if (typeof guidance !== 'object' || guidance === null || Array.isArray(guidance)) continue;
    const slots = guidance as Record<string, unknown>;
    if (GUIDANCE_SLOTS.some((slot) => slots[slot] === id)) {
      names.push(typeof group.name === 'string' && group.name !== '' ? group.name : key);
    }
  }
  return names.sort((a, b) => a.localeCompare(b));
}

/** `policy`, and a refusal to remove a `guidance` item while a group plays it (naming the groups). */
export function refuseRemovingPlayedGuidance(
  policy: AccessPolicy | undefined,
  sync: () => InternalSync | undefined,
): AccessPolicy {
  return (attempt) => {
    const first = policy ? policy(attempt) : null;
    if (first !== null) return first;
    if (
      attempt.kind === ANNOUNCEMENTS.kind &&
      attempt.name === ANNOUNCEMENTS.name &&
      attempt.target === 'item' &&
      attempt.method === 'DELETE' &&
      attempt.key !== undefined
    ) {
      const groups = groupsPlaying(sync(), attempt.key);
      if (groups.length > 0) {
        return `The announcement is played by the ring group${groups.length === 1 ? '' : 's'} ${groups.join(', ')}; choose another there first`;
      }
    }
    return null;
  };
}
