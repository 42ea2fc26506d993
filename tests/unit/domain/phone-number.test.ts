import { describe, expect, it } from 'vitest';
import { guessCountry } from '../../../src/domain/country';
import {
  countryChoices,
  formatNumber,
  isCountry,
  parseNumber,
  toE164,
} from '../../../src/domain/phone-number';

const ok = (number: string, kind: 'phone' | 'extension' = 'phone') => ({ ok: true, number, kind });

describe('phone numbers as typed', () => {
  it('reads a national number in the team country and stores it in E.164', () => {
    expect(parseNumber('020 7946 0958', 'GB')).toEqual(ok('+442079460958'));
    expect(parseNumber('(020) 7946-0958', 'GB')).toEqual(ok('+442079460958'));
    expect(parseNumber('(415) 555-0100', 'US')).toEqual(ok('+14155550100'));
    expect(parseNumber('01 42 68 53 00', 'FR')).toEqual(ok('+33142685300'));
  });

  it('reads + and a country code whatever the team country, or with none set', () => {
    expect(parseNumber('+1 415 555 0100', 'GB')).toEqual(ok('+14155550100'));
    expect(parseNumber('+44 20 7946 0958', null)).toEqual(ok('+442079460958'));
  });

  it('keeps an extension (2 to 6 digits) as typed, without its formatting', () => {
    expect(parseNumber('204', 'GB')).toEqual(ok('204', 'extension'));
    expect(parseNumber(' 1-01 ', null)).toEqual(ok('101', 'extension'));
  });

  it('refuses with a sentence that says what to change', () => {
    const reason = (typed: string, country: 'GB' | 'US' | null) => {
      const parsed = parseNumber(typed, country);
      return parsed.ok ? null : parsed.reason;
    };
    expect(reason('', 'GB')).toBe('Enter a number, or remove this row.');
    expect(reason('call me', 'GB')).toBe(
      'Use digits only, with an optional + at the start (spaces, dashes and brackets are fine).',
    );
    expect(reason('020 7946 0958', null)).toBe(
      'Start with + and the country code (e.g. +44 20 7946 0958): no default country is set for the team, so a national number cannot be read.',
    );
    expect(reason('12345678', 'GB')).toBe(
      "12345678 is not a valid phone number in the team's country (United Kingdom). Check the digits, or start with + and the country code (e.g. +1 415 555 0100).",
    );
    expect(reason('1234567', 'US')).toBe(
      '1234567 is too short for a phone number. Include the area code, or start with + and the country code.',
    );
    expect(reason('+44 20', 'GB')).toBe(
      '+44 20 is too short for a phone number. Include the area code.',
    );
    expect(reason('0207946095899999', 'GB')).toBe(
      '0207946095899999 has too many digits for a phone number. Check it, or start with + and the country code.',
    );
    expect(reason('+999 123 4567', 'GB')).toBe(
      'No country has the calling code at the start of +999 123 4567. Check the digits after the +.',
    );
    expect(reason('+44 12345 678', 'GB')).toBe(
      '+44 12345 678 is not a valid phone number. Check the digits after the country code.',
    );
  });

  it('toE164 is the stored form of a phone number, null for anything else', () => {
    expect(toE164('020 7946 0958', 'GB')).toBe('+442079460958');
    expect(toE164('101', 'GB')).toBeNull();
    expect(toE164('Ben', 'GB')).toBeNull();
  });
});

describe('phone numbers as shown', () => {
  it('in national format at home (the same calling code), international abroad', () => {
    expect(formatNumber('+442079460958', 'GB')).toBe('020 7946 0958');
    expect(formatNumber('+447911123456', 'GB')).toBe('07911 123456');
    expect(formatNumber('+442079460958', 'US')).toBe('+44 20 7946 0958');
    expect(formatNumber('+14155550100', 'US')).toBe('(415) 555-0100');
    expect(formatNumber('+14155550100', null)).toBe('+1 415 555 0100');
  });

  it('an extension, or a stored value that does not parse, as stored', () => {
    expect(formatNumber('101', 'GB')).toBe('101');
    expect(formatNumber('+0', 'GB')).toBe('+0');
  });
});

describe('the team country', () => {
  it("is guessed from the browser's languages, by region or the language's likely one", () => {
    expect(guessCountry(['en-GB', 'en'])).toBe('GB');
    expect(guessCountry(['en'])).toBe('US');
    expect(guessCountry(['de'])).toBe('DE');
    expect(guessCountry(['not a tag', 'fr-CA'])).toBe('CA');
    expect(guessCountry(['es-419', 'es-MX'])).toBe('MX');
    expect(guessCountry([])).toBeNull();
  });

  it('is chosen from every country libphonenumber-js knows, by name, with its calling code', () => {
    const choices = countryChoices();
    expect(choices.length).toBeGreaterThan(200);
    expect(choices.find((c) => c.code === 'GB')).toEqual({
      code: 'GB',
      name: 'United Kingdom',
      callingCode: '44',
    });
    expect(choices.every((c) => isCountry(c.code))).toBe(true);
    expect(isCountry('XX')).toBe(false);
  });
});
