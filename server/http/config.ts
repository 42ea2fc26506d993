import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { twilioConfigFromEnv, type TwilioConfig } from '../twilio/config';

export const GOOGLE_SCRIPT_URL = 'https://accounts.google.com/gsi/client';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const GOOGLE_USERINFO_URL = 'https://openidconnect.googleapis.com/v1/userinfo';
export const GOOGLE_TOKENINFO_URL = 'https://oauth2.googleapis.com/tokeninfo';

export interface GoogleConfig {
  /** Null: Google sign-in is off. */
  clientId: string | null;
  /** Needed only by the authorization-code flow. */
  clientSecret: string | null;
  scriptUrl: string;
  /** Test hook: a JSON file `{ kid: PEM }` used instead of Google's signing certificates. */
  certsFile: string | null;
  tokenUrl: string;
  userinfoUrl: string;
  tokeninfoUrl: string;
}

export interface AppConfig {
  /** The address the server listens on; decides whether local sign-in is offered. */
  host: string;
  port: number;
  dataDir: string;
  /** The Vite build to serve. */
  distDir: string;
  /** SWITCHBOARD_PASSCODE: when set, local sign-in is offered on any address and requires it. */
  passcode: string | null;
  google: GoogleConfig;
  /** Honour X-Forwarded-Proto/-Host from a TLS-terminating proxy in front of the server. */
  trustProxy: boolean;
  /** Host names from PUBLIC_ORIGIN: the names, besides loopback and this machine's addresses, it answers to. */
  publicHosts: string[];
  /** TLS_CERT and TLS_KEY (PEM file paths): the server speaks HTTPS and WSS itself. */
  tls: { certFile: string; keyFile: string } | null;
  /** VOICE_RTP_PORTS: the UDP ports call audio may use ("min-max"); any free port when null. */
  voiceRtpPorts: [number, number] | null;
  /**
   * SWITCHBOARD_BACKEND: `embedded` (Sync and calls served here) or Twilio's Sync and Voice
   * (server/twilio/, with its settings).
   */
  backend: { kind: 'embedded' } | TwilioConfig;
}

const repoRoot = resolve(import.meta.dirname, '../..');

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== '' ? value.trim() : null;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const value = nonEmpty(env[name]);
  if (value === null) return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return url.href;
}

function parsePort(raw: string | undefined): number {
  const value = nonEmpty(raw);
  if (value === null) return 8080;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return Number(value);
}

/** Reads the server configuration from the environment; throws a readable error when invalid. */
export function configFromEnv(env: Env, cwd = process.cwd()): AppConfig {
  // The passcode is used verbatim: leading or trailing spaces may be part of it.
  const passcode = env.SWITCHBOARD_PASSCODE ? env.SWITCHBOARD_PASSCODE : null;
  const certsFile = nonEmpty(env.SWITCHBOARD_GOOGLE_CERTS_FILE);
  const twilio = twilioConfigFromEnv(env);
  const hosts = publicHosts(env.PUBLIC_ORIGIN);
  // Twilio reaches the webhooks at the public URL: its name is one this server answers to.
  if (twilio) hosts.push(new URL(twilio.publicUrl).hostname.toLowerCase());
  return {
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    port: parsePort(env.PORT),
    dataDir: resolve(cwd, nonEmpty(env.SWITCHBOARD_DATA) ?? 'data'),
    distDir: resolve(cwd, nonEmpty(env.SWITCHBOARD_DIST) ?? resolve(repoRoot, 'dist')),
    passcode,
    google: {
      clientId: nonEmpty(env.GOOGLE_CLIENT_ID),
      clientSecret: nonEmpty(env.GOOGLE_CLIENT_SECRET),
      scriptUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_SCRIPT_URL', GOOGLE_SCRIPT_URL),
      certsFile: certsFile === null ? null : resolve(cwd, certsFile),
      tokenUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_TOKEN_URL', GOOGLE_TOKEN_URL),
      userinfoUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_USERINFO_URL', GOOGLE_USERINFO_URL),
      tokeninfoUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_TOKENINFO_URL', GOOGLE_TOKENINFO_URL),
    },
    trustProxy: /^(1|true|yes)$/i.test(env.SWITCHBOARD_TRUST_PROXY ?? ''),
    publicHosts: hosts,
    voiceRtpPorts: portRange(env.VOICE_RTP_PORTS),
    tls: tlsFiles(env, cwd),
    backend: twilio ?? { kind: 'embedded' },
  };
}

function tlsFiles(env: Env, cwd: string): AppConfig['tls'] {
  const cert = nonEmpty(env.TLS_CERT);
  const key = nonEmpty(env.TLS_KEY);
  if (cert === null && key === null) return null;
  if (cert === null || key === null)
    throw new Error('TLS_CERT and TLS_KEY go together: set both (PEM files) or neither');
  return { certFile: resolve(cwd, cert), keyFile: resolve(cwd, key) };
}

/** VOICE_RTP_PORTS="10000-10199": inclusive, at least two ports (each call uses one per leg). */
function portRange(raw: string | undefined): [number, number] | null {
  const value = nonEmpty(raw);
  if (value === null) return null;
  const match = /^(\d{1,5})\s*-\s*(\d{1,5})$/.exec(value);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1024 || max > 65535 || max <= min) {
    throw new Error(
      `VOICE_RTP_PORTS must be a UDP port range like 10000-10199 (from 1024 to 65535, at least two ports), got ${JSON.stringify(value)}`,
    );
  }
  return [min, max];
}

/** PUBLIC_ORIGIN: comma-separated http(s) origins people use to reach the server, e.g. `https://phone.example.com`. */
function publicHosts(raw: string | undefined): string[] {
  const value = nonEmpty(raw);
  if (value === null) return [];
  return value.split(',').map((part) => {
    const origin = part.trim();
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new Error(
        `PUBLIC_ORIGIN must list absolute http(s) origins separated by commas, got ${JSON.stringify(origin)}`,
      );
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/') {
      throw new Error(
        `PUBLIC_ORIGIN entries must be origins like https://phone.example.com, got ${JSON.stringify(origin)}`,
      );
    }
    return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  });
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: only this machine can reach the server. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped?.[1] !== undefined && mapped[1].startsWith('127.');
  }
  return false;
}

/**
 * Local (name + email) sign-in is offered on loopback, or anywhere once a passcode guards it; never on
 * Twilio, where people sign in with Google only.
 */
export function localSignInOffered(config: AppConfig): boolean {
  if (config.backend.kind === 'twilio') return false;
  return config.passcode !== null || isLoopbackHost(config.host);
}

/** The origin of the GIS script when it is not Google's own (a test stand-in), else null. */
export function extraScriptOrigin(config: AppConfig): string | null {
  const origin = new URL(config.google.scriptUrl).origin;
  return origin === new URL(GOOGLE_SCRIPT_URL).origin ? null : origin;
}
