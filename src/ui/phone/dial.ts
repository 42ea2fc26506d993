/**
 * What the dial box offers and what it calls. Every colleague, ring group and contact number is an
 * entry with the words and numbers it answers to; what is typed matches an entry when each of its
 * words is the start of one of the entry's words (name, company, email, label), or its digits are
 * the start of one of the entry's numbers or its extension (as stored, and as written in the team's
 * country: "020" finds +44 20…). A typed name that matches one entry calls it; several or none get a
 * sentence saying what to do; a phone number nobody has is called as typed, in E.164.
 */
import { formatNumber, parseNumber, type CountryCode } from '../../domain/phone-number';
import { PRESENCE_LABELS, type PresenceState } from '../../domain/presence';
import type { Contact } from '../../contracts/records/contact';

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

/** A ring group the dial box can offer. */
export interface DialableGroup {
  id: string;
  name: string;
  /** Its extension or phone number. */
  number: string;
}

export type EntryKind = 'person' | 'group' | 'contact';

/** One line of the suggestions. */
export interface DialEntry {
  /** Unique among the entries. */
  id: string;
  kind: EntryKind;
  /** What the line shows first and the call card names. */
  name: string;
  /** The secondary text: the extension, the number formatted, the contact's number label. */
  detail: string;
  /** What the phone dials. */
  to: string;
  /** Away, On a call, Offline beside a colleague (nothing when available). */
  note: string | null;
  /** Lower-case words it answers to. */
  words: readonly string[];
  /** Digit strings it answers to (an extension, a number as stored and in national form). */
  numbers: readonly string[];
}

const KIND_RANK: Record<EntryKind, number> = { person: 0, group: 1, contact: 2 };

/** Lower case without accents, split into words at anything that is not a letter or digit. */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

const digitsOf = (s: string) => s.replace(/\D/g, '');

/** A number's digit strings: as stored (E.164 without +) and as dialled at home (national). */
function numberForms(stored: string, country: CountryCode | null): string[] {
  const forms = new Set([digitsOf(stored)]);
  if (country) forms.add(digitsOf(formatNumber(stored, country)));
  return [...forms].filter((d) => d !== '');
}

function noteOf(presence: PresenceState | undefined): string | null {
  return presence === undefined || presence === 'available' ? null : PRESENCE_LABELS[presence];
}

/** Every entry the dial box can offer, colleagues first, then groups, then contacts' numbers. */
export function dialEntries(
  people: readonly Dialable[],
  groups: readonly DialableGroup[],
  contacts: readonly Contact[],
  country: CountryCode | null,
): DialEntry[] {
  const out: DialEntry[] = [];
  for (const p of people) {
    out.push({
      id: `person|${p.identity}`,
      kind: 'person',
      name: p.name,
      detail: p.extension ? `ext. ${p.extension}` : p.email,
      to: `client:${p.identity}`,
      note: noteOf(p.presence),
      words: [...wordsOf(p.name), ...wordsOf(p.email.split('@')[0] ?? ''), p.email.toLowerCase()],
      numbers: p.extension ? [p.extension] : [],
    });
  }
  for (const g of groups) {
    if (g.name.trim() === '' || g.number.trim() === '') continue;
    out.push({
      id: `group|${g.id}`,
      kind: 'group',
      name: g.name,
      detail: `Group · ${formatNumber(g.number, country)}`,
      to: g.number,
      note: null,
      words: wordsOf(g.name),
      numbers: numberForms(g.number, country),
    });
  }
  contacts.forEach((c, i) => {
    const name = c.name.trim();
    if (name === '') return;
    const phones = c.phones.filter((p) => p.number.trim() !== '');
    phones.forEach((phone, j) => {
      const label = phone.label.trim();
      const shown = formatNumber(phone.number, country);
      out.push({
        id: `contact|${i}|${j}`,
        kind: 'contact',
        name,
        detail: label ? `${label} · ${shown}` : shown,
        to: phone.number.trim(),
        note: null,
        words: [...wordsOf(name), ...wordsOf(c.company), ...wordsOf(label)],
        numbers: numberForms(phone.number, country),
      });
    });
  });
  return out;
}

/** What was typed, as the matcher reads it. */
interface Query {
  words: string[];
  /** The digits, when the query is a number (digits and formatting only). */
  digits: string | null;
}

