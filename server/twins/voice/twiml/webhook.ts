/**
 * How the twin calls an application's webhooks, as Twilio does:
 * - the request is a form POST (or GET with the same fields in the query), signed with
 *   `X-Twilio-Signature`: base64 of the HMAC-SHA1, under the account's auth token, of the full URL
 *   followed by each POST field's name and value, sorted by name
 *   (https://www.twilio.com/docs/usage/webhooks/webhooks-security); a test checks it against the
 *   `twilio` package's own `validateRequest`;
 * - an answer must come within 15 s, or Twilio gives up (error 11205, "HTTP connection failure")
 *   and asks the fallback URL if one is set
 *   (https://www.twilio.com/docs/usage/webhooks/webhooks-connection-overrides: the default read
 *   timeout of a voice webhook is 15 s);
 * - an answer that is not 2xx is error 11200, "HTTP retrieval failure"
 *   (https://www.twilio.com/docs/api/errors/11200);
 * - a status callback's answer is not read; one not answered in time is dropped, never sent again;
 * - every failure is recorded in the account's log as Twilio's debugger and Notifications resource
 *   record it (https://www.twilio.com/docs/voice/api/notification-resource): its error code, the
 *   URL and method asked, the call (`failed`, below).
 */
import { createHmac } from 'node:crypto';

/** Twilio's wait for a voice webhook's answer before the fallback. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export type Params = Readonly<Record<string, string>>;

/** `X-Twilio-Signature` for a request to `url` with `params` (the POST fields; none for a GET). */
export function signature(authToken: string, url: string, params: Params): string {
  let data = url;
  for (const key of Object.keys(params).sort()) data += key + params[key];
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export interface WebhookTarget {
  url: string;
  method: 'GET' | 'POST';
}

export class WebhookError extends Error {
  constructor(
    /** 11200 (an answer that is not 2xx) or 11205 (no answer in time, or no connection). */
    readonly code: 11200 | 11205,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

export interface WebhookClient {
  /** Asks `target` for TwiML; throws {@link WebhookError}. */
  twiml(target: WebhookTarget, params: Params): Promise<string>;
  /** Tells `target` something (a status callback); failures are logged, never thrown. */
  notify(target: WebhookTarget, params: Params): Promise<void>;
}

export interface WebhookClientOptions {
  authToken: string;
  /** The HTTP client (the global fetch by default; tests pass their own). */
  fetch?: typeof fetch;
  timeoutMs?: number;
  log?: (message: string) => void;
  /** Told how long each TwiML request took (`npm run bench voice`: the webhook's share of setup). */
  timed?: (url: string, ms: number) => void;
  /** Told of each failed request (11200 or 11205), as Twilio's debugger records it. */
  failed?: (failure: WebhookFailure) => void;
}

export interface WebhookFailure {
  code: 11200 | 11205;
  message: string;
  url: string;
  method: 'GET' | 'POST';
  callSid: string | null;
}

export function webhookClient(options: WebhookClientOptions): WebhookClient {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const log = options.log ?? (() => {});
  const failed = (target: WebhookTarget, params: Params, err: WebhookError): void =>
    options.failed?.({
      code: err.code,
      message: err.message,
      url: target.url,
      method: target.method,
      callSid: params.CallSid ?? null,
    });

  async function send(target: WebhookTarget, params: Params): Promise<Response> {
    let url = target.url;
    let body: string | null = null;
    const headers: Record<string, string> = {};
    if (target.method === 'GET') {
      const u = new URL(target.url);
      for (const [k, v] of Object.entries(params)) u.searchParams.append(k, v);
      url = u.toString();
      headers['X-Twilio-Signature'] = signature(options.authToken, url, {});
    } else {
      body = new URLSearchParams(params).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      headers['X-Twilio-Signature'] = signature(options.authToken, url, params);
    }
    headers['I-Twilio-Idempotency-Token'] = crypto.randomUUID();
    try {
      return await doFetch(url, {
        method: target.method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new WebhookError(
        11205,
        `HTTP connection failure: ${url}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  return {
    async twiml(target, params) {
      const started = performance.now();
      try {
        const response = await send(target, params);
        const text = await response.text().catch(() => '');
        options.timed?.(target.url, performance.now() - started);
        if (!response.ok)
          throw new WebhookError(
            11200,
            `HTTP retrieval failure: ${target.url} answered ${response.status}`,
          );
        return text;
      } catch (err) {
        if (err instanceof WebhookError) failed(target, params, err);
        throw err;
      }
    },
    async notify(target, params) {
      try {
        const response = await send(target, params);
        await response.arrayBuffer().catch(() => undefined);
        if (!response.ok) {
          log(`status callback ${target.url} answered ${response.status}`);
          failed(
            target,
            params,
            new WebhookError(
              11200,
              `HTTP retrieval failure: ${target.url} answered ${response.status}`,
            ),
          );
        }
      } catch (err) {
        // Not answered in 15 s (11205): Twilio drops the callback, and says so in its debugger.
        log(
          `status callback ${target.url} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
        if (err instanceof WebhookError) failed(target, params, err);
      }
    },
  };
}
