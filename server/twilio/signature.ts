/**
 * Twilio's webhook requests: a form body (`application/x-www-form-urlencoded`, at most 64 KiB) and
 * the `X-Twilio-Signature` header, an HMAC of the URL Twilio requested and the form fields under the
 * account's auth token, checked with the package's `validateRequest`. The URL is rebuilt from the
 * configured public URL and the request's path and query, never from the Host header (which a
 * sender chooses). A request without a valid signature is refused (403) before anything reads it.
 */
import type { IncomingMessage } from 'node:http';
import twilio from 'twilio';
import { BODY_LIMIT_BYTES } from '../platform/http/body';
import { HttpError } from '../platform/http/errors';
import type { TwilioConfig } from './config';

export type FormParams = Record<string, string | string[]>;

function readBody(req: IncomingMessage): Promise<string> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > BODY_LIMIT_BYTES)
    return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () =>
      reject(new HttpError(400, 'bad_request', 'The request body could not be read')),
    );
  });
}

const tooLarge = (): HttpError =>
  new HttpError(
    413,
    'payload_too_large',
    `Request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB`,
    {
      Connection: 'close',
    },
  );

/** The form as `validateRequest` wants it: one string per field, an array for a repeated one. */
export function parseForm(body: string): FormParams {
  const params: FormParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const seen = params[key];
    if (seen === undefined) params[key] = value;
    else params[key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return params;
}

/**
 * Reads a webhook's form and checks its signature; throws 415 for another body type, 413 for a large
 * one, 403 `bad_signature` for a missing or wrong signature or another account's request.
 */
export async function readSignedForm(
  req: IncomingMessage,
  config: Pick<TwilioConfig, 'authToken' | 'publicUrl' | 'accountSid'>,
): Promise<Record<string, string>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Twilio webhooks are sent as application/x-www-form-urlencoded',
    );
  const params = parseForm(await readBody(req));
  const signature = req.headers['x-twilio-signature'];
  if (typeof signature !== 'string' || signature === '')
    throw new HttpError(
      403,
      'bad_signature',
      'The request has no X-Twilio-Signature: only Twilio may call this',
    );
  const url = `${config.publicUrl}${req.url ?? '/'}`;
  if (!twilio.validateRequest(config.authToken, signature, url, params))
    throw new HttpError(
      403,
      'bad_signature',
      'The X-Twilio-Signature does not match this request (check TWILIO_AUTH_TOKEN and SWITCHBOARD_PUBLIC_URL)',
    );
  const single: Record<string, string> = {};
  for (const [key, value] of Object.entries(params))
    single[key] = Array.isArray(value) ? value[0]! : value;
  if (single.AccountSid !== undefined && single.AccountSid !== config.accountSid)
    throw new HttpError(403, 'bad_signature', 'The request is for another Twilio account');
  return single;
}
