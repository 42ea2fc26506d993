/**
 * A contact as the `contacts` map holds it (key = contact id). Items written by other clients (or
 * older versions) are read defensively: a field of the wrong type reads as empty, never a crash.
 */
import type { JsonObject } from '../../../machines/syncPorts';

export interface Phone {
  label: string;
  number: string;
}

export interface Contact {
  name: string;
  company: string;
  phones: Phone[];
  email: string;
  note: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function phonesOf(value: unknown): Phone[] {
  if (!Array.isArray(value)) return [];
  const phones: Phone[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { label, number } = entry as Record<string, unknown>;
    if (typeof number === 'string' && number !== '') phones.push({ label: text(label), number });
  }
  return phones;
}

export function contactFromData(data: JsonObject): Contact {
  return {
    name: text(data.name),
    company: text(data.company),
    phones: phonesOf(data.phones),
    email: text(data.email),
    note: text(data.note),
  };
}

export function contactToData(contact: Contact): JsonObject {
  return {
    name: contact.name,
    company: contact.company,
    phones: contact.phones.map((p) => ({ label: p.label, number: p.number })),
    email: contact.email,
    note: contact.note,
  };
}

/** A new contact id: random, URL-safe, and not dependent on `crypto.randomUUID` (plain-http LANs). */
export function newContactId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `c-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
