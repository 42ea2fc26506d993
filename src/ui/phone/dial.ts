/** A colleague the dial box can offer. */
export interface Dialable {
  identity: string;
  name: string;
  email: string;
}

export type DialTarget =
  | { kind: 'empty' }
  | { kind: 'person'; to: string; displayName: string }
  | { kind: 'typed'; to: string; displayName: null };

/**
 * What the dial box calls for what was typed: a colleague by name, email or identity (any case)
 * becomes `client:<identity>` with their name; anything else (a number, a name nobody has) is sent
 * as typed, and the voice service says why it cannot be reached.
 */
export function resolveDial(typed: string, people: readonly Dialable[]): DialTarget {
  const text = typed.trim();
  if (text === '') return { kind: 'empty' };
  const lower = text.toLowerCase().replace(/^client:/, '');
  const person =
    people.find((p) => p.identity.toLowerCase() === lower) ??
    people.find((p) => p.email.toLowerCase() === lower) ??
    people.find((p) => p.name.trim().toLowerCase() === lower);
  if (person) return { kind: 'person', to: `client:${person.identity}`, displayName: person.name };
  return { kind: 'typed', to: text, displayName: null };
}
