import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors';

// host[:port]: a DNS name or IPv4 address, or a bracketed IPv6 literal, and an optional port.
const HOST_HEADER = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

export interface RequestOrigin {
  protocol: 'http' | 'https';
  /** host[:port] as the browser addressed us. */
  host: string;
  /** e.g. http://127.0.0.1:8080 */
  origin: string;
}

/**
 * Where the browser believes it is talking to. Behind a TLS proxy (trustProxy) the
 * X-Forwarded-Proto/-Host headers say so; otherwise only the Host header counts.
 */
export function requestOrigin(req: IncomingMessage, trustProxy: boolean): RequestOrigin {
  const forwardedHost = trustProxy ? firstValue(req.headers['x-forwarded-host']) : undefined;
  const forwardedProto = trustProxy ? firstValue(req.headers['x-forwarded-proto']) : undefined;
  const host = forwardedHost ?? req.headers.host ?? '';
  if (!HOST_HEADER.test(host)) {
    throw new HttpError(400, 'bad_request', 'The Host header is missing or malformed');
  }
  // Served over TLS by this server itself (TLS_CERT/TLS_KEY), or by a trusted proxy that says so.
  const direct = (req.socket as { encrypted?: boolean }).encrypted === true;
  const protocol = direct || forwardedProto?.toLowerCase() === 'https' ? 'https' : 'http';
  const lowered = host.toLowerCase();
  return { protocol, host: lowered, origin: `${protocol}://${lowered}` };
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/**
 * The client's address for rate limiting. Behind a trusted proxy it is the last X-Forwarded-For
 * entry, the one the proxy itself appended (earlier entries are whatever the client claimed).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const list = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
    const last = list[list.length - 1]?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

/** Methods that change state; a browser always sends Origin with these when cross-site. */
export function isStateChanging(method: string | undefined): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

/**
 * Refuses a state-changing request sent by a page from another origin. Requests without an
 * Origin header (curl, scripts) pass: they carry no ambient browser credentials by accident.
 */
export function checkSameOrigin(req: IncomingMessage, own: RequestOrigin): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (origin.toLowerCase() !== own.origin) {
    throw new HttpError(
      403,
      'origin_mismatch',
      `Requests from ${origin.slice(0, 100)} are not accepted; use ${own.origin}`,
    );
  }
}
