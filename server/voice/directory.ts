import type { User } from '../store/users';
import type { Destination } from './service';

const PHONE_NUMBER = /^\+?[0-9][0-9 ().-]{2,30}$/;

/**
 * What a dialled `To` reaches: a colleague by identity (`client:` prefix optional), email or exact
 * name (any case). A phone number reaches nobody: there is no phone provider in the embedded setup.
 */
export function resolveDestination(to: string, team: readonly User[]): Destination {
  const raw = to.trim();
  const target = raw.replace(/^client:/i, '');
  const lower = target.toLowerCase();
  const person =
    team.find((u) => u.identity === target) ??
    team.find((u) => u.email.toLowerCase() === lower) ??
    team.find((u) => u.name.trim().toLowerCase() === lower);
  if (person) return { kind: 'person', identity: person.identity, name: person.name };
  if (PHONE_NUMBER.test(raw))
    return {
      kind: 'unknown',
      reason: `${raw} is a phone number, and calls to phone numbers need a phone provider, which this Switchboard does not have. You can call colleagues.`,
    };
  return { kind: 'unknown', reason: `Nobody here is called ${JSON.stringify(raw.slice(0, 80))}.` };
}
