import type { PresenceState } from '../../domain/presence';
/** A colleague the dial box can offer. */
export interface Dialable {
  identity: string;
  name: string;
  email: string;
  /** The short number that rings them (2 to 6 digits), when the directory has one. */
  extension: string | null;
  /** How colleagues see them now (Away, Do not disturb…), shown beside them; unknown when absent. */
  presence?: PresenceState;
}

/** One number of a contact the dial box can offer, shown as `label` in the list. */
export interface DialableNumber {
  /** What the list shows and what typing it dials: "Acme Ltd" or "Acme Ltd · mobile". */
  label: string;
  name: string;
  number: string;
}

export type DialTarget =
  | { kind: 'empty' }
  | { kind: 'person'; to: string; displayName: string }
  | { kind: 'contact'; to: string; displayName: string }
  | { kind: 'typed'; to: string; displayName: null };

/**
 * The entries the dial box offers for contacts: each number as "Name · label", and the name alone
 * for the first number (so typing a contact's name calls their main number).
 */
export function contactNumbers(
  contacts: readonly { name: string; phones: readonly { label: string; number: string }[] }[],
): DialableNumber[] {
  const out: DialableNumber[] = [];
  for (const c of contacts) {
    const name = c.name.trim();
    const phones = c.phones.filter((p) => p.number.trim() !== '');
    if (name === '' || phones.length === 0) continue;
    out.push({ label: name, name, number: phones[0]!.number });
    if (phones.length > 1)
      phones.forEach((p, i) =>
        out.push({
          label: `${name} · ${p.label.trim() || `number ${i + 1}`}`,
          name,
          number: p.number,
        }),
      );
  }
  return out;
}

const digitsOf = (s: string) => s.replace(/[^\d+]/g, '');

/**
 * What the dial box calls for what was typed: a colleague by name, email, identity (any case) or
 * extension becomes `client:<identity>` with their name; a contact's entry (or a number a contact has) dials
 * that number under the contact's name; anything else (a number, a name nobody has) is sent as
 * typed, and the voice service says why it cannot be reached.
 */
export function resolveDial(
  typed: string,
  people: readonly Dialable[],
  numbers: readonly DialableNumber[] = [],
): DialTarget {
  const text = typed.trim();
  if (text === '') return { kind: 'empty' };
  const lower = text.toLowerCase().replace(/^client:/, '');
  const extension = text.replace(/[\s().-]/g, '');
  const person =
    people.find((p) => p.identity.toLowerCase() === lower) ??
    people.find((p) => p.email.toLowerCase() === lower) ??
    (/^\d{2,6}$/.test(extension) ? people.find((p) => p.extension === extension) : undefined) ??
    people.find((p) => p.name.trim().toLowerCase() === lower);
  if (person) return { kind: 'person', to: `client:${person.identity}`, displayName: person.name };
  const entry = numbers.find((n) => n.label.toLowerCase() === lower);
  if (entry) return { kind: 'contact', to: entry.number.trim(), displayName: entry.name };
  const digits = digitsOf(text);
  const owner = digits.length >= 3 ? numbers.find((n) => digitsOf(n.number) === digits) : undefined;
  if (owner) return { kind: 'contact', to: text, displayName: owner.name };
  return { kind: 'typed', to: text, displayName: null };
}
