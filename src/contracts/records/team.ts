/**
 * The team's own settings, the `team-settings` document: read by everyone, changed by admins. For now the
 * default country phone numbers are read in ("020 7946 0958" is a London number when it is GB);
 * an empty string is "not set" (the first admin's browser suggests one at sign-in).
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

/** An ISO 3166 two-letter country ("GB"), or '' while none is set. */
export const COUNTRY_CODE = /^(?:[A-Z]{2})?$/;

export const TeamSchema = v.object({
  defaultCountry: v.optional(
    v.pipe(v.string(), v.regex(COUNTRY_CODE, 'Choose a country by its two-letter code, like GB.')),
    '',
  ),
});
export type Team = v.InferOutput<typeof TeamSchema>;

export const teamRecord = defineRecord('team', TeamSchema, { defaultCountry: '' });
