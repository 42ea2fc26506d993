/**
 * Reads the REST request tunnelled in a Twilsock `message`: method, percent-encoded path split on `/` before
 * decoding each segment (names may contain an encoded `/`), params decoded without treating `+` as a space,
 * headers lower-cased, JSON body (ignored for GET and DELETE: the SDK sends `data_sync` with every DELETE).
 */
import { InexactNumberError } from '../../platform/lib/exact-json';
import { errors } from './errors';
import { parseJsonPayload } from './framing';
import type { RestRequest } from './rest/context';

function decodeSegment(s: string): string {
  const decoded = decodeURIComponent(s);
  // Lone surrogates (from a JSON "\ud800" escape) cannot be stored or encoded into a URL again.
  if (/\p{Cs}/u.test(decoded)) throw new URIError('lone surrogate');
  return decoded;
}

/** Validates and decodes the tunnelled request: percent-decoded segments and params, lower-cased headers, JSON body. */
export function parseRequest(
  h: Record<string, unknown>,
  payload: Buffer,
): { request: RestRequest } | { error: ReturnType<typeof errors.badJson> } {
  const method = typeof h.method === 'string' ? h.method.toUpperCase() : '';
  if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) {
    return {
      error: errors.methodNotAllowed(describe(h.method), typeof h.path === 'string' ? h.path : '?'),
    };
  }
  if (typeof h.path !== 'string' || !h.path.startsWith('/'))
    return { error: errors.invalidParam('http_request.path', 'must start with /') };
  let segments: string[];
  const params: Record<string, string> = {};
  try {
    segments = h.path.slice(1).split('/').map(decodeSegment);
    const rawParams = h.params ?? {};
    if (typeof rawParams !== 'object' || rawParams === null || Array.isArray(rawParams))
      throw new URIError('params');
    for (const [k, v] of Object.entries(rawParams as Record<string, unknown>)) {
      const last = Array.isArray(v) ? (v[v.length - 1] as unknown) : v;
      if (typeof last === 'string') params[decodeSegment(k)] = decodeSegment(last);
      else if (typeof last === 'number' || typeof last === 'boolean') params[k] = String(last);
      else throw new URIError('param');
    }
  } catch {
    return {
      error: errors.invalidParam('http_request', 'path or params are not valid percent-encoding'),
    };
  }
  const headers: Record<string, string> = {};
  const rawHeaders = h.headers;
  if (typeof rawHeaders === 'object' && rawHeaders !== null && !Array.isArray(rawHeaders)) {
    for (const [k, v] of Object.entries(rawHeaders as Record<string, unknown>)) {
      if (typeof v === 'string' || typeof v === 'number') headers[k.toLowerCase()] = String(v);
    }
  }
  let body: unknown;
  if (method !== 'DELETE' && method !== 'GET') {
    try {
      body = parseJsonPayload(payload);
    } catch (err) {
      return {
        error: err instanceof InexactNumberError ? errors.inexactNumber(err) : errors.badJson(),
      };
    }
  }
  return { request: { method, segments, params, headers, body } };
}

/** A short, never-throwing rendering of a client-supplied value for error messages. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value.slice(0, 40);
  try {
    return (JSON.stringify(value) ?? typeof value).slice(0, 40);
  } catch {
    return typeof value;
  }
}
