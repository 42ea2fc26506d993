/** What a REST handler gets, and the small validators every handler shares (seed section 5). */
import type { Core } from '../core';
import { errors, sidShape, SyncRestError, type ObjectKind } from '../errors';
import type { Subscriber } from '../events';
import { limits } from '../limits';
import type { ObjectRow } from '../store';

export interface RestRequest {
  method: string;
  /** Decoded path segments, e.g. ['v3', 'Lists', 'shopping', 'Items']. */
  segments: string[];
  /** Decoded query parameters (a repeated key keeps its last value). */
  params: Record<string, string>;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** Parsed JSON body, `undefined` when absent (DELETE bodies are ignored before this point). */
  body: unknown;
}

export interface RestResponse {
  status: number;
  body?: unknown;
}

export interface Ctx {
  core: Core;
  /** `http://host:port` as the client addressed us; prefixes every url we return. */
  base: string;
  identity: string;
  /** The requesting connection (subscriptions, stream echo suppression). */
  conn: Subscriber & { subscriptions: Map<string, string>; readonly open: boolean };
  /** The access policy's answer for reading an object (subscriptions); absent allows everything. */
  mayRead?: ((kind: ObjectKind, name: string | null) => SyncRestError | null) | undefined;
}

export type Body = Record<string, unknown>;

export function bodyObject(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw errors.invalidParam('body', 'must be a JSON object');
  return body as Body;
}

/** JSON text of `data`, which must be a plain object within `maxBytes`. */
export function dataJson(value: unknown, maxBytes: number, what: string): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.invalidParam('data', 'must be a JSON object');
  }
  if (depthExceeds(value, limits.maxDataDepth)) {
    throw errors.invalidParam(
      'data',
      `may not be nested deeper than ${limits.maxDataDepth} levels`,
    );
  }
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) > maxBytes) throw errors.dataTooLarge(what, maxBytes);
  return json;
}

/** `ttl` in seconds: absent → undefined; 0 → no expiry (null); else the expiry time. */
export function ttlExpiry(value: unknown, now: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 0 ||
    value > limits.maxTtlSeconds
  ) {
    throw errors.invalidParam('ttl', `must be an integer between 0 and ${limits.maxTtlSeconds}`);
  }
  return value === 0 ? null : now + value * 1000;
}

/** A unique name: 1–320 characters, not shaped like a SID, well-formed Unicode (else 400 / 54302, as the cloud). */
export function uniqueName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > limits.maxNameLength ||
    sidShape.test(value) ||
    hasLoneSurrogate(value)
  )
    throw errors.invalidUniqueName();
  return value;
}

export function ifMatch(headers: Record<string, string>): string | undefined {
  const v = headers['if-match'];
  return v === undefined ? undefined : v.trim();
}

/**
 * Finds an object of `kind` by SID (any SID-shaped id) or unique name; expired objects are removed on the spot and
 * reported missing (per-kind code for a SID, 54300 for a name).
 */
export function findObject(ctx: Ctx, kind: ObjectKind, id: string): ObjectRow {
  const { q } = ctx.core.store;
  const obj = sidShape.test(id) ? q.objectBySid.get(id) : q.objectByName.get(kind, id);
  if (!obj || obj.kind !== kind) throw errors.objectNotFound(kind, id);
  if (obj.date_expires !== null && obj.date_expires <= ctx.core.now()) {
    ctx.core.expiring(() => ctx.core.commit((emit) => ctx.core.removeObject(emit, obj)));
    throw errors.objectNotFound(kind, id);
  }
  return obj;
}

/** Iterative, so a hostile nesting depth cannot overflow the stack the way JSON.stringify would. */
function depthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A lone UTF-16 surrogate cannot be stored as UTF-8 nor percent-encoded into a URL. */
export function hasLoneSurrogate(s: string): boolean {
  return /\p{Cs}/u.test(s);
}
