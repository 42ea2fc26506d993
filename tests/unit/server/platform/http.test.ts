import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { createStaticHandler, scriptSafeJson } from '../../../../server/platform/http/static';
import {
  expectError,
  postJson,
  raw,
  removeDir,
  sessionCookieOf,
  startApp,
  tempDir,
  type TestApp,
} from '../support';

const INDEX =
  '<!doctype html><title>Switchboard</title><script type="module" src="/assets/index-abc123.js"></script>';

const BIG_JS = `export const x = ${JSON.stringify('switchboard '.repeat(500))};`;

let t: TestApp;
let dist: string;

beforeAll(async () => {
  dist = tempDir('sb-dist-');
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dist, 'favicon.svg'), '<svg/>');
  writeFileSync(join(dist, 'assets', 'vendor-def456.js'), BIG_JS);
  writeFileSync(join(dist, '.env'), 'SECRET=1');
  t = await startApp({ SWITCHBOARD_DIST: dist });
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
  removeDir(dist);
});

function expectSecurityHeaders(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self' https://accounts.google.com/gsi/client;");
  expect(csp).toContain('frame-src https://accounts.google.com/gsi/;');
  expect(csp).toContain("connect-src 'self' https://accounts.google.com/gsi/;");
  expect(csp).toContain("style-src 'self' 'unsafe-inline' https://accounts.google.com/gsi/style;");
  expect(csp).toContain("img-src 'self' data: https://*.googleusercontent.com;");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'self'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toMatch(/\*(?!\.googleusercontent)/);
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
}

describe('security headers', () => {
  it.each([
    ['the app shell', '/history', 'GET'],
    ['a hashed asset', '/assets/index-abc123.js', 'GET'],
    ['an API answer', '/api/config', 'GET'],
    ['an API error', '/api/session', 'GET'],
    ['a 404', '/api/nope', 'GET'],
    ['a 405', '/history', 'POST'],
  ])('are on %s', async (_label, path, method) => {
    const res = await fetch(`${t.url}${path}`, { method });
    expectSecurityHeaders(res.headers);
  });

  it('add the origin of SWITCHBOARD_GOOGLE_SCRIPT_URL to script, connect and frame sources', async () => {
    const other = await startApp({
      SWITCHBOARD_GOOGLE_SCRIPT_URL: 'http://127.0.0.1:9999/gsi/client',
    });
    try {
      const res = await fetch(`${other.url}/api/config`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src [^;]*http:\/\/127\.0\.0\.1:9999/);
      expect(csp).toMatch(/connect-src [^;]*http:\/\/127\.0\.0\.1:9999/);
      expect(csp).toMatch(/frame-src [^;]*http:\/\/127\.0\.0\.1:9999/);
      expect((await res.json()).googleScriptUrl).toBe('http://127.0.0.1:9999/gsi/client');
    } finally {
      await other.close();
      removeDir(other.dataDir);
    }
  });
});

