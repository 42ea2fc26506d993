import type { User } from '../store/users';
import { EXTENSION_SHAPE, normaliseNumber, type GroupNumber } from '../users/extensions';
import type { Destination } from './service';

const PHONE_NUMBER = /^\+?[0-9][0-9 ().-]{2,30}$/;

/**
 * What a dialled `To` reaches: a colleague by identity (`client:` prefix optional), email, extension
 * or exact name (any case). A ring group's number is known but does not take calls yet (routing
 * comes later), and says so. A phone number reaches nobody: there is no phone provider in the
 * embedded setup.
 */
export function resolveDestination(
  to: string,
  team: readonly User[],
  groups: readonly GroupNumber[] = [],
): Destination {
  const raw = to.trim();
  const target = raw.replace(/^client:/i, '');
  const lower = target.toLowerCase();
  const number = normaliseNumber(target);
  const byExtension = EXTENSION_SHAPE.test(number)
    ? team.find((u) => u.extension === number)
    : undefined;
  const person =
    team.find((u) => u.identity === target) ??
    team.find((u) => u.email.toLowerCase() === lower) ??
    byExtension ??
    team.find((u) => u.name.trim().toLowerCase() === lower);
  if (person) return { kind: 'person', identity: person.identity, name: person.name };
  const group = number === '' ? undefined : groups.find((g) => g.number === number);
  if (group)
    return {
      kind: 'unknown',
      reason: `${number} is the ring group ${group.name}, and ring groups do not take calls yet. Call one of its members instead.`,
    };
  if (EXTENSION_SHAPE.test(number))
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
