import { readFile } from 'node:fs/promises';
import { OAuth2Client } from 'google-auth-library';
import type { GoogleConfig } from './config';
import { IdentityError } from './errors';
import { stripUnsafeText } from './fields';

/** What a verified Google account contributes to the user record. */
export interface GoogleProfile {
  email: string;
  name: string;
  picture: string | null;
}

export interface GoogleVerifier {
  /** An ID token from the GIS button (or from a code exchange), fully verified. */
  verifyIdToken(credential: string): Promise<GoogleProfile>;
  /** The authorization-code popup: exchanges the code (redirect_uri 'postmessage'), verifies the ID token. */
  exchangeCode(code: string): Promise<GoogleProfile>;
  /** The access-token popup: checks the token was issued to this app, then reads the profile. */
  profileFromAccessToken(accessToken: string): Promise<GoogleProfile>;
}

const ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];
const UPSTREAM_TIMEOUT_MS = 10_000;

const invalid = (message: string): IdentityError =>
  new IdentityError('unauthenticated', 'invalid_credential', message);
const unverified = (): IdentityError =>
  new IdentityError(
    'unauthenticated',
    'email_not_verified',
    'The Google account email address is not verified',
  );
const upstream = (what: string): IdentityError =>
  new IdentityError(
    'upstream',
    'upstream_error',
    `Google could not be reached to ${what}; try again`,
  );

/**
 * Turns google-auth-library's verification errors (which embed the whole token) into short
 * messages that say what was wrong.
 */
function explain(err: unknown): IdentityError {
  const message = err instanceof Error ? err.message : '';
  const rules: [RegExp, string][] = [
    [/Wrong number of segments|Can't parse token/, 'The Google ID token is malformed'],
    [/No pem found/, 'The Google ID token is signed with an unknown key'],
    [/Invalid token signature/, 'The Google ID token signature is invalid'],
    [/Token used too late/, 'The Google ID token has expired'],
    [/Token used too early/, 'The Google ID token is not valid yet'],
    [/too far in future/, 'The Google ID token lifetime is too long'],
    [
      /No issue time|No expiration time|invalid format/,
      'The Google ID token lacks valid iat/exp times',
    ],
    [/Invalid issuer/, 'The Google ID token was not issued by accounts.google.com'],
    [
      /Wrong recipient/,
      'The Google ID token was issued for another application (audience mismatch)',
    ],
  ];
  for (const [pattern, text] of rules) if (pattern.test(message)) return invalid(text);
  return invalid('The Google ID token could not be verified');
}

function header(jwt: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(
      Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8'),
    );
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Visible ASCII only, no spaces: what Google's codes and tokens are made of. */
const isPrintable = (value: string, max: number): boolean =>
  value.length > 0 && value.length <= max && /^[\x21-\x7e]+$/.test(value);

/** Google sometimes encodes booleans as strings in older endpoints. */
const isTrue = (value: unknown): boolean => value === true || value === 'true';

function cleanName(raw: unknown, email: string): string {
  const text = typeof raw === 'string' ? stripUnsafeText(raw).trim() : '';
  const cleaned = [...text].slice(0, 80).join('').trim();
  return cleaned || email.slice(0, email.indexOf('@')).slice(0, 80);
}

function cleanPicture(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 2048) return null;
  try {
    return new URL(raw).protocol === 'https:' ? raw : null;
  } catch {
    return null;
  }
}

function profileOf(claims: Record<string, unknown>): GoogleProfile {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || email.length > 254 || !email.includes('@')) {
    throw invalid('The Google account has no email address (request the email scope)');
  }
  if (!isTrue(claims.email_verified)) throw unverified();
  return { email, name: cleanName(claims.name, email), picture: cleanPicture(claims.picture) };
}

async function fetchJson(
  url: string,
  init: RequestInit,
  what: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) });
  } catch {
    throw upstream(what);
  }
  if (response.status >= 500) throw upstream(what);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw upstream(what);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw upstream(what);
  return { status: response.status, body: body as Record<string, unknown> };
}