function queryOf(typed: string): Query {
  const text = typed.trim();
  const numeric = /^[\d\s+().\-/]+$/.test(text) && /\d/.test(text);
  return { words: numeric ? [] : wordsOf(text), digits: numeric ? digitsOf(text) : null };
}

function entryMatches(entry: DialEntry, query: Query): boolean {
  if (query.digits !== null) return entry.numbers.some((n) => n.startsWith(query.digits!));
  if (query.words.length === 0) return false;
  return query.words.every(
    (q) => entry.words.some((w) => w.startsWith(q)) || entry.numbers.some((n) => n.startsWith(q)),
  );
}

/** The entries `typed` matches, colleagues first, then by name. */
export function suggest(entries: readonly DialEntry[], typed: string, limit = 8): DialEntry[] {
  const query = queryOf(typed);
  return entries
    .filter((e) => entryMatches(e, query))
    .sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind] || a.name.localeCompare(b.name))
    .slice(0, limit);
}

export type DialTarget =
  { kind: 'call'; to: string; displayName: string | null } | { kind: 'problem'; message: string };

/** "Ben Agent, Benjamin Li and Bengal Ltd". */
function listOf(names: readonly string[]): string {
  const unique = [...new Set(names)];
  const shown = unique.slice(0, 3);
  const more = unique.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]!;
}

/** Whoever `typed` names exactly: an email, an identity, an extension, a number, a whole name. */
function exactly(entries: readonly DialEntry[], typed: string, query: Query): DialEntry[] {
  const lower = typed
    .trim()
    .toLowerCase()
    .replace(/^client:/, '');
  if (query.digits !== null)
    return entries.filter((e) => e.numbers.some((n) => n === query.digits));
  const byId = entries.filter((e) => e.to.toLowerCase() === `client:${lower}`);
  if (byId.length) return byId;
  const byEmail = entries.filter((e) => e.kind === 'person' && e.words.includes(lower));
  if (byEmail.length && lower.includes('@')) return byEmail;
  return entries.filter((e) => wordsOf(e.name).join(' ') === query.words.join(' '));
}

/**
 * What the dial box calls for what was typed, or the sentence to show instead: an entry named
 * exactly (an extension, an email, a whole name, a number), else the one entry the words match; a
 * phone number nobody has, in E.164; an extension nobody has, as typed (the server says that
 * nobody has it). Several matches, none, or a number that does not read, each get a sentence.
 */
export function resolveDial(
  typed: string,
  entries: readonly DialEntry[],
  country: CountryCode | null,
): DialTarget {
  const text = typed.trim();
  if (text === '')
    return { kind: 'problem', message: 'Type a name, an extension or a number to call.' };
  // Addresses the app itself dials (a parked call, a group test) go as typed.
  if (/^(park|test):\S/i.test(text)) return { kind: 'call', to: text, displayName: null };
  const query = queryOf(text);
  const exact = exactly(entries, text, query);
  const one = (e: DialEntry): DialTarget => ({ kind: 'call', to: e.to, displayName: e.name });
  const sameTarget = (list: DialEntry[]) => list.every((e) => e.to === list[0]!.to);
  if (exact.length > 0 && sameTarget(exact)) return one(exact[0]!);
  const matches = exact.length > 0 ? exact : suggest(entries, text, Infinity);
  if (matches.length > 0 && sameTarget(matches)) return one(matches[0]!);
  if (matches.length > 1 && query.digits === null) {
    if (matches.every((m) => m.kind === 'contact' && m.name === matches[0]!.name))
      return {
        kind: 'problem',
        message: `${matches[0]!.name} has ${matches.length} numbers. Pick one from the list.`,
      };
    return {
      kind: 'problem',
      message: `${matches.length} match "${text}": ${listOf(matches.map((m) => m.name))}. Pick one from the list, or type more of the name.`,
    };
  }
  if (query.digits !== null) {
    const parsed = parseNumber(text, country);
    if (parsed.ok) return { kind: 'call', to: parsed.number, displayName: null };
    return { kind: 'problem', message: parsed.reason };
  }
  const at = /@/.test(text) ? ' with that email' : ` called "${text}"`;
  return {
    kind: 'problem',
    message: `Nobody on the team or in the contacts is${at}. Check the spelling, or type a number or an extension.`,
  };
}
