/**
 * The `twilio` REST client the server writes and reads Sync through. Requests go to Twilio, or, with
 * the SWITCHBOARD_TWILIO_API_URL test hook, to a local stand-in of Twilio's API: the package's own
 * HTTP client (its `httpClient` option) is kept, only the address is rewritten, so what the
 * stand-in receives is exactly what Twilio would (same paths, form bodies, Basic auth).
 */
import twilio from 'twilio';
import type { TwilioConfig } from './config';

type RequestOptions = Parameters<InstanceType<typeof twilio.RequestClient>['request']>[0];

/**
 * `https://sync.twilio.com/v1/Services/…` → `<base>/sync/v1/Services/…`: the product (the first
 * label of Twilio's host name) becomes the first path segment, so one stand-in serves them all.
 */
export function redirectedUri(uri: string, base: string): string {
  const url = new URL(uri);
  const product = url.hostname.split('.')[0] ?? '';
  return `${base}/${product}${url.pathname}${url.search}`;
}

/** The package's RequestClient, sending every request to `base` instead of Twilio. */
export class RedirectingRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super({ timeout: 5000, keepAlive: true });
  }

  override request<TData>(opts: RequestOptions & { data?: TData }) {
    return super.request<TData>({ ...opts, uri: redirectedUri(opts.uri, this.base) });
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
    httpClient:
      httpClient ??
      (config.apiBaseUrl
        ? new RedirectingRequestClient(config.apiBaseUrl)
        : new twilio.RequestClient({ timeout: 5000, keepAlive: true })),
  });
}
