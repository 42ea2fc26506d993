/**
 * Names for whoever a screen shows: a colleague, a ring group, a contact or a call's address, read
 * from the `users`, `groups` and `contacts` maps the workspace already holds. A name is the text; the
 * extension or number is the secondary text (`detail`). An internal id (a call's `park:CA…`, a
 * test call's `test:grp-…`) is never the text, and an email only when the person has no name.
 */
import { contactRecord } from '../../contracts/records/contact';
import { groupRecord, normaliseNumber } from '../../contracts/records/group';
import { userRecord } from '../../contracts/records/user';
import type { MapItem } from '../../machines/syncPorts';
import { formatNumber, type CountryCode } from '../../domain/phone-number';

/** Who, as a person reads it: the name, and the extension or number under it (or null). */
export interface Party {
  name: string;
  detail: string | null;
}

/** A call's address: `client:<identity>`, `park:<callId>`, `test:<groupId>`, a number or extension. */
import { PARK_PREFIX } from '../../contracts/call-parameters';
export { PARK_PREFIX };
export const TEST_PREFIX = 'test:';
export const CLIENT_PREFIX = 'client:';

interface Person {
  identity: string;
  name: string;
  email: string;
  extension: string | null;
}
interface Group {
  id: string;
  name: string;
  number: string;
}

export interface Names {
  /** A colleague by identity; someone not in the directory reads as their identity. */
  person(identity: string): Party;
  /** A ring group by id (its name when the call was made, if the group is gone). */
  group(id: string, fallbackName?: string | null): Party;
  /** A call's address, with the name the call itself carried (caller id, the name dialled). */
  address(address: string, carried?: string | null): Party;
  /** What someone typed to reach a person or group (a name, email, extension or number). */
  typed(text: string): Party;
}

const digitsOf = (s: string): string => s.replace(/[^\d+]/g, '');

/** The names in the three maps' items (any of them may still be empty). */
export function namesFrom(
  users: readonly MapItem[],
  groups: readonly MapItem[],
  contacts: readonly MapItem[],
  /** The team's country: a number at home reads in national form ("020 7946 0958"). */
  country: CountryCode | null = null,
): Names {
  const shown = (number: string): string => formatNumber(number, country);
  const people = new Map<string, Person>();
  for (const item of users) {
    const user = userRecord.read(item.data);
    if (user === null) continue;
    people.set(item.key, {
      identity: item.key,
      name: user.name.trim() || user.email || item.key,
      email: user.email || item.key,
      extension: user.extension || null,
    });
  }
  const teams = new Map<string, Group>();
  for (const item of groups) {
    const group = groupRecord.read(item.data);
    if (!group || group.name.trim() === '') continue;
    teams.set(item.key, { id: item.key, name: group.name.trim(), number: group.number });
  }
  const byNumber = new Map<string, Party>();
  for (const item of contacts) {
    const contact = contactRecord.read(item.data);
    if (!contact || contact.name.trim() === '') continue;
    for (const phone of contact.phones) {
      const digits = digitsOf(phone.number);
      if (digits.length >= 2 && !byNumber.has(digits))
        byNumber.set(digits, { name: contact.name.trim(), detail: phone.number });
    }
  }
  const personParty = (p: Person): Party => ({ name: p.name, detail: p.extension });
  const findPerson = (text: string): Person | undefined => {
    const lower = text
      .trim()
      .toLowerCase()
      .replace(/^client:/, '');
    if (lower === '') return undefined;
    const all = [...people.values()];
    return (
      people.get(text.trim().replace(/^client:/, '')) ??
      all.find((p) => p.identity.toLowerCase() === lower) ??
      all.find((p) => p.email.toLowerCase() === lower) ??
      all.find((p) => p.extension !== null && p.extension === lower.replace(/[\s().-]/g, '')) ??
      all.find((p) => p.name.toLowerCase() === lower)
    );
  };
  const findGroup = (text: string): Group | undefined => {
    const t = text.trim();
    const number = normaliseNumber(t);
    return (
      teams.get(t) ??
      [...teams.values()].find((g) => g.number === number) ??
      [...teams.values()].find((g) => g.name.toLowerCase() === t.toLowerCase())
    );
  };
  const groupParty = (g: Group): Party => ({ name: g.name, detail: g.number });
  /** A number or extension: a colleague's extension, a group's number, a contact's number. */
  const numberParty = (number: string, carried: string | null): Party | null => {
    const digits = digitsOf(number);
    const person = /^\d{2,6}$/.test(digits)
      ? [...people.values()].find((p) => p.extension === digits)
      : undefined;
    if (person) return personParty(person);
    const group = [...teams.values()].find((g) => digitsOf(g.number) === digits);
    if (group) return groupParty(group);
    const contact = digits.length >= 2 ? byNumber.get(digits) : undefined;
    if (contact) return { name: contact.name, detail: shown(number) };
    return carried ? { name: carried, detail: shown(number) } : null;
  };
  /** A name carried by the call: a colleague's identity, email or name reads as their name. */
  const carriedParty = (carried: string): Party => {
    const person = findPerson(carried);
    return person ? personParty(person) : { name: carried, detail: null };
  };

  const names: Names = {
    person(identity) {
      const p = findPerson(identity);
      return p ? personParty(p) : { name: identity.replace(/^client:/, ''), detail: null };
    },
    group(id, fallbackName = null) {
      const g = teams.get(id);
      if (g) return groupParty(g);
      return { name: fallbackName?.trim() || 'A ring group', detail: null };
    },
    address(address, carried = null) {
      const text = address.trim();
      const name = carried?.trim() || null;
      if (text.startsWith(CLIENT_PREFIX)) return names.person(text);
      if (text.startsWith(PARK_PREFIX))
        return name ? carriedParty(name) : { name: 'A parked call', detail: null };
      if (text.startsWith(TEST_PREFIX)) {
        const g = teams.get(text.slice(TEST_PREFIX.length));
        return {
          name: `Test call to ${g?.name ?? name ?? 'a ring group'}`,
          detail: g?.number ?? null,
        };
      }
      if (text === '') return name ? carriedParty(name) : { name: 'Unknown caller', detail: null };
      const known = people.get(text);
      if (known) return personParty(known);
      return (
        numberParty(text, name) ?? (name ? carriedParty(name) : { name: shown(text), detail: null })
      );
    },
    typed(text) {
      const person = findPerson(text);
      if (person) return personParty(person);
      const group = findGroup(text);
      if (group) return groupParty(group);
      return numberParty(text, null) ?? { name: shown(text.trim()), detail: null };
    },
  };
  return names;
}

/** The other party of a call (a colleague by identity, else its address and the name it carried). */
export function remoteParty(
  names: Names,
  remote: { identity: string | null; number: string | null; displayName: string | null },
): Party {
  if (remote.identity !== null) {
    const party = names.person(remote.identity);
    // Someone not in the directory: the name the call carried, rather than their identity.
    return party.detail === null && party.name === remote.identity && remote.displayName
      ? { name: remote.displayName, detail: null }
      : party;
  }
  return names.address(remote.number ?? '', remote.displayName);
}
