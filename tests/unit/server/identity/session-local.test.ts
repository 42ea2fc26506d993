import { afterEach, describe, expect, it } from 'vitest';
import {
  expectError,
  postJson,
  removeDir,
  sessionCookieOf,
  startApp,
  tempDir,
  type TestApp,
} from '../support';

const running: TestApp[] = [];
const dirs: string[] = [];

async function start(env: Record<string, string> = {}, dataDir?: string): Promise<TestApp> {
  const t = await startApp(env, dataDir ? { dataDir } : {});
  running.push(t);
  if (!dataDir) dirs.push(t.dataDir);
  return t;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
  dirs.splice(0).forEach(removeDir);
});

async function signIn(t: TestApp, name: string, email: string, extra: object = {}) {
  const res = await postJson(`${t.url}/api/session/local`, { name, email, ...extra });
  return { res, cookie: sessionCookieOf(res) };
}

describe('local sign-in', () => {
  it('signs in, sets a HttpOnly SameSite=Lax session cookie and answers the user', async () => {
    const t = await start();
    const { res, cookie } = await signIn(t, '  Ada Lovelace ', 'Ada@Example.COM');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      user: {
        identity: 'ada@example.com',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        role: 'admin',
        picture: null,
        extension: '100',
      },
    });
    const [session0, keys] = res.headers.getSetCookie();
    expect(session0).toMatch(
      /^sb_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );
    // The key that lets this browser sign in as Ada again: sent only to /api/session, never to scripts.
    expect(keys).toMatch(
      /^sb_keys=[A-Za-z0-9_-]{43}; Path=\/api\/session; Max-Age=31536000; HttpOnly; SameSite=Strict$/,
    );
    expect(res.headers.getSetCookie().join('\n')).not.toContain('Secure');

    const session = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { identity: string } }).user.identity).toBe(
      'ada@example.com',
    );
  });

  it('stores only a hash of the session token', async () => {
    const t = await start();
    const { cookie } = await signIn(t, 'Ada', 'ada@example.com');
    const token = cookie!.split('=')[1]!;
    const [row] = t.rows('sessions');
    expect(row?.id).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.id).not.toContain(token);
    expect(row?.identity).toBe('ada@example.com');
    expect(Number(row?.expires_at) - Number(row?.created_at)).toBe(30 * 24 * 3600 * 1000);
  });

  it('makes the first user admin and later users agents; a returning user keeps the role', async () => {
    const t = await start();
    expect((await (await signIn(t, 'First', 'first@example.com')).res.json()).user.role).toBe(
      'admin',
    );
    expect((await (await signIn(t, 'Second', 'second@example.com')).res.json()).user.role).toBe(
      'agent',
    );
    const again = await signIn(t, 'First Renamed', 'FIRST@example.com');
    expect((await again.res.json()).user).toMatchObject({
      role: 'admin',
      name: 'First Renamed',
    });
    const users = t.rows('users');
    expect(users.map((u) => [u.identity, u.role, u.name])).toEqual([
      ['first@example.com', 'admin', 'First Renamed'],
      ['second@example.com', 'agent', 'Second'],
    ]);
  });

  it('gives exactly one admin when many first sign-ins race', async () => {
    const t = await start();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => signIn(t, `User ${i}`, `user${i}@example.com`)),
    );
    expect(results.every((r) => r.res.status === 200)).toBe(true);
    expect(t.rows('users').filter((u) => u.role === 'admin')).toHaveLength(1);
  });

  it('answers 401 unauthenticated without a session, with a garbage cookie, or an unknown token', async () => {
    const t = await start();
    for (const cookie of [
      undefined,
      'sb_session=nope',
      `sb_session=${'A'.repeat(43)}`,
      'other=1',
    ]) {
      const res = await fetch(
        `${t.url}/api/session`,
        cookie ? { headers: { Cookie: cookie } } : {},
      );
      expect(await expectError(res)).toMatchObject({ status: 401, code: 'unauthenticated' });
    }
  });

  it('logs out: 204, the server-side session is gone and the cookie is cleared', async () => {
    const t = await start();
    const { cookie } = await signIn(t, 'Ada', 'ada@example.com');
    const out = await fetch(`${t.url}/api/session/logout`, {
      method: 'POST',
      headers: { Cookie: cookie! },
    });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(
      /^sb_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/,
    );
    expect(t.rows('sessions')).toHaveLength(0);
    const after = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(after.status).toBe(401);
    // Logging out without a session is harmless.
    expect((await fetch(`${t.url}/api/session/logout`, { method: 'POST' })).status).toBe(204);
  });

  it('keeps people signed in across a restart on the same data folder', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start({}, dataDir);
    const { cookie } = await signIn(first, 'Ada', 'ada@example.com');
    await first.close();
    running.splice(running.indexOf(first), 1);

    const second = await start({}, dataDir);
    const res = await fetch(`${second.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({
      identity: 'ada@example.com',
      role: 'admin',
    });
  });

  it('ends a session once it expires and renews one past half its life', async () => {
    let now = Date.UTC(2026, 0, 1);
    const dataDir = tempDir();
    dirs.push(dataDir);
    const t = await startApp({}, { dataDir, now: () => now });
    running.push(t);
    const { cookie } = await signIn(t, 'Ada', 'ada@example.com');
    const day = 24 * 3600 * 1000;

    now += 10 * day;
    const fresh = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.getSetCookie()).toEqual([]);

    now += 10 * day; // 20 days in: less than half of 30 left, so it slides.
    const renewed = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.getSetCookie().join()).toContain('Max-Age=2592000');
    expect(Number(t.rows('sessions')[0]?.expires_at)).toBe(now + 30 * day);

    now += 31 * day;
    const expired = await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie! } });
    expect(expired.status).toBe(401);
  });
});

describe('requireAdmin (for later admin routes)', () => {
  it('answers 401 signed out, 403 forbidden for an agent, and lets an admin through', async () => {
    const t = await start();
    t.app.router.on('POST', '/api/test/admin-only', (ctx) => {
      const user = t.app.auth.requireAdmin(ctx);
      ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
      ctx.res.end(JSON.stringify({ ok: user.identity }));
    });
    const url = `${t.url}/api/test/admin-only`;
    const admin = (await signIn(t, 'Admin', 'admin@example.com')).cookie!;
    const agent = (await signIn(t, 'Agent', 'agent@example.com')).cookie!;

    expect(await expectError(await fetch(url, { method: 'POST' }))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    expect(
      await expectError(await fetch(url, { method: 'POST', headers: { Cookie: agent } })),
    ).toEqual({ status: 403, code: 'forbidden', message: 'Only admins may do this' });
    const ok = await fetch(url, { method: 'POST', headers: { Cookie: admin } });
    expect(await ok.json()).toEqual({ ok: 'admin@example.com' });
  });
});

describe('passcode', () => {
  it('requires the team passcode when SWITCHBOARD_PASSCODE is set, and accepts the right one', async () => {
    const t = await start({ SWITCHBOARD_PASSCODE: 'open sesame' });
    const config = await (await fetch(`${t.url}/api/config`)).json();
    expect(config).toMatchObject({ localSignIn: true, passcodeRequired: true });

    const missing = await signIn(t, 'Ada', 'ada@example.com');
    expect(await expectError(missing.res)).toMatchObject({ status: 400, code: 'bad_request' });
    const wrong = await signIn(t, 'Ada', 'ada@example.com', { passcode: 'open sesame!' });
    expect(await expectError(wrong.res)).toEqual({
      status: 401,
      code: 'bad_passcode',
      message: 'The passcode is wrong',
    });
    expect(wrong.cookie).toBeNull();
    expect(t.rows('users')).toHaveLength(0);

    const right = await signIn(t, 'Ada', 'ada@example.com', { passcode: 'open sesame' });
    expect(right.res.status).toBe(200);
    expect(right.cookie).not.toBeNull();
  });

  it('locks a client out for 15 minutes after 10 wrong passcodes, even with the right one', async () => {
    let now = Date.UTC(2026, 0, 1);
    const dataDir = tempDir();
    dirs.push(dataDir);
    const t = await startApp({ SWITCHBOARD_PASSCODE: 'right' }, { dataDir, now: () => now });
    running.push(t);
    for (let i = 0; i < 10; i++) {
      const wrong = await signIn(t, 'Mallory', 'm@example.com', { passcode: `guess${i}` });
      expect(wrong.res.status).toBe(401);
    }
    const locked = await signIn(t, 'Ada', 'ada@example.com', { passcode: 'right' });
    expect(locked.res.headers.get('retry-after')).toBe('900');
    expect(await expectError(locked.res)).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(locked.cookie).toBeNull();
    expect(t.rows('users')).toHaveLength(0);

    now += 15 * 60 * 1000;
    const later = await signIn(t, 'Ada', 'ada@example.com', { passcode: 'right' });
    expect(later.res.status).toBe(200);
  });

  it('offers local sign-in off loopback only with a passcode', async () => {
    const off = await start({ HOST: '0.0.0.0' });
    const config = await (
      await fetch(`${off.url.replace('0.0.0.0', '127.0.0.1')}/api/config`)
    ).json();
    expect(config).toMatchObject({ localSignIn: false, passcodeRequired: false });
    const res = await postJson(`${off.url.replace('0.0.0.0', '127.0.0.1')}/api/session/local`, {
      name: 'Ada',
      email: 'ada@example.com',
    });
    expect(await expectError(res)).toMatchObject({ status: 403, code: 'local_sign_in_disabled' });
    expect(off.rows('users')).toHaveLength(0);

    const on = await start({ HOST: '0.0.0.0', SWITCHBOARD_PASSCODE: 'x' });
    const onConfig = await (
      await fetch(`${on.url.replace('0.0.0.0', '127.0.0.1')}/api/config`)
    ).json();
    expect(onConfig).toMatchObject({ localSignIn: true, passcodeRequired: true });
  });
});

describe('GET /api/config', () => {
  it('describes the sign-in options', async () => {
    const t = await start();
    expect(await (await fetch(`${t.url}/api/config`)).json()).toEqual({
      googleClientId: null,
      googleScriptUrl: 'https://accounts.google.com/gsi/client',
      localSignIn: true,
      passcodeRequired: false,
      backend: 'embedded',
    });
  });
});
