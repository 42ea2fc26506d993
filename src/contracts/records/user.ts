/**
 * A person on the team, an item of the `users` map (key = identity): what colleagues see of them.
 * Only the server writes it, mirroring its own users table (roles and extensions change through
 * the API). Presence lives in `presence`.
 */
import * as v from 'valibot';
import { defineRecord } from '../record';
import { ROLES } from '../roles';

/** An extension: 2 to 6 digits. */
export const EXTENSION = /^\d{2,6}$/;

export const UserSchema = v.object({
  name: v.pipe(v.string(), v.nonEmpty('A person has a name')),
  email: v.optional(v.string(), ''),
  role: v.optional(v.picklist(ROLES), 'agent'),
  /** The short number that rings them (absent in a directory from before extensions). */
  extension: v.optional(v.pipe(v.string(), v.regex(EXTENSION, 'An extension is 2 to 6 digits'))),
});
export type UserEntry = v.InferOutput<typeof UserSchema>;

/** An entry without a name is not listed. */
export const userRecord = defineRecord('user', UserSchema, { name: '', email: '', role: 'agent' }, [
  'name',
]);
