/**
 * The Twilio account the app runs on, read from the environment and checked at start: Twilio's own
 * (`SWITCHBOARD_BACKEND=twilio`) or the twins' made-up one (server/twins/account.ts, which fills in
 * what the environment does not set). Every value Twilio hands out has a known shape (an Account SID
 * is `AC` and 32 hex digits), so a value pasted into the wrong variable stops the server with a
 * sentence naming the variable and what it should look like, rather than failing on the first call.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface TwilioConfig {
  accountSid: string;
  /** An API key (`SK…`) and its secret: they sign access tokens and authenticate REST requests. */
  apiKey: string;
  apiSecret: string;
  /** The account's auth token: Twilio signs its webhooks with it (`X-Twilio-Signature`). */
  authToken: string;
  syncServiceSid: string;
  /** The TwiML app browsers call out through (their Voice grant's outgoing application). */
  twimlAppSid: string;
  /**
   * The account's numbers (E.164): the first is the caller ID of calls to outside numbers. None on
   * the embedded backend, whose twins have no phone network.
   */
  phoneNumbers: string[];
  /**
   * The https origin Twilio reaches this server at, e.g. `https://phone.example.com`. Webhook
   * signatures are computed over it; the request's Host is never trusted for that. On the twins,
   * unless set, the server's own address once it listens (server/app.ts).
   */
  publicUrl: string;
  /**
   * SWITCHBOARD_TWILIO_API_URL: every Twilio REST request goes here instead of Twilio. On the twins in
   * this process, unless set, the server's own address once it listens (server/app.ts).
   */
  apiBaseUrl: string | null;
}

export interface TwilioConfigOptions {
  /** What a refusal names as the setting that could not start (`SWITCHBOARD_BACKEND=twilio`). */
  label: string;
  /** The twins in this process: no public URL needed (the server's own address is taken). */
  onTwins: boolean;
  /** No phone numbers needed (the embedded backend: no phone network). */
  noNumbers: boolean;
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
 * Reads the account's settings. Throws one Error listing everything missing or malformed, so a person
 * fixes the environment in one go.
 */
export function twilioConfigFromEnv(env: Env, options: TwilioConfigOptions): TwilioConfig {
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
  const numbers = options.noNumbers
    ? (value(env, 'TWILIO_PHONE_NUMBERS') ?? '')
    : p.need(env, 'TWILIO_PHONE_NUMBERS', null, 'comma-separated, like +442079460000');
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
  const publicUrl = options.onTwins && publicRaw === null ? '' : publicOrigin(p, publicRaw);
  const apiBaseUrl = testApiUrl(p, value(env, 'SWITCHBOARD_TWILIO_API_URL'));
  if (p.list.length > 0)
    throw new Error(`${options.label} cannot start:\n  - ${p.list.join('\n  - ')}`);
  return {
    accountSid,
    apiKey,
    apiSecret,
    authToken,
    syncServiceSid,
    twimlAppSid,
    phoneNumbers,
    publicUrl,
    apiBaseUrl,
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
