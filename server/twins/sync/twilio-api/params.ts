/**
 * Twilio's form parameters as the Sync REST API reads them: `Ttl`/`ItemTtl`/`CollectionTtl` in
 * seconds, `Data` a JSON object in a string, booleans as `true`/`false`, and the pages of the
 * collections the core does not page itself. Refusals are Twilio's:
 * https://www.twilio.com/docs/api/errors/54011 (ttl), …/54006 (data too large), 20001 (a parameter
 * missing or malformed).
 */
import { errors, SyncRestError } from '../errors';
import { limits } from '../limits';
import { parsePageSize } from '../rest/query';
import type { RestKind } from './render';

export const fail = (status: number, code: number, message: string) =>
  new SyncRestError(status, code, message);

/** https://www.twilio.com/docs/api/errors/54011 */
export const invalidTtl = () =>
  fail(
    400,
    54011,
    'Invalid TTL: the TTL value in seconds must either be empty or an integer between 0 and 31536000 (1 year)',
  );
export const missing = (name: string) =>
  fail(400, 20001, `Missing required parameter ${name} in the post body`);

/** The first of `names` given, as seconds (Ttl is the alias a more specific name overrides). */
export function ttlParam(form: Record<string, string>, names: string[]): number | undefined {
  for (const name of names) {
    const value = form[name];
    if (value === undefined || value === '') continue;
    if (!/^\d{1,9}$/.test(value) || Number(value) > limits.maxTtlSeconds) throw invalidTtl();
    return Number(value);
  }
  return undefined;
}

const DATA_WHAT: Record<RestKind, string> = {
  document: 'Document data',
  list: 'List Item data',
  map: 'Map Item data',
};

/** `Data`: a JSON object of at most 16 KiB (https://www.twilio.com/docs/api/errors/54006). */
export function dataParam(
  form: Record<string, string>,
  kind: RestKind,
  required: boolean,
): unknown {
  const text = form.Data;
  if (text === undefined) {
    if (required) throw missing('Data');
    return undefined;
  }
  if (Buffer.byteLength(text) > limits.maxDataBytes)
    throw errors.dataTooLarge(DATA_WHAT[kind], limits.maxDataBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.invalidData(kind, `Invalid ${DATA_WHAT[kind]}: not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.invalidData(kind, `Invalid ${DATA_WHAT[kind]}: must be a JSON object`);
  return value;
}

export function boolParam(form: Record<string, string>, name: string, required: boolean) {
  const value = form[name];
  if (value === undefined) {
    if (required) throw missing(name);
    return undefined;
  }
  const v = value.toLowerCase();
  if (v !== 'true' && v !== 'false')
    throw fail(400, 20001, `Invalid parameter ${name}: must be true or false`);
  return v === 'true';
}

/** Offset paging for the collections the core does not page itself (objects, permissions). */
export function offsetPage(query: Record<string, string>): {
  size: number;
  page: number;
  offset: number;
} {
  const size = parsePageSize(query.PageSize);
  const pageNo = /^\d{1,6}$/.test(query.Page ?? '') ? Number(query.Page) : 0;
  const token = query.PageToken;
  if (token !== undefined) {
    if (!/^PO\d{1,9}$/.test(token)) throw errors.invalidPageToken();
    return { size, page: pageNo, offset: Number(token.slice(2)) };
  }
  return { size, page: pageNo, offset: pageNo * size };
}
