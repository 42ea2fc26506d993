/**
 * A contact as a screen shows it: the `contacts` map's item read by its contract (a field of the
 * wrong type reads as empty, never a crash; a value kept against a rule is shown as stored), with
 * the rows that have no number left out.
 */
import { contactRecord, type Contact } from '../../../contracts/records/contact';
import type { JsonObject } from '../../../contracts/record';

export function contactFromData(data: JsonObject): Contact {
  const contact = contactRecord.read(data);
  return { ...contact, phones: contact.phones.filter((phone) => phone.number !== '') };
}
