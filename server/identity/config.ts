/**
 * How people sign in: the team passcode (local sign-in) and Google's settings, read from the
 * environment; and what the login screen may offer from them.
 */
import { resolve } from 'node:path';
import { httpUrl, isLoopbackHost, nonEmpty, type Env } from '../platform/config';

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

export interface SignInConfig {
  /** SWITCHBOARD_PASSCODE: when set, local sign-in is offered on any address and requires it. */
  passcode: string | null;
  google: GoogleConfig;
  /** People sign in with Google only (on Twilio): local sign-in is never offered. */
  googleOnly: boolean;
}

/** SWITCHBOARD_PASSCODE, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and the test hooks for Google's URLs. */
export function signInConfigFromEnv(
  env: Env,
  cwd = process.cwd(),
  options: { googleOnly: boolean } = { googleOnly: false },
): SignInConfig {
  // The passcode is used verbatim: leading or trailing spaces may be part of it.
  const passcode = env.SWITCHBOARD_PASSCODE ? env.SWITCHBOARD_PASSCODE : null;
  const certsFile = nonEmpty(env.SWITCHBOARD_GOOGLE_CERTS_FILE);
  return {
    passcode,
    googleOnly: options.googleOnly,
    google: {
      clientId: nonEmpty(env.GOOGLE_CLIENT_ID),
      clientSecret: nonEmpty(env.GOOGLE_CLIENT_SECRET),
      scriptUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_SCRIPT_URL', GOOGLE_SCRIPT_URL),
      certsFile: certsFile === null ? null : resolve(cwd, certsFile),
      tokenUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_TOKEN_URL', GOOGLE_TOKEN_URL),
      userinfoUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_USERINFO_URL', GOOGLE_USERINFO_URL),
      tokeninfoUrl: httpUrl(env, 'SWITCHBOARD_GOOGLE_TOKENINFO_URL', GOOGLE_TOKENINFO_URL),
    },
  };
}

/**
 * Local (name + email) sign-in is offered on loopback, or anywhere once a passcode guards it; never on
 * Twilio, where people sign in with Google only. On the twins (embedded, `twilio-twins`) it is
 * offered: that is where a team tries Switchboard or rehearses its Twilio setup.
 */
export function localSignInOffered(config: {
  host: string;
  passcode: string | null;
  googleOnly: boolean;
}): boolean {
  if (config.googleOnly) return false;
  return config.passcode !== null || isLoopbackHost(config.host);
}

/** The origin of the GIS script when it is not Google's own (a test stand-in), else null. */
export function extraScriptOrigin(config: { google: GoogleConfig }): string | null {
  const origin = new URL(config.google.scriptUrl).origin;
  return origin === new URL(GOOGLE_SCRIPT_URL).origin ? null : origin;
}
