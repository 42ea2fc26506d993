/**
 * The server on its Twilio backend, in-process, with no network: Twilio's REST API is a local
 * stand-in (tests/support/twilio-api.ts) reached through the `twilio` package's own HTTP client,
 * Google's keys are a local file, and Twilio's webhook requests are built here, signed with a test
 * auth token the way Twilio signs them.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { createApp, type App } from '../../../../server/app';
import { configFromEnv } from '../../../../server/config';
import type { TwilioConfig } from '../../../../server/twilio/config';
import { voiceIdentityOf } from '../../../../src/contracts/voice-identity';
import { startTwilioApi, type TwilioApiStandIn } from '../../../support/twilio-api';
import { removeDir, sessionCookieOf, tempDir } from '../support';

export const ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
export const API_KEY = 'SK0123456789abcdef0123456789abcdef';
export const API_SECRET = 'test-api-secret-0123456789abcdef';
export const AUTH_TOKEN = '0123456789abcdef0123456789abcdef';
export const SERVICE_SID = 'IS0123456789abcdef0123456789abcdef';
export const APP_SID = 'AP0123456789abcdef0123456789abcdef';
export const NUMBERS = ['+442079460000', '+442079460001'];
export const PUBLIC_URL = 'https://switchboard.example.com';
export const CLIENT_ID = 'switchboard-test.apps.googleusercontent.com';

/** The Twilio backend's configuration of these tests' account, `apiBaseUrl` at the stand-in given. */
export function testTwilioConfig(apiBaseUrl: string | null): TwilioConfig {
  return {
    accountSid: ACCOUNT_SID,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    authToken: AUTH_TOKEN,
    syncServiceSid: SERVICE_SID,
    twimlAppSid: APP_SID,
    phoneNumbers: NUMBERS,
    publicUrl: PUBLIC_URL,
    apiBaseUrl,
  };
}

/** Everything SWITCHBOARD_BACKEND=twilio needs, pointed at `apiUrl`. */
export function twilioEnv(apiUrl: string): Record<string, string> {
  return {
    SWITCHBOARD_BACKEND: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_API_KEY: API_KEY,
    TWILIO_API_SECRET: API_SECRET,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_SYNC_SERVICE_SID: SERVICE_SID,
    TWILIO_TWIML_APP_SID: APP_SID,
    TWILIO_PHONE_NUMBERS: NUMBERS.join(','),
    SWITCHBOARD_PUBLIC_URL: PUBLIC_URL,
    GOOGLE_CLIENT_ID: CLIENT_ID,
    SWITCHBOARD_TWILIO_API_URL: apiUrl,
  };
}

const google = generateKeyPairSync('rsa', { modulusLength: 2048 });
const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function idToken(email: string, name: string, key: KeyObject = google.privateKey): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64({ alg: 'RS256', kid: 'key-1', typ: 'JWT' });
  const payload = b64({
    iss: 'https://accounts.google.com',
    aud: CLIENT_ID,
    sub: `sub-${email}`,
    email,
    email_verified: true,
    name,
    iat: now - 10,
    exp: now + 3600,
  });
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

export interface TwilioTestApp {
  app: App;
  url: string;
  api: TwilioApiStandIn;
  dataDir: string;
  /** The app's clock: tests move it. */
  clock: { now: number };
  /** What the app logged, in order. */
  logs: string[];
  /** Signs in with Google; resolves with the session cookie. */
  signIn(email: string, name?: string): Promise<string>;
  /**
   * A webhook POST as Twilio sends it, signed unless `signature` says otherwise. A TwiML answer
   * ending in a `<Redirect>` to this server's continuation (what follows an announcement) is
   * followed as Twilio follows it, with the same parameters, and the documents' verbs joined into
   * one answer, unless `follow` is false.
   */
  webhook(
    path: string,
    params: Record<string, string>,
    options?: { signature?: string | null; signedUrl?: string; follow?: boolean },
  ): Promise<Response>;
  /** A webhook with the account's sid added, expected to answer `status`; resolves with its body. */
  post(path: string, form: Record<string, string>, status?: number): Promise<string>;
  /** The recorded requests that changed something in Sync (not reads). */
  writes(): TwilioApiStandIn['requests'];
  close(): Promise<void>;
}

/** A document's last verb, a `<Redirect>` to what follows an announcement. */
const CONTINUATION = new RegExp(
  `<Redirect>(${PUBLIC_URL.replace(/[.]/g, '\\.')}/api/twilio/voice/continue\\?[^<]*)</Redirect></Response>$`,
);

