import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverCommand, startServer, type RunningServer } from '../support/server';
import { rememberSignInKeys, signInKeyHeaders } from '../support/sign-in-keys';

const started: RunningServer[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) {
    await s.kill();
    s.cleanup();
  }
});

async function start(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const s = await startServer(options);
  started.push(s);
  return s;
}

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/api/session/local`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Origin: url,
      ...signInKeyHeaders(url, 'ada@example.com'),
    },
    body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
  });
  rememberSignInKeys(url, 'ada@example.com', res);
  expect(res.status).toBe(200);
  return res.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('server/main.ts as a process', () => {
  it('prints one listening line with its URL and serves the API', async () => {
    const s = await start();
    expect(s.output().match(/listening on http:\/\/127\.0\.0\.1:\d+/g)).toEqual([
      `listening on ${s.url}`,
    ]);
    const config = await fetch(`${s.url}/api/config`);
    // `embedded` unless the run asks for another (SWITCHBOARD_E2E_BACKEND): the page is told
    // `twilio` for every Twilio setup, the twins' rehearsal of one too.
    expect(((await config.json()) as { backend: string }).backend).toBe(
      s.backend === 'embedded' ? 'embedded' : 'twilio',
    );
  });

  it('keeps a session across a graceful restart and across a kill', async () => {
    const first = await start();
    const cookie = await signIn(first.url);
    await first.stop();
    expect(first.process.exitCode).toBe(0);

    const second = await start({ dataDir: first.dataDir, port: first.port });
    expect((await fetch(`${second.url}/api/session`, { headers: { Cookie: cookie } })).status).toBe(
      200,
    );
    await second.kill();

    const third = await start({ dataDir: first.dataDir, port: first.port });
    const res = await fetch(`${third.url}/api/session`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { role: string } }).user.role).toBe('admin');
  });

  it('hands a signed-in user a Twilio Sync token for the account and the twins’ addresses', async () => {
    const s = await start();
    expect((await fetch(`${s.url}/api/token`)).status).toBe(401);
    const cookie = await signIn(s.url);
    const res = await fetch(`${s.url}/api/token`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      identity: string;
      token: string;
      sync: { twilsock: { uri: string }; cdsUri: string };
    };
    expect(body.identity).toBe('ada@example.com');
    // A Twilio access token: signed with the account's API key, for its Sync service, ten minutes.
    const parts = body.token.split('.');
    expect(parts).toHaveLength(3);
    const decode = (part: string): unknown =>
      JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    const account = s.account();
    expect(decode(parts[0]!)).toMatchObject({ alg: 'HS256', cty: 'twilio-fpa;v=1' });
    const claims = decode(parts[1]!) as { iat: number; exp: number };
    expect(claims).toMatchObject({
      iss: account.apiKey,
      sub: account.accountSid,
      grants: { identity: 'ada@example.com', data_sync: { service_sid: account.syncServiceSid } },
    });
    expect(claims.exp - claims.iat).toBe(600);
    expect(
      createHmac('sha256', account.apiSecret).update(`${parts[0]}.${parts[1]}`).digest('base64url'),
    ).toBe(parts[2]);
    // The twins answer on the server's own port.
    expect(body.sync).toEqual({
      twilsock: { uri: `ws://127.0.0.1:${s.port}/v3/wsconnect` },
      cdsUri: `http://127.0.0.1:${s.port}`,
    });
  });

  it('keeps answering after a request that fails', async () => {
    const s = await start();
    const bad = await fetch(`${s.url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${s.url}/api/config`)).status).toBe(200);
  });

  it('goes on serving, idle, and stops when asked after its log reader has gone', async () => {
    const s = await start();
    // Whoever read its output is gone: every line it writes now meets a closed pipe.
    s.process.stdout!.destroy();
    s.process.stderr!.destroy();
    const cpuMs = () => {
      const f = readFileSync(`/proc/${s.process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    };
    // A one-time sign-in code is printed to the terminal: a write to the closed pipe.
    await signIn(s.url);
    const second = await fetch(`${s.url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: s.url },
      body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
    });
    expect(second.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    const before = cpuMs();
    await new Promise((r) => setTimeout(r, 2000));
    expect(cpuMs() - before, 'CPU used while idle for 2 s (ms)').toBeLessThan(400);
    expect((await fetch(`${s.url}/api/config`)).status).toBe(200);
    const exited = new Promise<number | null>((r) => s.process.once('exit', (code) => r(code)));
    s.process.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('exits with a clear message for an invalid PORT', () => {
    const root = resolve(import.meta.dirname, '../..');
    const [node, args] = serverCommand();
    const run = spawnSync(node, args, {
      cwd: root,
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PORT must be an integer from 0 to 65535');
    expect(run.stdout).not.toContain('listening on');
  });
});
