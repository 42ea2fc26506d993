import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError, type ErrorCode, type RefusalKind } from '../errors';

export type { ErrorCode } from '../errors';

/** Thrown anywhere below a route handler; the app turns it into the JSON error answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string): HttpError =>
  new HttpError(400, 'bad_request', message);

/** The HTTP status each kind of refusal is answered with. */
const STATUS: Readonly<Record<RefusalKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  tooMany: 429,
  upstream: 502,
  unavailable: 503,
};

/**
 * The one place a feature's refusal becomes an HTTP answer: an HttpError as it is, a DomainError
 * (identity's, …) by its kind, with Retry-After when it says when to try again; null for anything
 * else (a bug, answered 500 by the caller).
 */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError)
    return new HttpError(
      STATUS[err.kind],
      err.code,
      err.message,
      err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) },
    );
  return null;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** The JSON body every error answer of the API has. */
export const errorBody = (error: HttpError): { error: { code: string; message: string } } => ({
  error: { code: error.code, message: error.message },
});

export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(res, error.status, errorBody(error), error.headers);
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The server's 'clientError' listener: requests Node cannot even parse still get the JSON shape. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify({ error: { code: 'bad_request', message } });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