export function createGoogleVerifier(config: GoogleConfig & { clientId: string }): GoogleVerifier {
  const client = new OAuth2Client({ clientId: config.clientId });
  const clientId = config.clientId;

  async function certificates(): Promise<Record<string, string>> {
    if (config.certsFile) {
      // A test hook, read on each use so a test can rotate keys.
      return JSON.parse(await readFile(config.certsFile, 'utf8')) as Record<string, string>;
    }
    try {
      const { certs } = await client.getFederatedSignonCertsAsync();
      return certs as Record<string, string>;
    } catch {
      throw upstream('fetch its signing certificates');
    }
  }

  async function verifyIdToken(credential: string): Promise<GoogleProfile> {
    if (
      credential.length > 8192 ||
      !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential)
    ) {
      throw invalid('The Google ID token is malformed');
    }
    // Google signs with RS256; refusing anything else up front rules out algorithm confusion.
    if (header(credential)?.alg !== 'RS256') {
      throw invalid('The Google ID token must be signed with RS256');
    }
    const certs = await certificates();
    let payload: Record<string, unknown> | undefined;
    try {
      const ticket = await client.verifySignedJwtWithCertsAsync(
        credential,
        certs,
        clientId,
        ISSUERS,
      );
      payload = ticket.getPayload() as Record<string, unknown> | undefined;
    } catch (err) {
      throw explain(err);
    }
    if (!payload) throw invalid('The Google ID token has no payload');
    return profileOf(payload);
  }

  async function exchangeCode(code: string): Promise<GoogleProfile> {
    if (!config.clientSecret) {
      throw new IdentityError(
        'forbidden',
        'google_sign_in_disabled',
        'The authorization-code flow needs GOOGLE_CLIENT_SECRET on the server',
      );
    }
    if (!isPrintable(code, 2048)) {
      throw invalid('The Google authorization code is malformed');
    }
    const form = new URLSearchParams({
      code,
      client_id: clientId,
      client_secret: config.clientSecret,
      redirect_uri: 'postmessage',
      grant_type: 'authorization_code',
    });
    const { status, body } = await fetchJson(
      config.tokenUrl,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
      },
      'exchange the authorization code',
    );
    if (status !== 200) {
      const reason = typeof body.error === 'string' ? ` (${body.error.slice(0, 60)})` : '';
      throw invalid(`Google rejected the authorization code${reason}`);
    }
    if (typeof body.id_token !== 'string') {
      throw invalid('Google returned no ID token for the code (request the openid scope)');
    }
    return verifyIdToken(body.id_token);
  }

  async function profileFromAccessToken(accessToken: string): Promise<GoogleProfile> {
    if (!isPrintable(accessToken, 4096)) {
      throw invalid('The Google access token is malformed');
    }
    // An access token proves nothing about who it was meant for: any site the user signed in to
    // could replay it here. Tokeninfo tells us its audience, which must be this app.
    const info = await fetchJson(
      `${config.tokeninfoUrl}?${new URLSearchParams({ access_token: accessToken }).toString()}`,
      { headers: { Accept: 'application/json' } },
      'check the access token',
    );
    if (info.status !== 200) throw invalid('Google rejected the access token (invalid or expired)');
    if (info.body.aud !== clientId && info.body.azp !== clientId) {
      throw invalid(
        'The Google access token was issued for another application (audience mismatch)',
      );
    }
    const user = await fetchJson(
      config.userinfoUrl,
      { headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } },
      'read the user profile',
    );
    if (user.status !== 200) throw invalid('Google rejected the access token (invalid or expired)');
    if (typeof info.body.sub === 'string' && info.body.sub !== user.body.sub) {
      throw invalid('The Google access token does not match the user profile');
    }
    return profileOf(user.body);
  }

  return { verifyIdToken, exchangeCode, profileFromAccessToken };
}
