import type { IncomingMessage } from 'node:http';
import * as v from 'valibot';
import { InexactNumberError, parseExactJson } from '../lib/exact-json';
import { badRequest, HttpError } from './errors';
import type { Route } from '../../../src/contracts/api-route';

/** Bodies of the JSON API are small: anything larger is refused while it streams in. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** `application/json`, optionally with `charset=utf-8`; nothing else is accepted. */
function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => param === '' || /^charset="?utf-8"?$/.test(param));
}

const tooLarge = (): HttpError =>
  new HttpError(
    413,
    'payload_too_large',
    `Request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
    // The rest of an oversize body is never read, so the connection cannot be reused.
    { Connection: 'close' },
  );

/**
 * Reads and parses a JSON request body, enforcing the content type and the size limit before
 * anything is parsed. Resolves with the parsed value (any JSON type: the caller validates shape).
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Request body must be sent as Content-Type: application/json',
    );
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > BODY_LIMIT_BYTES) throw tooLarge();

  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: HttpError | null): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        // Stop buffering; the socket is closed after the 413 is written.
        req.pause();
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(null);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () =>
      finish(new HttpError(400, 'bad_request', 'The request body could not be read')),
    );
    req.on('aborted', () => finish(new HttpError(400, 'bad_request', 'The request was aborted')));
  });

  if (text.trim() === '') throw new HttpError(400, 'invalid_json', 'Request body is empty');
  try {
    return parseExactJson(text);
  } catch (err) {
    if (err instanceof InexactNumberError) throw new HttpError(400, 'invalid_json', err.message);
    throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON');
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type BodySchema = v.GenericSchema<any, any>;

/**
 * The JSON body of a request to `route`, parsed with the route's body schema (src/contracts/api.ts):
 * its value as the schema gives it, or a 400 `bad_request` naming the first problem, in the order a
 * person fixes them: not an object, an unknown field, a missing field, then a field's own rule (its
 * message is the schema's).
 */
export async function readBody<R extends Route & { body: BodySchema }>(
  req: IncomingMessage,
  route: R,
): Promise<v.InferOutput<R['body']>> {
  const value = await readJsonBody(req);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('Request body must be a JSON object');
  const result = v.safeParse(route.body, value);
  if (result.success) return result.output as v.InferOutput<R['body']>;
  throw badRequest(problemOf(result.issues));
}

type AnyIssue = v.BaseIssue<unknown>;

/** The key a strict object's own issue is about (an unknown or missing field), or null. */
function fieldOf(issue: AnyIssue): string | null {
  if (issue.type !== 'strict_object' && issue.type !== 'object') return null;
  const key = issue.path?.length === 1 ? issue.path[0]?.key : undefined;
  return typeof key === 'string' ? key : null;
}

function problemOf(issues: readonly AnyIssue[]): string {
  const unknown = issues.find((i) => i.expected === 'never' && fieldOf(i) !== null);
  if (unknown) return `Unknown field: ${JSON.stringify(fieldOf(unknown)).slice(0, 60)}`;
  const missing = issues.find((i) => i.input === undefined && fieldOf(i) !== null);
  if (missing) return `Missing field: ${fieldOf(missing)}`;
  return issues[0]?.message ?? 'Request body is not valid';
}
