/**
 * Instant search over thousands of contacts. Each contact gets one precomputed search text (folded
 * name, company and phone digits in a single flat string, memoised per map item object, which is
 * replaced only when that contact changes), so a keystroke is a linear scan of short strings with
 * no normalisation work per row. The index keeps nothing else per contact: the rows read the map
 * items themselves, so no copy of a contact's data is held (bench (c): heap per contact held).
 */
import type { MapItem } from '../../../sync/ports';
import { contactFromData } from './contact';

/** Between the folded name and the folded company in a search text. */
const NAME_END = '\u0001';
/** Between the folded company and the phone digits in a search text. */
const TEXT_END = '\u0002';

/**
 * Lower case without diacritics ("Zoë Ångström" → "zoe angstrom"), runs of spaces as one. Control
 * characters read as spaces: they are invisible, and the search text uses two as separators.
 */
export function foldText(value: string): string {
  return (
    value
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      // eslint-disable-next-line no-control-regex -- control characters are what it drops
      .replace(/[\s\u0000-\u001f\u007f]+/g, ' ')
      .trim()
  );
}

export const digitsOf = (value: string): string => value.replace(/\D/g, '');

const texts = new WeakMap<MapItem, string>();

/**
 * The contact's search text: folded name, \u0001, folded company, \u0002, each phone number's
 * digits `|`-separated (so a query never matches across two numbers). One string per contact,
 * built by `join` so it is flat (a `+` chain would keep its pieces alive as a rope).
 */
export function searchText(item: MapItem): string {
  const hit = texts.get(item);
  if (hit !== undefined) return hit;
  const contact = contactFromData(item.data);
  const text = [
    foldText(contact.name),
    NAME_END,
    foldText(contact.company),
    TEXT_END,
    contact.phones.map((p) => digitsOf(p.number)).join('|'),
  ].join('');
  texts.set(item, text);
  return text;
}

/** The contacts in order, with each one's search text at the same position. */
export interface ContactIndex {
  /** By folded name, then folded company, then key: a stable alphabetical order. */
  readonly items: readonly MapItem[];
  readonly texts: readonly string[];
}

/** All contacts indexed and in alphabetical order. */
export function indexContacts(items: readonly MapItem[]): ContactIndex {
  const all = items.map(searchText);
  const order = Array.from(all.keys());
  // The search text starts with the name and \u0001 sorts before any character a name can hold.
  order.sort((a, b) => {
    const x = all[a]!;
    const y = all[b]!;
    if (x !== y) return x < y ? -1 : 1;
    const p = items[a]!.key;
    const q = items[b]!.key;
    return p < q ? -1 : p > q ? 1 : 0;
  });
  return { items: order.map((i) => items[i]!), texts: order.map((i) => all[i]!) };
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

/** Whether a contact's search text (see {@link searchText}) answers the query. */
export function matches(text: string, query: ContactQuery): boolean {
  const end = text.indexOf(TEXT_END);
  if (query.digits !== '') return text.indexOf(query.digits, end + 1) !== -1;
  // Words hold no control characters, so a first match that starts before the digits ends there.
  for (const word of query.words) {
    const at = text.indexOf(word);
    if (at === -1 || at > end) return false;
  }
  return true;
}

/** The contacts matching `raw`, in index order; the index's own array when the query is empty. */
export function searchContacts(index: ContactIndex, raw: string): readonly MapItem[] {
  const query = parseQuery(raw);
  if (query.digits === '' && query.words.length === 0) return index.items;
  const found: MapItem[] = [];
  for (let i = 0; i < index.texts.length; i++) {
    if (matches(index.texts[i]!, query)) found.push(index.items[i]!);
  }
  return found;
}
