/**
 * Instant search over thousands of contacts, holding almost nothing per contact (bench (c): heap
 * per contact held). Most names and companies are plain ASCII, whose folded form is just their
 * lower case: those are matched and sorted in place, case-insensitively, straight from the map
 * item's data. Only a contact with other text (accents, other scripts, odd spacing) keeps a folded
 * copy, memoised per map item object (replaced only when that contact changes). Numbers are
 * matched digit by digit in place, skipping their formatting. A keystroke is a linear scan with no
 * normalisation work and no allocation per row.
 */
import { compareKeys } from '../../../machines/syncContainer';
import type { JsonObject, MapItem } from '../../../machines/syncPorts';

/** Between the folded name and the folded company in a folded copy. */
const SEP = '\u0001';

/**
 * Lower case without diacritics ("Zoë Ångström" → "zoe angstrom"), runs of spaces as one. Control
 * characters read as spaces: they are invisible, and a folded copy uses one as its separator.
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

/** Printable ASCII words with single spaces between them: folds to its own lower case. */
const PLAIN = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/;

const textOf = (data: JsonObject, field: 'name' | 'company'): string => {
  const value = data[field];
  return typeof value === 'string' ? value : '';
};

const folded = new WeakMap<MapItem, string>();

/**
 * Null when the contact's name and company are plain (folded on the fly); otherwise the folded
 * name, \u0001, the folded company, built by `join` so it is one flat string.
 */
export function foldedCopy(item: MapItem): string | null {
  const name = textOf(item.data, 'name');
  const company = textOf(item.data, 'company');
  if (PLAIN.test(name) && PLAIN.test(company)) return null;
  let copy = folded.get(item);
  if (copy === undefined) {
    copy = [foldText(name), SEP, foldText(company)].join('');
    folded.set(item, copy);
  }
  return copy;
}

const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether `word` (folded) occurs in plain `text` once the text is lower-cased. */
function includesFolded(text: string, word: string): boolean {
  const last = text.length - word.length;
  outer: for (let i = 0; i <= last; i++) {
    for (let j = 0; j < word.length; j++) {
      if (lower(text.charCodeAt(i + j)) !== word.charCodeAt(j)) continue outer;
    }
    return true;
  }
  return false;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** `digitsOf(number).includes(digits)`, without building the digits string. */
function digitsInclude(number: string, digits: string): boolean {
  for (let i = 0; i < number.length; i++) {
    if (!isDigit(number.charCodeAt(i))) continue;
    let j = i;
    let k = 0;
    while (k < digits.length && j < number.length) {
      const c = number.charCodeAt(j);
      j += 1;
      if (!isDigit(c)) continue;
      if (c !== digits.charCodeAt(k)) break;
      k += 1;
    }
    if (k === digits.length) return true;
  }
  return false;
}

/** Each number is searched on its own, so a query never matches across two numbers. */
function numbersInclude(data: JsonObject, digits: string): boolean {
  const phones = data.phones;
  if (!Array.isArray(phones)) return false;
  for (const phone of phones as unknown[]) {
    if (typeof phone !== 'object' || phone === null) continue;
    const number = (phone as Record<string, unknown>).number;
    if (typeof number === 'string' && digitsInclude(number, digits)) return true;
  }
  return false;
}

/** The contacts in order, with each one's folded copy (or null) at the same position. */
export interface ContactIndex {
  /** By folded name, then folded company, then key: a stable alphabetical order. */
  readonly items: readonly MapItem[];
  /** Empty when no contact has a folded copy. */
  readonly copies: readonly (string | null)[];
}

/** All contacts indexed and in alphabetical order. */
export function indexContacts(items: readonly MapItem[]): ContactIndex {
  const copies = items.map(foldedCopy);
  // Sort keys for this call only (garbage once sorted): plain text folds to its lower case.
  const names = items.map((item, i) => {
    const copy = copies[i] ?? null;
    return copy === null
      ? textOf(item.data, 'name').toLowerCase()
      : copy.slice(0, copy.indexOf(SEP));
  });
  // Companies only break ties between equal names: folded when a tie needs them.
  const companyOf = (i: number) => {
    const copy = copies[i] ?? null;
    return copy === null
      ? textOf(items[i]!.data, 'company').toLowerCase()
      : copy.slice(copy.indexOf(SEP) + 1);
  };
  const order = Array.from(items.keys());
  order.sort(
    (a, b) =>
      compareKeys(names[a]!, names[b]!) ||
      compareKeys(companyOf(a), companyOf(b)) ||
      compareKeys(items[a]!.key, items[b]!.key),
  );
  // Usually every contact is plain: then no array of nulls is kept (a missing copy reads as null).
  const anyCopy = copies.some((copy) => copy !== null);
  return {
    items: order.map((i) => items[i]!),
    copies: anyCopy ? order.map((i) => copies[i] ?? null) : [],
  };
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

/** Whether a contact answers the query; `copy` is its folded copy from the index, or null. */
export function matches(item: MapItem, copy: string | null, query: ContactQuery): boolean {
  if (query.digits !== '') return numbersInclude(item.data, query.digits);
  // Words hold no spaces or control characters, so none can match across name and company.
  for (const word of query.words) {
    const found =
      copy === null
        ? includesFolded(textOf(item.data, 'name'), word) ||
          includesFolded(textOf(item.data, 'company'), word)
        : copy.includes(word);
    if (!found) return false;
  }
  return true;
}

/** The contacts matching `raw`, in index order; the index's own array when the query is empty. */
export function searchContacts(index: ContactIndex, raw: string): readonly MapItem[] {
  const query = parseQuery(raw);
  if (query.digits === '' && query.words.length === 0) return index.items;
  const found: MapItem[] = [];
  for (let i = 0; i < index.items.length; i++) {
    const item = index.items[i]!;
    if (matches(item, index.copies[i] ?? null, query)) found.push(item);
  }
  return found;
}
