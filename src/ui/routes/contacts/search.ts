/**
 * Instant search over thousands of contacts: each contact gets a precomputed index entry (memoised
 * per map item object, which is replaced only when that contact changes), so a keystroke is a
 * linear scan of short strings with no normalisation work per row.
 */
import type { MapItem } from '../../../sync/ports';
import { contactFromData, type Contact } from './contact';

export interface IndexedContact {
  id: string;
  contact: Contact;
  /** Folded name and company: lower case, no diacritics, single spaces. */
  text: string;
  /** Each phone number's digits, `|`-separated so a query never matches across two numbers. */
  digits: string;
  /** Folded name then id: a stable alphabetical order. */
  sortKey: string;
}

/** Lower case without diacritics ("Zoë Ångström" → "zoe angstrom"), runs of spaces as one. */
export function foldText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

export const digitsOf = (value: string): string => value.replace(/\D/g, '');

const cache = new WeakMap<MapItem, IndexedContact>();

export function indexContact(item: MapItem): IndexedContact {
  const hit = cache.get(item);
  if (hit) return hit;
  const contact = contactFromData(item.data);
  const name = foldText(contact.name);
  const entry: IndexedContact = {
    id: item.key,
    contact,
    text: `${name} ${foldText(contact.company)}`,
    digits: contact.phones.map((p) => digitsOf(p.number)).join('|'),
    sortKey: `${name}\u0000${item.key}`,
  };
  cache.set(item, entry);
  return entry;
}

/** All contacts indexed and in alphabetical order (by name, then id). */
export function indexContacts(items: readonly MapItem[]): IndexedContact[] {
  const entries = items.map(indexContact);
  entries.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  return entries;
}

export interface ContactQuery {
  /** Folded words; every one must appear in the name or company. */
  words: string[];
  /** Digits to find in a number, when the query looks like a phone number. */
  digits: string;
}

/** A query like "+44 20", "(555) 01" or "204" searches numbers; anything else searches text. */
export function parseQuery(raw: string): ContactQuery {
  const trimmed = raw.trim();
  if (/^[\d\s+().\-/]+$/.test(trimmed) && /\d/.test(trimmed)) {
    return { words: [], digits: digitsOf(trimmed) };
  }
  const folded = foldText(trimmed);
  return { words: folded === '' ? [] : folded.split(' '), digits: '' };
}

export function matches(entry: IndexedContact, query: ContactQuery): boolean {
  if (query.digits !== '') return entry.digits.includes(query.digits);
  for (const word of query.words) if (!entry.text.includes(word)) return false;
  return true;
}

/** The entries matching `raw`; the same array when the query is empty. */
export function searchContacts(entries: IndexedContact[], raw: string): IndexedContact[] {
  const query = parseQuery(raw);
  if (query.digits === '' && query.words.length === 0) return entries;
  return entries.filter((entry) => matches(entry, query));
}
