import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHostPolicy } from '../../../../server/platform/http/hosts';
import { postJson, raw, removeDir, startApp, type TestApp } from '../support';

/** DNS rebinding: a hostile name that resolves to 127.0.0.1 must not make its pages "same origin" with us. */
const running: TestApp[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) {
    await t.close();
    removeDir(t.dataDir);
  }
});

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startApp(env);
  running.push(t);
  return t;
}

/** A WebSocket upgrade with the given Host: the status line the server answers with. */
function upgrade(url: string, host: string, path = '/v3/wsconnect'): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.hostname,
      port: target.port,
      path,
      headers: {
        Host: host,
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(`${res.statusCode}`);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(`${res.statusCode}`);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Host check', () => {
  it('refuses a foreign name on the API, the app and sign-in before anything runs', async () => {
    const t = await start();
    for (const path of ['/api/config', '/', '/contacts', '/assets/x.js']) {
      const res = await raw(`${t.url}${path}`, {
        headers: { Host: 'rebind.attacker.example:8080' },
      });
      expect(res.status, path).toBe(421);
      if (path.startsWith('/api')) {
        expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
      }
    }
    const signIn = await raw(`${t.url}/api/session/local`, {
      method: 'POST',
      headers: {
        Host: 'rebind.attacker.example:8080',
        Origin: 'http://rebind.attacker.example:8080',
        'Content-Type': 'application/json',
      },
      chunks: [JSON.stringify({ name: 'Evil', email: 'evil@example.com' })],
    });
    expect(signIn.status).toBe(421);
    expect(t.rows('users')).toEqual([]);
  });

  it('refuses the WebSocket upgrade for a foreign name, and takes it for a loopback one', async () => {
    const t = await start();
    expect(await upgrade(t.url, 'rebind.attacker.example')).toBe('421');
    expect(await upgrade(t.url, 'localhost')).not.toBe('421');
    expect(await upgrade(t.url, 'localhost', '/no/such/socket')).toBe('404');
  });

  it('serves loopback names and addresses, and names listed in PUBLIC_ORIGIN', async () => {
    const t = await start({ PUBLIC_ORIGIN: 'https://phone.example.com, http://10.1.2.3:8080' });
    for (const host of [
      '127.0.0.1:8080',
      'localhost',
      'app.localhost:1',
      '[::1]:8080',
      'phone.example.com',
      'PHONE.example.com:443',
      '10.1.2.3:8080',
    ]) {
      const res = await raw(`${t.url}/api/config`, { headers: { Host: host } });
      expect(res.status, host).toBe(200);
    }
    for (const host of ['phone.example.com.evil.example', 'example.com', '10.1.2.4']) {
      const res = await raw(`${t.url}/api/config`, { headers: { Host: host } });
      expect(res.status, host).toBe(421);
    }
  });

  it('checks the forwarded host too behind a trusted proxy', async () => {
    const t = await start({
      SWITCHBOARD_TRUST_PROXY: '1',
      PUBLIC_ORIGIN: 'https://phone.example.com',
    });
    const ok = await raw(`${t.url}/api/config`, {
      headers: { Host: '127.0.0.1:8080', 'X-Forwarded-Host': 'phone.example.com' },
    });
    expect(ok.status).toBe(200);
    const bad = await raw(`${t.url}/api/config`, {
      headers: { Host: '127.0.0.1:8080', 'X-Forwarded-Host': 'rebind.attacker.example' },
    });
    expect(bad.status).toBe(421);
  });

  it('refuses a PUBLIC_ORIGIN that is not a list of origins', async () => {
    await expect(startApp({ PUBLIC_ORIGIN: 'phone.example.com' })).rejects.toThrow(/PUBLIC_ORIGIN/);
    await expect(startApp({ PUBLIC_ORIGIN: 'https://phone.example.com/app' })).rejects.toThrow(
      /PUBLIC_ORIGIN/,
    );
  });

  it('still signs in on the names it serves', async () => {
    const t = await start();
    const res = await postJson(`${t.url}/api/session/local`, {
      name: 'Ada',
      email: 'ada@example.com',
    });
    expect(res.status).toBe(200);
  });
});

describe('createHostPolicy', () => {
  it("allows this machine's addresses only when listening on a wildcard", () => {
    const own = () => ['192.168.7.20', 'fe80::1'];
    const wildcard = createHostPolicy({
      listenHost: '0.0.0.0',
      publicHosts: [],
      interfaceAddresses: own,
    });
    expect(wildcard.allows('192.168.7.20:8080')).toBe(true);
    expect(wildcard.allows('[fe80::1]:8080')).toBe(true);
    expect(wildcard.allows('192.168.7.21:8080')).toBe(false);
    expect(wildcard.allows('intranet.example:8080')).toBe(false);
    const specific = createHostPolicy({
      listenHost: '192.168.7.20',
      publicHosts: [],
      interfaceAddresses: own,
    });
    expect(specific.allows('192.168.7.20')).toBe(true);
    const loopback = createHostPolicy({
      listenHost: '127.0.0.1',
      publicHosts: [],
      interfaceAddresses: own,
    });
    expect(loopback.allows('192.168.7.20')).toBe(false);
    expect(loopback.allows('localhost:5173')).toBe(true);
  });
});
