/**
 * A record whose writes are stored as written: the contract checks them (and refuses them with the
 * field and the reason), but the defaults it fills in are for reading, not stored. A text
 * announcement then keeps no file, and a group without announcements stores none, as they always
 * have; what is stored stays what this app wrote, so the stored data an edit started from compares
 * equal to it.
 */
import type { AnyObjectSchema, RecordContract } from '../../../contracts/record';

export type { SaveAnswer } from '../../../contracts/api';

export function asWritten<S extends AnyObjectSchema, V>(
  record: RecordContract<S, V>,
): RecordContract<S, V> {
  return {
    ...record,
    check(data) {
      const verdict = record.check(data);
      // The value as given: it passed the schema, which only adds defaults to it.
      return verdict.ok ? { ok: true, value: data as typeof verdict.value } : verdict;
    },
  };
}
