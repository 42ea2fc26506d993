/**
 * The Sync twin as Twilio's Sync REST API (`https://sync.twilio.com/v1/…`), at `<mount>/sync/v1/…`
 * on this server's port: what the app (server/twilio/) calls through the `twilio` package on the
 * twins, its requests sent to `<origin><mount>` (the package's request client moves
 * `https://sync.twilio.com/v1/…` to `<that>/sync/v1/…`, server/twilio/client.ts).
 *
 * Requests are authenticated as Twilio's are, with HTTP Basic: the Account SID and auth token, or
 * an API key SID and its secret (https://www.twilio.com/docs/usage/requests-to-twilio,
 * https://www.twilio.com/docs/api/errors/20003); anything else is answered 401 / 20003. Bodies are
 * form-encoded (`Data` a JSON string); answers and errors are Twilio's JSON
 * (`{code, message, more_info, status}`). Each request runs in one transaction: a refused one
 * changes nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core';
import { errors, SyncRestError } from '../errors';
import { handle, type Api, type ApiRequest } from './resources';
import { openTwilioState, type TwilioState } from './state';
import { startSyncWebhooks, type SyncWebhooks } from './webhooks';
import type { SyncFaults } from './faults';

export interface TwilioApiOptions {
  accountSid: string;
  /** The account's auth token: Basic with the Account SID. */
  authToken?: string | undefined;
  /** API keys (`SK…`) and their secrets: Basic with the key SID. */
  apiKeys?: Readonly<Record<string, string>> | undefined;
  /** The SID of the service the twin's objects live in. */
  serviceSid: string;
  /** Path before `/sync/v1` (default '/twilio'). */
  mount?: string;
  /** Writes per object (default Twilio's, state.ts); tests may lower it. */
  writeRate?: { perSecond: number; burst: number };
  /**
   * Tests only (SWITCHBOARD_TEST_SYNC_DELAY_MS, config.ts): every read (GET) is answered this many
   * ms late, each on its own (concurrent reads wait side by side), as a slow Sync would answer.
   */
  readDelayMs?: number;
  /** Tests only (SWITCHBOARD_TEST_SYNC_FAULTS, faults.ts): requests refused as a Sync in trouble. */
  faults?: SyncFaults | null;
  /** Sends the Sync webhooks (the global fetch by default; the twins pass their own TLS's). */
  webhookFetch?: typeof fetch;
  /** Where a failing Sync webhook is told (console by default). */
  log?: (message: string) => void;
  /** Told each request answered (SWITCHBOARD_SYNC_LOG_REQUESTS=1: tests count the reads). */
  onRequest?: (method: string, path: string, status: number) => void;
}

export const DEFAULT_TWILIO_API_MOUNT = '/twilio';

/** A form body larger than this is refused (a 16 KiB `Data`, percent-encoded, fits easily). */
const MAX_BODY_BYTES = 256 * 1024;

export interface TwilioApi {
  /** Answers a request under `<mount>/sync/`; false for any other path (the caller answers it). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** The service's ACL and permissions (for the client requests' access check). */
  state: TwilioState;
  /** The Sync webhooks of the service's `webhook_url` (webhooks.ts). */
  webhooks: SyncWebhooks;
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, e: SyncRestError): void {
  if (e.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="Twilio API"');
  send(res, e.status, e.body());
}

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function authenticated(req: IncomingMessage, options: TwilioApiOptions): boolean {
  const header = req.headers.authorization ?? '';
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header.trim());
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (user === options.accountSid && options.authToken) return same(password, options.authToken);
  const secret = options.apiKeys?.[user];
  return secret !== undefined && same(password, secret);
}

/** https://www.twilio.com/docs/api/errors/20003 */
const unauthenticated = () => new SyncRestError(401, 20003, 'Authenticate');

/** Changes made through the REST API are the `system` identity's (Sync webhooks' `Identity`). */
const REST_ORIGIN = { via: 'rest', identity: 'system' } as const;

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

export function createTwilioApi(core: Core, options: TwilioApiOptions): TwilioApi {
  const mount = (options.mount ?? DEFAULT_TWILIO_API_MOUNT).replace(/\/$/, '');
  const prefix = `${mount}/sync/`;
  const state = openTwilioState(core, options.serviceSid, options.writeRate);
  const api: Api = {
    core,
    state,
    accountSid: options.accountSid,
    serviceSid: options.serviceSid,
  };

  async function answer(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!authenticated(req, options)) throw unauthenticated();
    const rawSegments = url.pathname.slice(prefix.length).split('/');
    if (rawSegments[0] !== 'v1') throw errors.notFound(url.pathname);
    let segments: string[];
    try {
      segments = rawSegments.slice(1).map((s) => decodeURIComponent(s));
    } catch {
      throw errors.notFound(url.pathname);
    }
    if (segments.at(-1) === '' && segments.length > 1) segments.pop();
    const method = (req.method ?? 'GET').toUpperCase();
    let form: Record<string, string> = {};
    let body = '';
    if (method === 'POST') {
      const text = await readBody(req);
      if (text === null) throw new SyncRestError(413, 20413, 'Request body too large');
      body = text;
      form = Object.fromEntries(new URLSearchParams(text));
    } else req.resume();
    const slowMs = options.faults?.delayMs() ?? 0;
    if (slowMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, slowMs));
    const fault = options.faults?.refusal(method, `${url.pathname}${url.search}`, body);
    if (fault) throw fault;
    const ifMatch = req.headers['if-match'];
    const request: ApiRequest = {
      method,
      segments,
      query: Object.fromEntries(url.searchParams),
      form,
      ifMatch: typeof ifMatch === 'string' ? ifMatch.trim() : undefined,
    };
    // One transaction per request: a request that fails part-way leaves nothing behind.
    const out = core.batch(() => core.actingAs(REST_ORIGIN, () => handle(api, request)));
    send(res, out.status, out.body);
    options.onRequest?.(method, url.pathname, out.status);
  }

  const webhooks = startSyncWebhooks({
    core,
    state,
    names: api,
    authToken: options.authToken,
    ...(options.webhookFetch ? { fetch: options.webhookFetch } : {}),
    log: options.log ?? ((message) => console.error(`[sync] ${message}`)),
    ...(options.faults ? { lost: () => options.faults!.webhooksLost() } : {}),
  });

  return {
    state,
    webhooks,
    handle(req, res) {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return false;
      }
      if (!url.pathname.startsWith(prefix)) return false;
      const delay = req.method === 'GET' ? (options.readDelayMs ?? 0) : 0;
      const late = delay > 0 ? new Promise<void>((r) => setTimeout(r, delay)) : Promise.resolve();
      late
        .then(() => answer(req, res, url))
        .catch((e: unknown) => {
          if (res.headersSent) {
            res.destroy();
            return;
          }
          if (e instanceof SyncRestError) {
            sendError(res, e);
            options.onRequest?.(req.method ?? 'GET', url.pathname, e.status);
          } else {
            console.error('[sync] Twilio REST request failed', e);
            sendError(res, errors.internal());
          }
        });
      return true;
    },
  };
}
