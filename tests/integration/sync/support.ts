/**
 * Helpers for the Sync integration tests: sign in through the real HTTP API, fetch a token, build real SDK
 * clients, and talk raw Twilsock when a test needs to poke the service directly.
 */
import { SyncClient } from 'twilio-sync';
import WebSocket from 'ws';
import { decodeFrame, encodeFrame, parseJsonPayload } from '../../../server/twins/sync/framing';
import { syncTokenFor } from '../../support/access-tokens';
import type { RunningServer } from '../../support/server';
import { rememberSignInKeys, signInKeyHeaders } from '../../support/sign-in-keys';

export interface SyncOptions {
  twilsock: { uri: string };
  cdsUri: string;
}

/** Signs in with POST /api/session/local and returns the `sb_session=…` cookie. */
export async function signIn(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/api/session/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signInKeyHeaders(url, email) },
    body: JSON.stringify({ name: email.split('@')[0], email }),
  });
  rememberSignInKeys(url, email, res);
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.get('set-cookie');
  const m = cookie && /sb_session=[^;]+/.exec(cookie);
  if (!m) throw new Error(`no sb_session cookie in ${String(cookie)}`);
  return m[0];
}

export async function token(
  url: string,
  cookie: string,
): Promise<{ identity: string; token: string; sync: SyncOptions }> {
  const res = await fetch(`${url}/api/token`, { headers: { cookie } });
  if (!res.ok) throw new Error(`token failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { identity: string; token: string; sync: SyncOptions };
}

const clients: SyncClient[] = [];

/** A real SDK client for `email`, signed in through the HTTP API. Shut down by `shutdownClients()`. */
export async function client(url: string, email: string): Promise<SyncClient> {
  const t = await token(url, await signIn(url, email));
  return clientWithToken(t.token, t.sync);
}

export function clientWithToken(jwt: string, sync: SyncOptions): SyncClient {
  const c = new SyncClient(jwt, { ...sync, logLevel: 'silent' });
  clients.push(c);
  return c;
}

export async function shutdownClients(): Promise<void> {
  const all = clients.splice(0, clients.length);
  await Promise.all(all.map((c) => c.shutdown().catch(() => undefined)));
}

export function syncOptions(url: string): SyncOptions {
  const u = new URL(url);
  return { twilsock: { uri: `ws://${u.host}/v3/wsconnect` }, cdsUri: url };
}

/**
 * A Sync token for `identity` signed with the server's account key, as Twilio's are (e.g. with a short
 * ttl, or already old): the twin takes any identity the account signs for.
 */
export function accountToken(
  server: RunningServer,
  identity: string,
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  return syncTokenFor(server.account(), identity, ttlSeconds, nowMs);
}

/**
 * Turns the server's Sync service's ACL off, through Twilio's REST API as an account owner would
 * (https://www.twilio.com/docs/sync/api/service: `AclEnabled`): every token's identity may then read,
 * write, create and remove any object. For the suites that exercise the Sync twin as Sync (its
 * protocol, events, paging, the container machines over it); the app's own rules run with ACL on
 * (permissions.test.ts).
 */
export async function aclOff(server: RunningServer): Promise<void> {
  const account = server.account();
  const res = await fetch(`${server.url}/twilio/sync/v1/Services/${account.syncServiceSid}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'AclEnabled=false',
  });
  if (!res.ok) throw new Error(`turning ACL off failed: ${res.status} ${await res.text()}`);
}

export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const start = Date.now();
  for (;;) {
    // Awaited, so an async check is polled too (a pending promise is not an answer).
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface RawFrame {
  header: Record<string, unknown>;
  body: unknown;
}

/** The HTTP status a raw Twilsock reply carries (0 when none). */
export const httpCode = (reply: RawFrame): number =>
  (reply.header.http_status as { code: number } | undefined)?.code ?? 0;

/** Sync's refusal of a request the ACL does not allow (Twilio's 54007). */
export const FORBIDDEN = { status: 403, code: 54007 };

/** Why an SDK call was refused: the service's status and code (the SDK adds them to its error). */
export async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: number }> {
  try {
    await promise;
  } catch (e) {
    const err = e as { status?: number; code?: number };
    return { status: err.status ?? 0, code: err.code ?? 0 };
  }
  throw new Error('the call was not refused');
}

/** A raw Twilsock connection for poking the service below the SDK. */
export class RawTwilsock {
  readonly frames: RawFrame[] = [];
  private n = 0;
  private readonly waiters = new Map<string, (f: RawFrame) => void>();
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const d = decodeFrame(data);
      if (!d.ok) throw new Error(`server sent an unreadable frame: ${d.reason}`);
      let body: unknown;
      try {
        body = parseJsonPayload(d.frame.payload);
      } catch {
        body = d.frame.payload.toString();
      }
      const frame = { header: d.frame.header, body };
      this.frames.push(frame);
      if (frame.header.method === 'reply' && typeof frame.header.id === 'string') {
        this.waiters.get(frame.header.id)?.(frame);
      }
    });
  }

  static async open(url: string): Promise<RawTwilsock> {
    const ws = new WebSocket(syncOptions(url).twilsock.uri);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawTwilsock(ws);
  }

  sendRaw(data: Buffer | string): void {
    this.ws.send(data);
  }

  async call(header: Record<string, unknown>, payload?: string | object): Promise<RawFrame> {
    const id = `TMraw-${++this.n}`;
    this.ws.send(encodeFrame({ ...header, id }, payload));
    return this.reply(id);
  }

  reply(id: string, timeoutMs = 5000): Promise<RawFrame> {
    const seen = this.frames.find((f) => f.header.id === id && f.header.method === 'reply');
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(id);
        reject(new Error(`timed out waiting for reply ${id}`));
      }, timeoutMs);
      this.waiters.set(id, (f) => {
        clearTimeout(timer);
        this.waiters.delete(id);
        resolve(f);
      });
    });
  }

  init(jwt: string): Promise<RawFrame> {
    return this.call({
      method: 'init',
      token: jwt,
      continuation_token: null,
      capabilities: [],
      registrations: [],
    });
  }

  /** A tunnelled request whose JSON body is sent exactly as given (text a JS object cannot hold). */
  requestText(method: string, path: string, text: string): Promise<RawFrame> {
    return this.call(
      {
        method: 'message',
        active_grant: 'data_sync',
        payload_type: 'application/json',
        http_request: {
          host: '127.0.0.1',
          path,
          method,
          params: {},
          headers: { 'Content-Type': 'application/json' },
        },
      },
      text,
    );
  }

  request(
    method: string,
    path: string,
    body?: object,
    params: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<RawFrame> {
    return this.call(
      {
        method: 'message',
        active_grant: 'data_sync',
        payload_type: 'application/json',
        http_request: {
          host: '127.0.0.1',
          path,
          method,
          params,
          headers: { 'Content-Type': 'application/json', ...headers },
        },
      },
      body,
    );
  }

  close(): void {
    this.ws.close();
  }
}
