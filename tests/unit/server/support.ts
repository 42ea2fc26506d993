import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApp, type App } from '../../../server/app';
import { configFromEnv, type AppConfig } from '../../../server/config';
import { createTwilioClient } from '../../../server/twilio/client';
import { createSyncRest, type SyncRest } from '../../../server/twilio/sync-rest';
import { rememberSignInKeys, signInKeyHeaders } from '../../support/sign-in-keys';

export interface TestApp {
  app: App;
  url: string;
  dataDir: string;
  config: AppConfig;
  /**
   * Sync as the server sees it: the account's service through its REST API (the twins', in this
   * process), for a test to read what subscribers would be sent or to write what only the server may.
   */
  sync: SyncRest;
  /** Resolves once the app's background Sync writes queued so far have been tried. */
  settled(): Promise<void>;
  /** Closes the app; the data dir stays for a restart. */
  close(): Promise<void>;
  /** Rows of a table in app.db, read through a separate read-only connection. */
  rows(table: 'users' | 'sessions'): Record<string, unknown>[];
}

export function tempDir(prefix = 'sb-unit-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * createApp on 127.0.0.1, port 0, with its own data dir (or the given one) and no dist/ by default:
 * the embedded backend, Twilio's twins in the same process.
 */
export async function startApp(
  env: Record<string, string> = {},
  options: { dataDir?: string; now?: () => number } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDir();
  const config = configFromEnv({
    HOST: '127.0.0.1',
    PORT: '0',
    SWITCHBOARD_DATA: dataDir,
    SWITCHBOARD_DIST: join(dataDir, 'no-dist'),
    ...env,
  });
  const app = createApp(config, {
    log: () => {},
    ...(options.now ? { now: options.now } : {}),
  });
  const url = await app.listen();
  return {
    app,
    url,
    dataDir,
    config,
    sync: createSyncRest(createTwilioClient(config.twilio), config.twilio.syncServiceSid),
    settled: () => app.settled(),
    close: () => app.close(),
    rows(table) {
      const db = new Database(join(dataDir, 'app.db'), { readonly: true });
      try {
        return db.prepare(`SELECT * FROM ${table} ORDER BY created_at`).all() as Record<
          string,
          unknown
        >[];
      } finally {
        db.close();
      }
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const email =
    new URL(url).pathname === '/api/session/local' && typeof body === 'object' && body !== null
      ? String((body as { email?: unknown }).email)
      : null;
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(email !== null ? signInKeyHeaders(url, email) : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }).then((res) => {
    if (email !== null) rememberSignInKeys(url, email, res);
    return res;
  });
}

/** The `name=value` part of the sb_session Set-Cookie, for sending back as a Cookie header. */
export function sessionCookieOf(response: Response): string | null {
  for (const cookie of response.headers.getSetCookie()) {
    if (cookie.startsWith('sb_session=')) return cookie.split(';')[0] ?? null;
  }
  return null;
}

/** Signs `name` (`email`) in locally on `t` (the first person on a team is its admin): their cookie. */
export async function signInAs(t: TestApp, name: string, email: string): Promise<string> {
  const cookie = sessionCookieOf(await postJson(`${t.url}/api/session/local`, { name, email }));
  if (cookie === null) throw new Error(`${email} could not sign in`);
  return cookie;
}

/** A request to `t` as the person whose cookie it is; `body` sent as JSON (a string as it is). */
export function requestAs(
  t: TestApp,
  method: string,
  path: string,
  cookie: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method,
    headers: {
      Cookie: cookie,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** Closes `t` and removes its data. */
export async function stopApp(t: TestApp): Promise<void> {
  await t.close();
  removeDir(t.dataDir);
}

export async function expectError(
  response: Response,
): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
  if (typeof body.error?.code !== 'string' || typeof body.error.message !== 'string') {
    throw new Error(`not an error body: ${JSON.stringify(body)}`);
  }
  return { status: response.status, code: body.error.code, message: body.error.message };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with full control over headers and body chunks (fetch forbids some of these). */
export function raw(
  url: string,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    chunks?: (string | Buffer)[];
  } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path ?? target.pathname,
        headers: options.headers ?? {},
        setHost: !(
          options.headers && Object.keys(options.headers).some((h) => h.toLowerCase() === 'host')
        ),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}
