import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Every error code the HTTP API answers with. Clients branch on `code`; `message` is for people.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'origin_mismatch'
  | 'bad_passcode'
  | 'local_sign_in_disabled'
  | 'google_sign_in_disabled'
  | 'invalid_credential'
  | 'email_not_verified'
  | 'upstream_error'
  | 'too_many_attempts'
  | 'last_admin'
  | 'cannot_remove_self'
  | 'extension_taken'
  | 'host_not_allowed'
  | 'not_audio'
  | 'audio_truncated'
  | 'audio_in_use'
  | 'audio_unplayable'
  | 'unknown_language'
  | 'speech_unavailable'
  | 'no_such_call'
  | 'not_your_call'
  | 'not_answered'
  | 'held_by_them'
  | 'unavailable'
  | 'transfer_in_progress'
  | 'no_transfer'
  | 'sign_in_code_required'
  | 'bad_sign_in_code'
  | 'bad_signature'
  | 'group_exists'
  | 'internal_error';

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
