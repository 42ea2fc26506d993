import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../../server/app';
import { configFromEnv } from '../../../../server/config';
import { removeDir, sessionCookieOf, tempDir } from '../support';

/**
 * An attacker who knows only the admin's email, on a loopback server without a passcode, tries to sign in as
 * the admin from a browser that never signed in as them.
 */
const running: { close(): Promise<void>; dir: string }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.close();
    removeDir(r.dir);
  }
});

async function start() {
  const dir = tempDir();
  const announced: string[] = [];
  const app = createApp(
    configFromEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      SWITCHBOARD_DATA: dir,
      SWITCHBOARD_DIST: `${dir}/none`,
    }),
    { log: () => {}, announce: (line) => announced.push(line) },
  );
  const url = await app.listen(0);
  running.push({ close: () => app.close(), dir });
  const signIn = (email: string, extra: Record<string, string> = {}, cookie?: string) =>
    fetch(`${url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify({ name: 'Someone', email, ...extra }),
    });
  const lastCode = (): string => {
    const m = /sign-in code for \S+: (\d{8})/.exec(announced.at(-1) ?? '');
    if (!m?.[1]) throw new Error(`no code announced in ${JSON.stringify(announced)}`);
    return m[1];
  };
  const keysOf = (res: Response): string =>
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith('sb_keys='))!
      .split(';')[0]!;
  return { url, announced, signIn, lastCode, keysOf };
}

describe('local sign-in under an email that already has an account', () => {
  it('refuses the email alone, creates no session and prints a code for the operator', async () => {
    const s = await start();
    expect((await s.signIn('admin@example.com')).status).toBe(200);
    const attack = await s.signIn('admin@example.com');
    expect(attack.status).toBe(401);
    expect(sessionCookieOf(attack)).toBeNull();
    const body = (await attack.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('sign_in_code_required');
    expect(body.error.message).toMatch(/printed in the terminal/);
    expect(s.announced).toHaveLength(1);
    expect(s.announced[0]).toMatch(/^switchboard: sign-in code for admin@example\.com: \d{8} /);
  });

  it('refuses a wrong code, accepts the printed one once, and the code cannot be used again', async () => {
    const s = await start();
    await s.signIn('admin@example.com');
    await s.signIn('admin@example.com');
    const code = s.lastCode();
    const wrong = await s.signIn('admin@example.com', {
      code: code === '00000000' ? '11111111' : '00000000',
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe(
      'bad_sign_in_code',
    );
    const right = await s.signIn('admin@example.com', { code });
    expect(right.status).toBe(200);
    expect(((await right.json()) as { user: { role: string } }).user.role).toBe('admin');
    const replay = await s.signIn('admin@example.com', { code });
    expect(replay.status).toBe(401);
  });

  it('withdraws a code after five wrong tries and prints a new one', async () => {
    const s = await start();
    await s.signIn('admin@example.com');
    await s.signIn('admin@example.com');
    const first = s.lastCode();
    const wrong = first === '00000000' ? '11111111' : '00000000';
    for (let i = 0; i < 5; i++) await s.signIn('admin@example.com', { code: wrong });
    expect(s.lastCode()).not.toBe(first);
    expect((await s.signIn('admin@example.com', { code: first })).status).toBe(401);
  });

  it('lets a browser that signed in as that person before sign in again with its key, and only as them', async () => {
    const s = await start();
    const first = await s.signIn('admin@example.com');
    const keys = s.keysOf(first);
    expect((await s.signIn('admin@example.com', {}, keys)).status).toBe(200);
    await s.signIn('agent@example.com');
    // Ada's key does not open another person's account.
    expect((await s.signIn('agent@example.com', {}, keys)).status).toBe(401);
    // Forged or garbled keys count for nothing.
    expect((await s.signIn('admin@example.com', {}, 'sb_keys=' + 'A'.repeat(43))).status).toBe(401);
    expect((await s.signIn('admin@example.com', {}, 'sb_keys=../../etc')).status).toBe(401);
  });

  it('lets an admin issue a colleague’s code (not printed), which signs them in once; agents get 403', async () => {
    const s = await start();
    const admin = await s.signIn('admin@example.com');
    const adminCookie = sessionCookieOf(admin)!;
    const agent = await s.signIn('agent@example.com');
    const agentCookie = sessionCookieOf(agent)!;
    const issue = (identity: string, cookie: string) =>
      fetch(`${s.url}/api/users/${encodeURIComponent(identity)}/sign-in-code`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: s.url },
      });
    // An agent may not, nor may anyone signed out; an unknown person has no code.
    expect((await issue('admin@example.com', agentCookie)).status).toBe(403);
    expect((await issue('agent@example.com', '')).status).toBe(401);
    expect((await issue('nobody@example.com', adminCookie)).status).toBe(404);
    const issued = await issue('agent@example.com', adminCookie);
    expect(issued.status).toBe(200);
    const body = (await issued.json()) as { identity: string; code: string; expiresAt: number };
    expect(body.identity).toBe('agent@example.com');
    expect(body.code).toMatch(/^\d{8}$/);
    // The terminal says who issued one, never the code.
    expect(s.announced.at(-1)).toMatch(/admin@example\.com issued a sign-in code for agent@/);
    expect(s.announced.join('\n')).not.toContain(body.code);
    // Asked without it, the colleague is told where codes come from; the issued code still works.
    const asked = await s.signIn('agent@example.com');
    expect(((await asked.json()) as { error: { message: string } }).error.message).toMatch(
      /ask an admin for a sign-in code/,
    );
    expect((await s.signIn('agent@example.com', { code: body.code })).status).toBe(200);
    expect((await s.signIn('agent@example.com', { code: body.code })).status).toBe(401);
  });

  it('refuses codes that are not strings, with a clear error and no session', async () => {
    const s = await start();
    await s.signIn('admin@example.com');
    const res = await fetch(`${s.url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'X', email: 'admin@example.com', code: 12345678 }),
    });
    expect(res.status).toBe(400);
    expect(sessionCookieOf(res)).toBeNull();
  });
});
