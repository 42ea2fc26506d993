import type { User } from '../identity/users';
import { normaliseNumber } from '../../src/contracts/records/group';
import { EXTENSION } from '../../src/contracts/records/user';
import type { DialledGroup } from '../../src/domain/group';

/** Who a dialled `To` reaches. */
export type Destination =
  | { kind: 'person'; identity: string; name: string }
  /** A ring group: routed by the engine. `test`: an admin's Test this group call. */
  | { kind: 'group'; groupId: string; name: string; test: boolean }
  | { kind: 'unknown'; reason: string };

const PHONE_NUMBER = /^\+?[0-9][0-9 ().-]{2,30}$/;

/** Dialled by an admin's Test this group: `test:<groupId>`. */
export const TEST_PREFIX = 'test:';

/**
 * What a dialled `To` reaches: a colleague by identity (`client:` prefix optional), email, extension
 * or exact name (any case); a ring group by its number or extension (routed); an admin's
 * `test:<groupId>` (the group's routing, as an outside caller). A phone number reaches nobody:
 * there is no phone provider in the embedded setup.
 */
export function resolveDestination(
  to: string,
  team: readonly User[],
  groups: readonly DialledGroup[] = [],
  caller: string | null = null,
): Destination {
  const raw = to.trim();
  if (raw.startsWith(TEST_PREFIX)) {
    const id = raw.slice(TEST_PREFIX.length);
    const admin = team.find((u) => u.identity === caller)?.role === 'admin';
    const group = groups.find((g) => g.id === id);
    if (!admin) return { kind: 'unknown', reason: 'Only admins can test a ring group.' };
    if (!group) return { kind: 'unknown', reason: 'That ring group no longer exists.' };
    return { kind: 'group', groupId: group.id, name: group.name, test: true };
  }
  const target = raw.replace(/^client:/i, '');
  const lower = target.toLowerCase();
  const number = normaliseNumber(target);
  const byExtension = EXTENSION.test(number) ? team.find((u) => u.extension === number) : undefined;
  const person =
    team.find((u) => u.identity === target) ??
    team.find((u) => u.email.toLowerCase() === lower) ??
    byExtension ??
    team.find((u) => u.name.trim().toLowerCase() === lower);
  if (person) return { kind: 'person', identity: person.identity, name: person.name };
  const group = number === '' ? undefined : groups.find((g) => g.number === number);
  if (group) return { kind: 'group', groupId: group.id, name: group.name, test: false };
  if (EXTENSION.test(number))
    return {
      kind: 'unknown',
      reason: `Nobody has extension ${number}. The Users screen lists everyone's extension.`,
    };
  if (PHONE_NUMBER.test(raw))
    return {
      kind: 'unknown',
      reason: `${raw} is a phone number, and calls to phone numbers need a phone provider, which this Switchboard does not have. You can call colleagues.`,
    };
  return { kind: 'unknown', reason: `Nobody here is called ${JSON.stringify(raw.slice(0, 80))}.` };
}
