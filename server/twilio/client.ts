/**
 * The `twilio` REST client the server writes and reads Sync through. Requests go to Twilio, to the
 * twins in this process (their address, server/app.ts) or, with the SWITCHBOARD_TWILIO_API_URL test
 * hook, to a local stand-in of Twilio's API: the package's own HTTP client (its `httpClient`
 * option) is kept, only the address is rewritten, so what the twins or the stand-in receive is
 * exactly what Twilio would (same paths, form bodies, Basic auth). A request is tried again with
 * backoff ({@link RetryPolicy}) when that cannot do it twice ({@link mayRetry}): a read or delete on
 * 429, 5xx or a lost connection; a POST (a create, a redirect: not idempotent) only when Twilio
 * refused it before acting (429, 503) or it was never sent (the connection refused).
 */
import type { Agent } from 'node:https';
import twilio from 'twilio';
import type { TwilioConfig } from './config';

/**
 * `https://sync.twilio.com/v1/Services/…` → `<base>/sync/v1/Services/…`: the product (the first
 * label of Twilio's host name) becomes the first path segment, so one stand-in serves them all.
 */
export function redirectedUri(uri: string, base: string): string {
  const url = new URL(uri);
  const product = url.hostname.split('.')[0] ?? '';
  return `${base}/${product}${url.pathname}${url.search}`;
}

/**
 * How requests to Twilio are tried again. Sync answers 429 (error 54009) past 20 writes a second on
 * one object and asks for "a good exponential back-off algorithm ... to retry on HTTP 429"
 * (https://www.twilio.com/docs/api/errors/54009, https://www.twilio.com/docs/sync/limits); a 5xx or a
 * dropped connection is a brief failure worth the same, for a request that may be sent twice
 * ({@link mayRetry}). Full jitter (a random wait up to the doubled
 * step), as the article that page points to advises. At most `retries` more tries, so a webhook still
 * answers well inside Twilio's 15 s (routing-data.ts bounds its own wait too).
 */
export interface RetryPolicy {
  retries: number;
  baseMs: number;
  capMs: number;
}
export const RETRY_POLICY: RetryPolicy = { retries: 3, baseMs: 100, capMs: 1000 };

/**
 * A write that failed even after the client's retries (Sync down for minutes) is tried again in
 * the background, at most this many times, after 5 s, 20 s, 80 s, 5 min and 20 min: the history
 * rows (fallback.ts) and "on a call" (on-call.ts).
 */
export const LATER_RETRIES = 5;
export const laterRetryMs = (attempt: number): number => 5000 * 4 ** attempt;

/** Whether an answer with this status is worth another try. */
export const retryable = (status: number): boolean => status === 429 || status >= 500;

/** Errors of a request that never reached the server: nothing can have been done. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether a request that failed so may be sent again without being done twice. GET and DELETE are
 * idempotent. A POST creates (a call, a user-defined message, a Sync list item) or changes (a
 * redirect runs TwiML again) and is not: after a timeout or a reset connection Twilio may have acted
 * on it, so it is tried again only when Twilio said it did not act (429: the rate limit, 54009 and
 * https://www.twilio.com/docs/usage/api/api-rate-limits; 503: unavailable) or the connection was
 * never made. Its caller decides what to do then (the history row looks for itself first: fallback.ts).
 */
export function mayRetry(method: string, failure: { status: number } | { code: string }): boolean {
  const idempotent = method.toUpperCase() !== 'POST';
  if ('status' in failure)
    return idempotent
      ? retryable(failure.status)
      : failure.status === 429 || failure.status === 503;
  return idempotent || NOT_SENT.has(failure.code);
}

const errorCode = (err: unknown): string =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : '';

type Sent<TData> = Parameters<InstanceType<typeof twilio.RequestClient>['request']>[0] & {
  data?: TData;
};

/**
 * The package's RequestClient with retries ({@link RetryPolicy}) and, with a `base` (the
 * SWITCHBOARD_TWILIO_API_URL test hook), every request sent there instead of Twilio.
 */
export class SwitchboardRequestClient extends twilio.RequestClient {
  constructor(
    /** Where requests go instead of Twilio, read per request (the twins' is known once listening). */
    private readonly base: string | null | (() => string | null | Promise<string | null>),
    private readonly policy: RetryPolicy = RETRY_POLICY,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((r) => setTimeout(r, ms)),
    /** The HTTPS agent in place of the package's (the twins over this server's own TLS). */
    agent?: Agent,
    /** How long a request waits for its answer. */
    timeoutMs = 5000,
  ) {
    super({ timeout: timeoutMs, keepAlive: true });
    if (agent) this.axios.defaults.httpsAgent = agent;
  }

  override async request<TData>(opts: Sent<TData>) {
    const base = typeof this.base === 'function' ? await this.base() : this.base;
    const sent = base ? { ...opts, uri: redirectedUri(opts.uri, base) } : opts;
    const method = String(opts.method ?? 'GET');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.policy.retries;
      try {
        const response = await super.request<TData>(sent);
        if (last || !mayRetry(method, { status: response.statusCode })) return response;
      } catch (err) {
        if (last || !mayRetry(method, { code: errorCode(err) })) throw err;
      }
      const step = Math.min(this.policy.capMs, this.policy.baseMs * 2 ** attempt);
      await this.sleep(Math.random() * step);
    }
  }
}

export type TwilioClient = ReturnType<typeof twilio>;

/** A client authenticated with the API key; `httpClient` replaces the package's (tests). */
export function createTwilioClient(
  config: TwilioConfig,
  httpClient?: InstanceType<typeof twilio.RequestClient>,
): TwilioClient {
  return twilio(config.apiKey, config.apiSecret, {
    accountSid: config.accountSid,
    httpClient: httpClient ?? new SwitchboardRequestClient(() => config.apiBaseUrl),
  });
}