export async function startTwilioApp(
  options: {
    now?: number;
    env?: Record<string, string>;
    /** Sets up the stand-in before the server starts (e.g. the service's ACL off). */
    before?: (api: TwilioApiStandIn) => void;
    /** Voice settings, as SWITCHBOARD_HISTORY_DAYS and SWITCHBOARD_VOICEMAIL_SECONDS give them. */
    voice?: { historyDays?: number; voicemailMaxMs?: number };
  } = {},
): Promise<TwilioTestApp> {
  const api = await startTwilioApi({
    accountSid: ACCOUNT_SID,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    serviceSid: SERVICE_SID,
  });
  const dataDir = tempDir('sb-twilio-');
  const certs = join(dataDir, 'google-certs.json');
  writeFileSync(
    certs,
    JSON.stringify({ 'key-1': google.publicKey.export({ type: 'spki', format: 'pem' }) }),
  );
  const clock = { now: options.now ?? Date.now() };
  const logs: string[] = [];
  const config = configFromEnv({
    HOST: '127.0.0.1',
    PORT: '0',
    SWITCHBOARD_DATA: dataDir,
    SWITCHBOARD_DIST: join(dataDir, 'no-dist'),
    SWITCHBOARD_GOOGLE_CERTS_FILE: certs,
    ...twilioEnv(api.url),
    ...options.env,
  });
  options.before?.(api);
  const app = createApp(config, {
    now: () => clock.now,
    log: (message: string) => logs.push(message),
    announce: () => {},
    ...(options.voice ? { voice: options.voice } : {}),
  });
  let url: string;
  try {
    url = await app.listen();
  } catch (err) {
    await app.close();
    await api.close();
    removeDir(dataDir);
    throw err;
  }
  const testApp: TwilioTestApp = {
    app,
    url,
    api,
    dataDir,
    clock,
    logs,
    async signIn(email, name = email.split('@')[0]!) {
      const res = await fetch(`${url}/api/session/google`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ credential: idToken(email, name) }),
      });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
      return sessionCookieOf(res)!;
    },
    async webhook(path, params, opts = {}): Promise<Response> {
      const signature =
        opts.signature === undefined
          ? getExpectedTwilioSignature(AUTH_TOKEN, opts.signedUrl ?? `${PUBLIC_URL}${path}`, params)
          : opts.signature;
      if (opts.signature === undefined) listCall(api, params);
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(signature === null ? {} : { 'X-Twilio-Signature': signature }),
        },
        body: new URLSearchParams(params).toString(),
      });
      // The status callback is answered at once and the row written after (progress.ts): the
      // writes it set off are done before the test looks.
      if (path === '/api/twilio/status') await api.settled(200);
      if (opts.follow === false || res.status !== 200) return res;
      const xml = await res.text();
      const next = CONTINUATION.exec(xml);
      if (!next) return new Response(xml, { status: 200, headers: res.headers });
      const target = next[1]!.replace(/&amp;/g, '&').slice(PUBLIC_URL.length);
      const rest = await (await testApp.webhook(target, params)).text();
      const joined =
        xml.slice(0, next.index) +
        rest.replace(/^<\?xml[^>]*>(<Response>|<Response\/>)/, '').replace(/<\/Response>$/, '') +
        '</Response>';
      return new Response(joined, { status: 200, headers: res.headers });
    },
    async post(path, form, status = 200) {
      const res = await testApp.webhook(path, { AccountSid: ACCOUNT_SID, ...form });
      if (res.status !== status)
        throw new Error(`${path} answered ${res.status}, not ${status}: ${await res.text()}`);
      return res.text();
    },
    writes: () => api.requests.filter((r) => r.method !== 'GET'),
    async close() {
      await app.close();
      await api.close();
      removeDir(dataDir);
    },
  };
  return testApp;
}

/**
 * Twilio's Calls resource lists every call it sends webhooks about, in the status the webhook says
 * (https://www.twilio.com/docs/voice/api/call-resource#read-multiple-call-resources): the stand-in's
 * `calls` follow the webhooks a test sends, as the app's "on a call" check reads them (a call a
 * test set there itself is changed by a webhook about it too).
 */
function listCall(api: TwilioApiStandIn, params: Record<string, string>): void {
  const { CallSid: callSid, CallStatus: status, To: to = '', From: from = '' } = params;
  if (callSid === undefined || status === undefined) return;
  const listed = api.calls.find((c) => c.sid === callSid);
  if (listed) listed.status = status;
  else api.calls.push({ sid: callSid, to, from, status });
}

let sidCounter = 0;
/** A fresh Twilio-shaped sid (`CA…`, `RE…`). */
export function sid(prefix: 'CA' | 'RE' = 'CA'): string {
  sidCounter++;
  return `${prefix}${sidCounter.toString(16).padStart(32, '0')}`;
}

/** The form of an incoming call from outside to `to`, as Twilio posts it to the Voice URL. */
export function incomingCall(callSid: string, from: string, to: string): Record<string, string> {
  return {
    AccountSid: ACCOUNT_SID,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: 'ringing',
    Called: to,
    CalledCity: 'LONDON',
    CalledCountry: 'GB',
    Caller: from,
    CallerCountry: 'GB',
    Direction: 'inbound',
    From: from,
    FromCountry: 'GB',
    To: to,
    ToCountry: 'GB',
  };
}

/** A browser's call through the TwiML app: `From=client:<voice identity>`, the SDK's `To` param. */
export function browserCall(callSid: string, identity: string, to: string): Record<string, string> {
  return {
    AccountSid: ACCOUNT_SID,
    ApiVersion: '2010-04-01',
    ApplicationSid: APP_SID,
    CallSid: callSid,
    CallStatus: 'ringing',
    Called: '',
    Caller: `client:${voiceIdentityOf(identity)}`,
    Direction: 'inbound',
    From: `client:${voiceIdentityOf(identity)}`,
    To: to,
  };
}

export { removeDir };
