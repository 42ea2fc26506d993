import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  expectError,
  postJson,
  removeDir,
  sessionCookieOf,
  startApp,
  type TestApp,
} from '../support';

const CLIENT_ID = 'switchboard-test.apps.googleusercontent.com';

function keyPair(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const google = keyPair();
const stranger = keyPair();

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An ID token shaped like Google's, signed RS256 with `key` under `kid`. */
function idToken(
  claims: Record<string, unknown> = {},
  options: { key?: KeyObject; kid?: string; alg?: string } = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64({ alg: options.alg ?? 'RS256', kid: options.kid ?? 'key-1', typ: 'JWT' });
  const payload = b64({
    iss: 'https://accounts.google.com',
    aud: CLIENT_ID,
    azp: CLIENT_ID,
    sub: '1234567890',
    email: 'Grace@Example.com',
    email_verified: true,
    name: 'Grace Hopper',
    picture: 'https://lh3.googleusercontent.com/a/grace',
    iat: now - 10,
    exp: now + 3600,
    ...claims,
  });
  const signature = sign(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    options.key ?? google.privateKey,
  );
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

/** A stand-in for Google's token, tokeninfo and userinfo endpoints. */
interface FakeGoogle {
  url: string;
  server: Server;
  requests: { path: string; body: string; authorization: string | undefined }[];
  token: (body: URLSearchParams) => { status: number; body: unknown };
  tokeninfo: (token: string) => { status: number; body: unknown };
  userinfo: (token: string) => { status: number; body: unknown };
}

async function fakeGoogle(): Promise<FakeGoogle> {
  const fake = {
    requests: [],
    token: () => ({ status: 200, body: { id_token: idToken(), access_token: 'at' } }),
    tokeninfo: () => ({ status: 200, body: { aud: CLIENT_ID, azp: CLIENT_ID, sub: '1234567890' } }),
    userinfo: () => ({
      status: 200,
      body: {
        sub: '1234567890',
        email: 'Linus@Example.com',
        email_verified: true,
        name: 'Linus',
        picture: 'https://lh3.googleusercontent.com/l',
      },
    }),
  } as unknown as FakeGoogle;
  const read = (req: IncomingMessage) =>
    new Promise<string>((r) => {
      let s = '';
      req.on('data', (d: Buffer) => (s += d.toString()));
      req.on('end', () => r(s));
    });
  fake.server = createServer((req, res) => {
    void read(req).then((body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      fake.requests.push({ path: url.pathname, body, authorization: req.headers.authorization });
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const answer =
        url.pathname === '/token'
          ? fake.token(new URLSearchParams(body))
          : url.pathname === '/tokeninfo'
            ? fake.tokeninfo(url.searchParams.get('access_token') ?? '')
            : url.pathname === '/userinfo'
              ? fake.userinfo(bearer)
              : { status: 404, body: {} };
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

let t: TestApp;
let fake: FakeGoogle;

beforeAll(async () => {
  fake = await fakeGoogle();
  t = await startApp({});
  // Restarted below with the Google settings pointing into its own data dir.
  const certs = join(t.dataDir, 'google-certs.json');
  writeFileSync(certs, JSON.stringify({ 'key-1': google.publicPem }));
  await t.close();
  t = await startApp(
    {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: 'shh',
      SWITCHBOARD_GOOGLE_CERTS_FILE: certs,
      SWITCHBOARD_GOOGLE_TOKEN_URL: `${fake.url}/token`,
      SWITCHBOARD_GOOGLE_TOKENINFO_URL: `${fake.url}/tokeninfo`,
      SWITCHBOARD_GOOGLE_USERINFO_URL: `${fake.url}/userinfo`,
    },
    { dataDir: t.dataDir },
  );
});

afterAll(async () => {
  await t.close();
  await new Promise((r) => fake.server.close(r));
  removeDir(t.dataDir);
});

beforeEach(async () => {
  fake.requests.length = 0;
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(t.dataDir, 'app.db'));
  db.prepare('DELETE FROM users').run();
  db.close();
});

function expectSignedOut(res: Response): void {
  expect(sessionCookieOf(res)).toBeNull();
  expect(t.rows('users')).toEqual([]);
  expect(t.rows('sessions')).toEqual([]);
}

describe('GIS ID-token button: POST /api/session/google', () => {
  it('config advertises the client id', async () => {
    const config = await (await fetch(`${t.url}/api/config`)).json();
    expect(config.googleClientId).toBe(CLIENT_ID);
  });

  it('signs in a verified Google account as its lowercased email', async () => {
    const res = await postJson(`${t.url}/api/session/google`, { credential: idToken() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      user: {
        identity: 'grace@example.com',
        name: 'Grace Hopper',
        email: 'grace@example.com',
        role: 'admin',
        picture: 'https://lh3.googleusercontent.com/a/grace',
        extension: '100',
      },
    });
    const cookie = sessionCookieOf(res)!;
    const session = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie } });
    expect((await session.json()).user.identity).toBe('grace@example.com');
  });

  it('accepts the issuer without https:// too', async () => {
    const res = await postJson(`${t.url}/api/session/google`, {
      credential: idToken({ iss: 'accounts.google.com' }),
    });
    expect(res.status).toBe(200);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refusals: [string, () => string, string, RegExp][] = [
    [
      'a bad signature',
      () => idToken({}, { key: stranger.privateKey }),
      'invalid_credential',
      /signature is invalid/,
    ],
    [
      'a tampered payload',
      () => {
        const [h, , s] = idToken().split('.');
        return `${h}.${b64({ email: 'mallory@example.com', email_verified: true, aud: CLIENT_ID, iss: 'accounts.google.com', iat: now(), exp: now() + 60 })}.${s}`;
      },
      'invalid_credential',
      /signature is invalid/,
    ],
    ['an unknown key id', () => idToken({}, { kid: 'key-2' }), 'invalid_credential', /unknown key/],
    [
      'a wrong audience',
      () => idToken({ aud: 'someone-else.apps.googleusercontent.com' }),
      'invalid_credential',
      /audience/,
    ],
    [
      'a wrong issuer',
      () => idToken({ iss: 'https://evil.example' }),
      'invalid_credential',
      /not issued by accounts.google.com/,
    ],
    [
      'an expired token',
      () => idToken({ iat: now() - 7200, exp: now() - 3600 }),
      'invalid_credential',
      /expired/,
    ],
    [
      'a token from the future',
      () => idToken({ iat: now() + 3600, exp: now() + 7200 }),
      'invalid_credential',
      /not valid yet/,
    ],
    ['no expiry', () => idToken({ exp: undefined }), 'invalid_credential', /iat\/exp/],
    [
      'email_verified false',
      () => idToken({ email_verified: false }),
      'email_not_verified',
      /not verified/,
    ],
    [
      'email_verified missing',
      () => idToken({ email_verified: undefined }),
      'email_not_verified',
      /not verified/,
    ],
    ['no email', () => idToken({ email: undefined }), 'invalid_credential', /no email/],
    [
      'alg none',
      () => {
        const [, p] = idToken().split('.');
        return `${b64({ alg: 'none', kid: 'key-1' })}.${p}.x`;
      },
      'invalid_credential',
      /RS256/,
    ],
    ['HS256', () => idToken({}, { alg: 'HS256' }), 'invalid_credential', /RS256/],
    ['garbage', () => 'not-a-jwt', 'invalid_credential', /malformed/],
    ['four segments', () => `${idToken()}.x`, 'invalid_credential', /malformed/],
  ];

  it.each(refusals)(
    'refuses %s with 401 and a clear message',
    async (_label, make, code, message) => {
      const res = await postJson(`${t.url}/api/session/google`, { credential: make() });
      const error = await expectError(res);
      expect(error).toMatchObject({ status: 401, code });
      expect(error.message).toMatch(message);
      expect(error.message).not.toMatch(/eyJ/); // never echoes the token
      expectSignedOut(res);
    },
  );

  it('refuses bad bodies', async () => {
    for (const body of [{}, { credential: 1 }, { credential: 'a.b.c', extra: 1 }]) {
      const res = await postJson(`${t.url}/api/session/google`, body);
      expect(await expectError(res)).toMatchObject({ status: 400, code: 'bad_request' });
      expectSignedOut(res);
    }
  });
});

describe('authorization-code popup: POST /api/session/google/code', () => {
  it('exchanges the code with redirect_uri postmessage and signs in from the ID token', async () => {
    const res = await postJson(`${t.url}/api/session/google/code`, { code: '4/0AbCdEf' });
    expect(res.status).toBe(200);
    expect((await res.json()).user.identity).toBe('grace@example.com');
    const sent = new URLSearchParams(fake.requests[0]!.body);
    expect(Object.fromEntries(sent)).toEqual({
      code: '4/0AbCdEf',
      client_id: CLIENT_ID,
      client_secret: 'shh',
      redirect_uri: 'postmessage',
      grant_type: 'authorization_code',
    });
  });

  it('refuses a code Google rejects', async () => {
    const saved = fake.token;
    fake.token = () => ({ status: 400, body: { error: 'invalid_grant' } });
    try {
      const res = await postJson(`${t.url}/api/session/google/code`, { code: 'used' });
      const error = await expectError(res);
      expect(error).toMatchObject({ status: 401, code: 'invalid_credential' });
      expect(error.message).toContain('invalid_grant');
      expectSignedOut(res);
    } finally {
      fake.token = saved;
    }
  });

  it('verifies the ID token it gets back (a wrong audience is refused)', async () => {
    const saved = fake.token;
    fake.token = () => ({ status: 200, body: { id_token: idToken({ aud: 'other' }) } });
    try {
      const res = await postJson(`${t.url}/api/session/google/code`, { code: 'c' });
      expect(await expectError(res)).toMatchObject({ status: 401, code: 'invalid_credential' });
      expectSignedOut(res);
    } finally {
      fake.token = saved;
    }
  });

  it('answers 502 upstream_error when the token endpoint fails', async () => {
    const saved = fake.token;
    fake.token = () => ({ status: 503, body: {} });
    try {
      const res = await postJson(`${t.url}/api/session/google/code`, { code: 'c' });
      expect(await expectError(res)).toMatchObject({ status: 502, code: 'upstream_error' });
      expectSignedOut(res);
    } finally {
      fake.token = saved;
    }
  });

  it('refuses a malformed code without calling Google', async () => {
    const res = await postJson(`${t.url}/api/session/google/code`, { code: 'a b\n' });
    expect(await expectError(res)).toMatchObject({ status: 401, code: 'invalid_credential' });
    expect(fake.requests).toEqual([]);
  });
});

describe('access-token popup: POST /api/session/google/token', () => {
  it('checks the token audience, reads the profile and signs in', async () => {
    const res = await postJson(`${t.url}/api/session/google/token`, { access_token: 'ya29.good' });
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({
      identity: 'linus@example.com',
      name: 'Linus',
      picture: 'https://lh3.googleusercontent.com/l',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/tokeninfo', '/userinfo']);
    expect(fake.requests[1]!.authorization).toBe('Bearer ya29.good');
  });

  it('refuses a token issued to another app', async () => {
    const saved = fake.tokeninfo;
    fake.tokeninfo = () => ({
      status: 200,
      body: { aud: 'other-app', azp: 'other-app', sub: '1234567890' },
    });
    try {
      const res = await postJson(`${t.url}/api/session/google/token`, {
        access_token: 'ya29.other',
      });
      const error = await expectError(res);
      expect(error).toMatchObject({ status: 401, code: 'invalid_credential' });
      expect(error.message).toMatch(/another application/);
      expectSignedOut(res);
    } finally {
      fake.tokeninfo = saved;
    }
  });

  it('refuses an unverified email', async () => {
    const saved = fake.userinfo;
    fake.userinfo = () => ({
      status: 200,
      body: { sub: '1234567890', email: 'x@example.com', email_verified: false },
    });
    try {
      const res = await postJson(`${t.url}/api/session/google/token`, { access_token: 'ya29.x' });
      expect(await expectError(res)).toMatchObject({ status: 401, code: 'email_not_verified' });
      expectSignedOut(res);
    } finally {
      fake.userinfo = saved;
    }
  });

  it('refuses a token Google rejects', async () => {
    const saved = fake.tokeninfo;
    fake.tokeninfo = () => ({ status: 400, body: { error: 'invalid_token' } });
    try {
      const res = await postJson(`${t.url}/api/session/google/token`, { access_token: 'ya29.bad' });
      expect(await expectError(res)).toMatchObject({ status: 401, code: 'invalid_credential' });
      expectSignedOut(res);
    } finally {
      fake.tokeninfo = saved;
    }
  });

  it('cleans a hostile profile name and drops a non-https picture', async () => {
    const saved = fake.userinfo;
    fake.userinfo = () => ({
      status: 200,
      body: {
        sub: '1234567890',
        email: 'eve@example.com',
        email_verified: true,
        name: 'Eve\u202e\n',
        picture: 'javascript:alert(1)',
      },
    });
    try {
      const res = await postJson(`${t.url}/api/session/google/token`, { access_token: 'ya29.eve' });
      expect((await res.json()).user).toMatchObject({ name: 'Eve', picture: null });
    } finally {
      fake.userinfo = saved;
    }
  });
});

describe('code flow without a client secret', () => {
  it('answers 403 google_sign_in_disabled naming GOOGLE_CLIENT_SECRET', async () => {
    const other = await startApp({ GOOGLE_CLIENT_ID: CLIENT_ID });
    try {
      const error = await expectError(
        await postJson(`${other.url}/api/session/google/code`, { code: 'c' }),
      );
      expect(error).toMatchObject({ status: 403, code: 'google_sign_in_disabled' });
      expect(error.message).toContain('GOOGLE_CLIENT_SECRET');
    } finally {
      await other.close();
      removeDir(other.dataDir);
    }
  });
});
