/**
 * Phone numbers as people type and read them (libphonenumber-js, its default metadata): typed in
 * the team's country's national format or with + and a country code, stored in E.164
 * ("+442079460958"), shown formatted ("020 7946 0958" at home, "+1 415-555-0100" abroad). An
 * extension (2 to 6 digits) is kept as typed. Pure: the team's country is an argument.
 *
 * Not imported by the first page (/login): the metadata is ~100 kB.
 */
import {
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
  type CountryCode,
} from 'libphonenumber-js';
import { EXTENSION } from '../contracts/records/user';

export type { CountryCode } from 'libphonenumber-js';

const COUNTRIES: ReadonlySet<string> = new Set(getCountries());

/** Whether `code` is a country libphonenumber-js knows ("GB", "US"…). */
export function isCountry(code: string): code is CountryCode {
  return COUNTRIES.has(code);
}

/** The two-letter countries, sorted by their English names (for an admin's choice). */
export function countryChoices(
  locale = 'en',
): readonly { code: CountryCode; name: string; callingCode: string }[] {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([locale], { type: 'region' });
  } catch {
    names = null;
  }
  return getCountries()
    .map((code) => ({
      code,
      name: names?.of(code) ?? code,
      callingCode: getCountryCallingCode(code),
    }))
    .sort((a, b) => a.name.localeCompare(b.name, locale));
}

/** A country's name in English ("United Kingdom"), or the code when Intl does not know it. */
export function countryName(code: string, locale = 'en'): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

export type ParsedNumber =
  { ok: true; number: string; kind: 'extension' | 'phone' } | { ok: false; reason: string };

const FORMATTING = /[\s\-.()/]/g;

/**
 * What a typed number is stored as, or why it cannot be: an extension (2 to 6 digits) as typed,
 * any other number parsed in `country` (null: none set, then only + and a country code reads) and
 * stored in E.164. Refused with a sentence saying what to change: letters, too short or too long,
 * a number that is not one in that country, no country to read a national number in.
 */
export function parseNumber(raw: string, country: CountryCode | null): ParsedNumber {
  const typed = raw.trim();
  const bare = typed.replace(FORMATTING, '');
  if (bare === '') return { ok: false, reason: 'Enter a number, or remove this row.' };
  if (EXTENSION.test(bare)) return { ok: true, number: bare, kind: 'extension' };
  if (!/^\+?\d+$/.test(bare) || bare.lastIndexOf('+') > 0) {
    return {
      ok: false,
      reason:
        'Use digits only, with an optional + at the start (spaces, dashes and brackets are fine).',
    };
  }
  const international = bare.startsWith('+');
  if (!international && country === null) {
    return {
      ok: false,
      reason:
        'Start with + and the country code (e.g. +44 20 7946 0958): no default country is set for the team, so a national number cannot be read.',
    };
  }
  const orCountryCode = international ? '' : ', or start with + and the country code';
  const length = validatePhoneNumberLength(bare, country ?? undefined);
  if (length === 'INVALID_COUNTRY') {
    return {
      ok: false,
      reason: `No country has the calling code at the start of ${typed}. Check the digits after the +.`,
    };
  }
  if (length === 'TOO_SHORT' || length === 'NOT_A_NUMBER') {
    return {
      ok: false,
      reason: `${typed} is too short for a phone number. Include the area code${orCountryCode}.`,
    };
  }
  if (length === 'TOO_LONG') {
    return {
      ok: false,
      reason: `${typed} has too many digits for a phone number. Check it${orCountryCode}.`,
    };
  }
  const parsed = parsePhoneNumberFromString(bare, country ?? undefined);
  if (!parsed?.isValid()) {
    const where = international ? '' : ` in the team's country (${countryName(country!)})`;
    return {
      ok: false,
      reason: international
        ? `${typed} is not a valid phone number. Check the digits after the country code.`
        : `${typed} is not a valid phone number${where}. Check the digits, or start with + and the country code (e.g. +1 415 555 0100).`,
    };
  }
  return { ok: true, number: parsed.number, kind: 'phone' };
}

/**
 * A stored number as people read it: in national format when it shares the calling code of the
 * team's `country` ("020 7946 0958"), international otherwise ("+1 415 555 0100"); an extension,
 * or anything that does not parse, as stored.
 */
export function formatNumber(stored: string, country: CountryCode | null): string {
  const value = stored.trim();
  if (!value.startsWith('+')) return value;
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed) return value;
  // At home is the same calling code: +44 7911… is Guernsey's, dialled 07911… from London too.
  return country !== null && parsed.countryCallingCode === getCountryCallingCode(country)
    ? parsed.formatNational()
    : parsed.formatInternational();
}

/**
 * The E.164 number `typed` stands for when it reads as a phone number in `country` (what a dial box
 * sends), else null: an extension, a name, an incomplete number.
 */
export function toE164(typed: string, country: CountryCode | null): string | null {
  const parsed = parseNumber(typed, country);
  return parsed.ok && parsed.kind === 'phone' ? parsed.number : null;
}
