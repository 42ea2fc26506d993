/**
 * Twilsock v3 framing: `TWILSOCK V3.0 <H>\r\n<header JSON, H bytes>\r\n<payload, header.payload_size bytes>`.
 * Lengths are UTF-8 byte counts; one message per WebSocket binary frame. Pure functions, so tests, the fuzz
 * test and the bench can build and read frames exactly as the service does.
 */
import { parseExactJson } from '../../platform/lib/exact-json';

export type TwilsockHeader = Record<string, unknown> & { method?: unknown; id?: unknown };

export interface DecodedFrame {
  header: TwilsockHeader;
  /** Raw payload bytes (may be empty). */
  payload: Buffer;
}

export type DecodeResult =
  | { ok: true; frame: DecodedFrame }
  | {
      ok: false;
      reason: string;
      /** The message id and method, when the header could be read. */
      id?: string;
      method?: string;
    };

const MAGIC = 'TWILSOCK V3.0 ';
const CRLF = Buffer.from('\r\n');
/** One decoder for every frame: a non-streaming decode starts afresh, even after a fatal error. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Builds one frame. A string or object payload is JSON/UTF-8 encoded; `payload_size` is always set here, and
 * `payload_type: application/json` for a non-empty payload unless the header has one or `namePayloadType` is
 * false (an absent payload_type means JSON to the SDK, and every header byte costs it decoding time).
 */
export function encodeFrame(
  header: Record<string, unknown>,
  payload?: string | Buffer | object,
  namePayloadType = true,
): Buffer {
  let body: Buffer;
  if (payload === undefined) body = Buffer.alloc(0);
  else if (Buffer.isBuffer(payload)) body = payload;
  else if (typeof payload === 'string') body = Buffer.from(payload, 'utf8');
  else body = Buffer.from(JSON.stringify(payload), 'utf8');
  const full: Record<string, unknown> = { ...header, payload_size: body.length };
  if (namePayloadType && body.length > 0 && full.payload_type === undefined)
    full.payload_type = 'application/json';
  const headerBytes = Buffer.from(JSON.stringify(full), 'utf8');
  return Buffer.concat([
    Buffer.from(`${MAGIC}${headerBytes.length}`, 'latin1'),
    CRLF,
    headerBytes,
    CRLF,
    body,
  ]);
}

/** Reads one frame. Never throws: anything malformed comes back as `{ok:false, reason}`. */
export function decodeFrame(data: Buffer): DecodeResult {
  const cr = data.indexOf(0x0d);
  if (cr < 0 || cr > 40) return { ok: false, reason: 'missing Twilsock preamble' };
  const preamble = data.subarray(0, cr).toString('latin1');
  if (!preamble.startsWith(MAGIC))
    return { ok: false, reason: 'unsupported protocol (expected TWILSOCK V3.0)' };
  const sizeText = preamble.slice(MAGIC.length);
  if (!/^\d{1,9}$/.test(sizeText)) return { ok: false, reason: 'invalid header size' };
  const headerSize = Number(sizeText);
  if (data[cr + 1] !== 0x0a) return { ok: false, reason: 'preamble must end with CRLF' };
  const headerStart = cr + 2;
  if (headerStart + headerSize > data.length)
    return { ok: false, reason: 'header size exceeds frame' };
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(data.subarray(headerStart, headerStart + headerSize)));
  } catch {
    return { ok: false, reason: 'header is not valid UTF-8 JSON' };
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    return { ok: false, reason: 'header must be a JSON object' };
  }
  const h = header as TwilsockHeader;
  const id = typeof h.id === 'string' ? h.id : undefined;
  const method = typeof h.method === 'string' ? h.method : undefined;
  const fail = (reason: string): DecodeResult => ({
    ok: false,
    reason,
    ...(id === undefined ? {} : { id }),
    ...(method === undefined ? {} : { method }),
  });
  const declared = h.payload_size ?? 0;
  if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 0)
    return fail('invalid payload_size');
  const payloadStart = headerStart + headerSize + 2;
  if (declared > 0 && payloadStart + declared > data.length)
    return fail('payload_size exceeds frame');
  const payload =
    declared > 0 ? data.subarray(payloadStart, payloadStart + declared) : Buffer.alloc(0);
  return { ok: true, frame: { header: h, payload } };
}

/** Parses a JSON payload; `undefined` for an empty one. Throws SyntaxError on bad JSON or bad UTF-8. */
export function parseJsonPayload(payload: Buffer): unknown {
  if (payload.length === 0) return undefined;
  return parseExactJson(utf8.decode(payload));
}