describe('static files and history fallback', () => {
  it.each(['/', '/history', '/admin/group/42/edit', '/login?redirect=%2Fhistory', '/setting/'])(
    'GET %s answers index.html as built when it has no head to add to, revalidated',
    async (path) => {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toBe(INDEX);
    },
  );

  it('serves hashed assets with a long immutable cache and the right type', async () => {
    const res = await fetch(`${t.url}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe('console.log(1)');
  });

  it('gzips text files for clients that accept it, and only them', async () => {
    const res = await fetch(`${t.url}/assets/vendor-def456.js`);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(Number(res.headers.get('content-length'))).toBeLessThan(BIG_JS.length / 10);
    expect(await res.text()).toBe(BIG_JS);
    const plain = await raw(`${t.url}/assets/vendor-def456.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(BIG_JS);
  });

  it('serves other files revalidated, answers 304 for a matching ETag, and HEAD without a body', async () => {
    const res = await fetch(`${t.url}/favicon.svg`);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const etag = res.headers.get('etag')!;
    const again = await fetch(`${t.url}/favicon.svg`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const head = await raw(`${t.url}/history`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it.each(['/assets/missing-123.js', '/missing.png', '/.env', '/assets/../.env'])(
    'answers 404 JSON for the missing or hidden file %s',
    async (path) => {
      const res = await raw(t.url, { path });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'not_found' } });
      expect(res.body).not.toContain('SECRET');
    },
  );

  it.each([
    '/%2e%2e/%2e%2e/etc/passwd',
    '/..%2f..%2fetc%2fpasswd',
    '/assets/..%5c..%5cpackage.json',
  ])('never serves files outside dist (%s)', async (path) => {
    const res = await raw(t.url, { path });
    expect(res.body).not.toContain('root:');
    expect(res.body).not.toContain('"name": "switchboard"');
    // Either refused, or the URL normalised to an app route and the shell answered.
    if (res.status === 200) expect(res.body).toBe(INDEX);
    else expect([400, 404]).toContain(res.status);
  });

  it('answers 400 for malformed percent-encoding', async () => {
    const res = await raw(t.url, { path: '/%E0%A4%A.js' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_request' } });
  });

  it('answers 405 with Allow for a non-GET navigation', async () => {
    const res = await fetch(`${t.url}/history`, { method: 'POST' });
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await expectError(res)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('answers a clear 503 page for app routes when dist/ is missing', async () => {
    const bare = await startApp();
    try {
      const res = await fetch(`${bare.url}/contacts`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('npm run build');
      expectSecurityHeaders(res.headers);
      // The API still works.
      expect((await fetch(`${bare.url}/api/config`)).status).toBe(200);
    } finally {
      await bare.close();
      removeDir(bare.dataDir);
    }
  });
});

describe('API routing', () => {
  it.each(['/api', '/api/', '/api/nope', '/api/session/extra', '/api/../api/x'])(
    'answers 404 JSON for unknown API path %s',
    async (path) => {
      const res = await raw(t.url, { path });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'not_found' } });
    },
  );

  it('answers unparseable requests with the JSON error shape (headers too large: 431)', async () => {
    const res = await raw(`${t.url}/api/config`, { headers: { 'X-Big': 'x'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_request' } });
    // The server is fine afterwards.
    expect((await fetch(`${t.url}/api/config`)).status).toBe(200);
  });

  it('answers HEAD on a GET endpoint', async () => {
    const res = await raw(`${t.url}/api/config`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });

  it('answers 400 for a malformed Host header', async () => {
    for (const host of ['evil.example/path', 'a b', 'x:y:z', "exa'mple"]) {
      const res = await raw(`${t.url}/api/config`, { headers: { Host: host } });
      expect(res.status).toBe(400);
    }
  });

  it('compares Origin with the Host the browser used', async () => {
    const res = await raw(`${t.url}/api/session/logout`, {
      method: 'POST',
      headers: { Host: 'localhost:8080', Origin: 'http://localhost:8080' },
    });
    expect(res.status).toBe(204);
    const other = await raw(`${t.url}/api/session/logout`, {
      method: 'POST',
      headers: { Host: 'localhost:8080', Origin: 'http://localhost:8081' },
    });
    expect(other.status).toBe(403);
  });
});

describe('GET /api/token', () => {
  it('answers 401 when signed out', async () => {
    expect(await expectError(await fetch(`${t.url}/api/token`))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('mints a token for the signed-in identity with client options for the Host used', async () => {
    const signIn = await postJson(`${t.url}/api/session/local`, {
      name: 'Ada',
      email: 'ada@example.com',
    });
    const cookie = sessionCookieOf(signIn)!;
    const res = await raw(`${t.url}/api/token`, {
      headers: { Cookie: cookie, Host: 'localhost:1234' },
    });
    expect(res.status).toBe(200);
    const answer = JSON.parse(res.body) as { identity: string; token: string; sync: unknown };
    expect(answer).toEqual({
      identity: 'ada@example.com',
      token: expect.any(String),
      sync: {
        twilsock: { uri: 'ws://localhost:1234/v3/wsconnect' },
        cdsUri: 'http://localhost:1234',
      },
    });
    // Twilio's access token, signed with the account's API key, for its Sync service.
    const [header, payload] = answer.token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as unknown) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(header).toMatchObject({ alg: 'HS256', cty: 'twilio-fpa;v=1' });
    expect(payload).toMatchObject({
      iss: t.config.twilio.apiKey,
      sub: t.config.twilio.accountSid,
      grants: {
        identity: 'ada@example.com',
        data_sync: { service_sid: t.config.twilio.syncServiceSid },
      },
    });
    const bad = await raw(`${t.url}/api/token`, { headers: { Cookie: cookie, Host: 'evil/x' } });
    expect(bad.status).toBe(400);
  });
});

describe('what a page carries in its head', () => {
  const PAGE =
    '<!doctype html><html><head><title>Switchboard</title></head><body><script type="module" src="/assets/index-abc123.js"></script></body></html>';
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('sb-dist-');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), PAGE);
    app = await startApp({ SWITCHBOARD_DIST: dir });
  });
  afterAll(async () => {
    await app.close();
    removeDir(app.dataDir);
    removeDir(dir);
  });

  /** The head of `path`'s page, and the first answers it carries. */
  async function page(path: string, cookie?: string) {
    const res = await fetch(`${app.url}${path}`, cookie ? { headers: { Cookie: cookie } } : {});
    const html = await res.text();
    const head = html.slice(0, html.indexOf('</head>'));
    const carried = /<script type="application\/json" id="first-answers">(.*?)<\/script>/.exec(
      head,
    );
    return {
      res,
      head,
      answers: carried ? (JSON.parse(carried[1]!) as Record<string, unknown>) : null,
    };
  }

  it('names what it cannot carry as preloads (a page served with no answers to give)', async () => {
    const serve = createStaticHandler(dir);
    const server = createServer((req, res) => {
      void serve(req, res, new URL(req.url ?? '/', 'http://x').pathname);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/login`);
      const html = await res.text();
      expect(html).not.toContain('first-answers');
      expect(html).toContain('<link rel="preload" href="/api/session" as="fetch" crossorigin>');
      expect(html).toContain('<link rel="preload" href="/api/config" as="fetch" crossorigin>');
      // Nothing personal in it: it may be cached and revalidated.
      expect(res.headers.get('etag')).toMatch(/^"/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("puts the page's first API answers in its head", async () => {
    const { res, head, answers } = await page('/login?redirect=%2Fhistory');
    expect(res.status).toBe(200);
    // The answers are in the page: nothing for the browser to ask, so nothing preloaded, and the
    // page names no file the build did not put in it.
    expect(head).not.toContain('rel="preload"');
    expect(head).not.toContain('<link');
    const config = await (await fetch(`${app.url}/api/config`)).json();
    expect(answers).toEqual({
      '/api/session': {
        status: 401,
        body: { error: { code: 'unauthenticated', message: 'Sign in first' } },
      },
      '/api/config': { status: 200, body: config },
    });
  });

  it('carries who is signed in, so the page is never cached nor answered "not modified"', async () => {
    const signIn = await postJson(`${app.url}/api/session/local`, {
      name: 'Ada </script><script>alert(1)</script>',
      email: 'ada@example.com',
    });
    expect(signIn.status).toBe(200);
    const cookie = sessionCookieOf(signIn)!;
    const mine = await page('/history', cookie);
    const session = await (
      await fetch(`${app.url}/api/session`, { headers: { Cookie: cookie } })
    ).json();
    const config = await (await fetch(`${app.url}/api/config`)).json();
    expect(mine.answers).toEqual({
      '/api/session': { status: 200, body: session },
      '/api/config': { status: 200, body: config },
    });
    expect(mine.res.headers.get('cache-control')).toBe('no-store');
    expect(mine.res.headers.get('etag')).toBeNull();
    // The name cannot end the script element it is carried in.
    expect(mine.head).not.toContain('</script><script>alert(1)');
    expect(mine.head).toContain('\\u003c/script\\u003e');
    const theirs = await page('/history');
    expect(theirs.answers).toMatchObject({ '/api/session': { status: 401 } });
  });

  it('scriptSafeJson reads back as the same value and holds no markup', () => {
    const value = { name: '</script><!-- & \u2028 \u2029 >', n: [1, null, 'é'] };
    const text = scriptSafeJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
