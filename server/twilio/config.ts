/**
 * The Twilio backend's settings (`SWITCHBOARD_BACKEND=twilio`), read from the environment and checked
 * at start: every value Twilio hands out has a known shape (an Account SID is `AC` and 32 hex
 * digits), so a value pasted into the wrong variable stops the server with a sentence naming the
 * variable and what it should look like, rather than failing on the first call.
 */

import { TWINS_BACKEND, twinEnvironment } from '../twins/account-env';

type Env = Readonly<Record<string, string | undefined>>;

export interface TwilioConfig {
  kind: 'twilio';
  accountSid: string;
  /** An API key (`SK…`) and its secret: they sign access tokens and authenticate REST requests. */
  apiKey: string;
  apiSecret: string;
  /** The account's auth token: Twilio signs its webhooks with it (`X-Twilio-Signature`). */
  authToken: string;
  syncServiceSid: string;
  /** The TwiML app browsers call out through (their Voice grant's outgoing application). */
  twimlAppSid: string;
  /** The account's numbers (E.164): the first is the caller ID of calls to outside numbers. */
  phoneNumbers: string[];
  /**
   * The https origin Twilio reaches this server at, e.g. `https://phone.example.com`. Webhook
   * signatures are computed over it; the request's Host is never trusted for that.
   */
  publicUrl: string;
  /** Test hook (SWITCHBOARD_TWILIO_API_URL): every Twilio REST request goes here instead. */
  apiBaseUrl: string | null;
  /**
   * SWITCHBOARD_BACKEND=twilio-twins: "Twilio" is this process's twins (server/twins/account.ts);
   * the public URL and REST address, unless set, are the server's own once it listens.
   */
  twins?: boolean;
}

const SID = (prefix: string) => new RegExp(`^${prefix}[0-9a-fA-F]{32}$`);
const E164 = /^\+[1-9][0-9]{7,14}$/;

function value(env: Env, name: string): string | null {
  const raw = env[name];
  return raw !== undefined && raw.trim() !== '' ? raw.trim() : null;
}

/** Every problem at once, so a person fixes the environment in one go. */
class Problems {
  readonly list: string[] = [];
  need(env: Env, name: string, shape: RegExp | null, looksLike: string): string {
    const v = value(env, name);
    if (v === null) this.list.push(`${name} is not set (${looksLike})`);
    else if (shape && !shape.test(v))
      this.list.push(`${name} must be ${looksLike}, got ${JSON.stringify(v.slice(0, 60))}`);
    return v ?? '';
  }
}

/** Spaces, dashes, dots and brackets people paste in numbers are dropped. */
const normalise = (number: string): string => number.trim().replace(/[\s().-]/g, '');

/**
 * Reads the Twilio settings; null when the backend is the embedded one. Throws one Error listing
 * everything missing or malformed. With `twilio-twins`, every Twilio value defaults to the twins'
 * made-up account (its secrets kept in `dataDir`), and Google sign-in is not required.
 */
export function twilioConfigFromEnv(
  given: Env,
  dataDir: string | null = null,
): TwilioConfig | null {
  const backend = (value(given, 'SWITCHBOARD_BACKEND') ?? 'embedded').toLowerCase();
  if (backend === 'embedded') return null;
  if (backend !== 'twilio' && backend !== TWINS_BACKEND) {
    throw new Error(
      `SWITCHBOARD_BACKEND must be "embedded" (the default), "twilio" or "${TWINS_BACKEND}", got ${JSON.stringify(backend)}`,
    );
  }
  const twins = backend === TWINS_BACKEND;
  const env = twins ? twinEnvironment(given, dataDir) : given;
  const p = new Problems();
  const accountSid = p.need(env, 'TWILIO_ACCOUNT_SID', SID('AC'), 'AC followed by 32 hex digits');
  const apiKey = p.need(env, 'TWILIO_API_KEY', SID('SK'), 'an API key SID: SK and 32 hex digits');
  const apiSecret = p.need(env, 'TWILIO_API_SECRET', /^\S{16,}$/, "the API key's secret");
  const authToken = p.need(
    env,
    'TWILIO_AUTH_TOKEN',
    /^[0-9a-fA-F]{32}$/,
    "the account's auth token: 32 hex digits (it checks the signature of Twilio's webhooks)",
  );
  const syncServiceSid = p.need(
    env,
    'TWILIO_SYNC_SERVICE_SID',
    SID('IS'),
    'a Sync service SID: IS and 32 hex digits',
  );
  const twimlAppSid = p.need(
    env,
    'TWILIO_TWIML_APP_SID',
    SID('AP'),
    'a TwiML app SID: AP and 32 hex digits',
  );
  const numbers = p.need(env, 'TWILIO_PHONE_NUMBERS', null, 'comma-separated, like +442079460000');
  const phoneNumbers: string[] = [];
  for (const part of numbers === '' ? [] : numbers.split(',')) {
    const number = normalise(part);
    if (!E164.test(number))
      p.list.push(
        `TWILIO_PHONE_NUMBERS must list numbers in international form like +442079460000, got ${JSON.stringify(part.trim().slice(0, 40))}`,
      );
    else if (!phoneNumbers.includes(number)) phoneNumbers.push(number);
  }
  const publicRaw = value(env, 'SWITCHBOARD_PUBLIC_URL');
  // On the twins, the server's own origin once it listens (twins/account.ts).
  const publicUrl = twins && publicRaw === null ? '' : publicOrigin(p, publicRaw);
  if (!twins && value(env, 'GOOGLE_CLIENT_ID') === null)
    p.list.push(
      'GOOGLE_CLIENT_ID is not set: on Twilio people sign in with Google only (docs/operations.md, "Running on Twilio")',
    );
  if (!twins && env.SWITCHBOARD_PASSCODE)
    p.list.push(
      'SWITCHBOARD_PASSCODE has no use on Twilio, where people sign in with Google only: unset it',
    );
  const apiBaseUrl = testApiUrl(p, value(env, 'SWITCHBOARD_TWILIO_API_URL'));
  if (p.list.length > 0)
    throw new Error(`SWITCHBOARD_BACKEND=${backend} cannot start:\n  - ${p.list.join('\n  - ')}`);
  return {
    kind: 'twilio',
    accountSid,
    apiKey,
    apiSecret,
    authToken,
    syncServiceSid,
    twimlAppSid,
    phoneNumbers,
    publicUrl,
    apiBaseUrl,
    ...(twins ? { twins: true } : {}),
  };
}

/** An https origin (http only for a loopback name, where a test plays Twilio). */
function publicOrigin(p: Problems, raw: string | null): string {
  const looksLike =
    'the https origin Twilio reaches this server at, like https://phone.example.com';
  if (raw === null) {
    p.list.push(`SWITCHBOARD_PUBLIC_URL is not set (${looksLike})`);
    return '';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    p.list.push(`SWITCHBOARD_PUBLIC_URL must be ${looksLike}, got ${JSON.stringify(raw)}`);
    return '';
  }
  const loopback = url.hostname === 'localhost' || url.hostname.startsWith('127.');
  if (
    (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== ''
  ) {
    p.list.push(
      `SWITCHBOARD_PUBLIC_URL must be ${looksLike} (https, no path), got ${JSON.stringify(raw)}`,
    );
    return '';
  }
  return url.origin;
}

function testApiUrl(p: Problems, raw: string | null): string | null {
  if (raw === null) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href.replace(/\/$/, '');
  } catch {
    // Reported below.
  }
  p.list.push(
    `SWITCHBOARD_TWILIO_API_URL must be an absolute http(s) URL, got ${JSON.stringify(raw)}`,
  );
  return null;
}
