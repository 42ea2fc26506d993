/**
 * Google sign-in end to end, with nothing reaching Google: a stand-in on loopback serves the
 * Identity Services script (a small stub with the same API), the token, tokeninfo and userinfo
 * endpoints, and the server verifies ID tokens against keys made here. The browser code and the
 * server's verification are the real ones.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { freePort } from '../support/ports';
import { startServer, type RunningServer } from '../support/server';

const CLIENT_ID = 'switchboard-e2e.apps.googleusercontent.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function idToken(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', kid: 'e2e-key', typ: 'JWT' });
  const body = b64({
    iss: 'https://accounts.google.com',
    aud: CLIENT_ID,
    azp: CLIENT_ID,
    email_verified: true,
    iat: now - 5,
    exp: now + 600,
    ...claims,
  });
  return `${head}.${body}.${sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url')}`;
}

const PEOPLE = {
  button: { sub: '101', email: 'grace@example.com', name: 'Grace Button' },
  code: { sub: '102', email: 'alan@example.com', name: 'Alan Code' },
  token: { sub: '103', email: 'ada@example.com', name: 'Ada Token' },
};

/** The stub script: Google Identity Services' API surface, answering with fixed results. */
function gisStub(credential: string): string {
  return `window.google = { accounts: {
  id: {
    initialize(config) { window.__gisId = config; },
    renderButton(parent, options) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = 'Google: sign in with ID token';
      b.dataset.theme = options.theme; b.dataset.size = options.size;
      b.onclick = () => window.__gisId.callback({ credential: window.__credential || ${JSON.stringify(credential)}, select_by: 'btn' });
      parent.appendChild(b);
    },
  },
  oauth2: {
    initCodeClient(config) { window.__gisCode = config; return { requestCode() { config.callback({ code: 'code-for-alan', scope: config.scope }); } }; },
    initTokenClient(config) { window.__gisToken = config; return { requestAccessToken() { config.callback({ access_token: 'token-for-ada', scope: config.scope }); } }; },
  },
} };`;
}

let fake: Server;
let fakeUrl: string;
let app: RunningServer;
let browser: Browser;
let keysDir: string;
let scriptOk = true;

beforeAll(async () => {
  const port = await freePort();
  fakeUrl = `http://127.0.0.1:${port}`;
  fake = createServer((req, res) => {
    const url = new URL(req.url ?? '/', fakeUrl);
    const json = (body: object, status = 200): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/gsi/client') {
      if (!scriptOk) return json({ error: 'gone' }, 503);
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(gisStub(idToken(PEOPLE.button)));
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('code') !== 'code-for-alan' || form.get('redirect_uri') !== 'postmessage') {
          return json({ error: 'invalid_grant' }, 400);
        }
        json({
          access_token: 'x',
          id_token: idToken(PEOPLE.code),
          token_type: 'Bearer',
          expires_in: 3600,
        });
      });
      return;
    }
    if (url.pathname === '/tokeninfo') {
      if (url.searchParams.get('access_token') !== 'token-for-ada')
        return json({ error: 'invalid_token' }, 400);
      return json({
        aud: CLIENT_ID,
        azp: CLIENT_ID,
        sub: PEOPLE.token.sub,
        scope: 'openid email profile',
      });
    }
    if (url.pathname === '/userinfo') {
      if (req.headers.authorization !== 'Bearer token-for-ada')
        return json({ error: 'invalid_token' }, 401);
      return json({ ...PEOPLE.token, email_verified: true });
    }
    json({ error: 'not found' }, 404);
  });
  await new Promise<void>((r) => fake.listen(port, '127.0.0.1', r));
  keysDir = mkdtempSync(join(tmpdir(), 'google-keys-'));
  const certs = join(keysDir, 'certs.json');
  writeFileSync(
    certs,
    JSON.stringify({ 'e2e-key': publicKey.export({ type: 'spki', format: 'pem' }).toString() }),
  );
  app = await startServer({
    env: {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: 'e2e-secret',
      SWITCHBOARD_GOOGLE_SCRIPT_URL: `${fakeUrl}/gsi/client`,
      SWITCHBOARD_GOOGLE_CERTS_FILE: certs,
      SWITCHBOARD_GOOGLE_TOKEN_URL: `${fakeUrl}/token`,
      SWITCHBOARD_GOOGLE_TOKENINFO_URL: `${fakeUrl}/tokeninfo`,
      SWITCHBOARD_GOOGLE_USERINFO_URL: `${fakeUrl}/userinfo`,
    },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  app?.cleanup();
  await new Promise((r) => fake?.close(r));
  rmSync(keysDir, { recursive: true, force: true });
});

async function openLogin({ scriptLoads = true } = {}): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${app.url}/history`);
  await page.getByTestId('google-sign-in').waitFor();
  // The stub renders its button once the app has set up all three flows.
  if (scriptLoads)
    await page.getByRole('button', { name: 'Google: sign in with ID token' }).waitFor();
  return page;
}

async function expectSignedInAs(page: Page, name: string): Promise<void> {
  await page.waitForURL(`${app.url}/history`);
  await expect.poll(() => page.getByTestId('current-user').textContent()).toContain(name);
  await page.context().close();
}

describe('Google sign-in (script and keys served locally)', () => {
  it('renders the ID-token button outlined and large, and signs in with a verified ID token', async () => {
    const page = await openLogin();
    const button = page.getByRole('button', { name: 'Google: sign in with ID token' });
    expect(await button.getAttribute('data-theme')).toBe('outline');
    expect(await button.getAttribute('data-size')).toBe('large');
    await button.click();
    await expectSignedInAs(page, PEOPLE.button.name);
  });

  it('asks both popups for the email, profile and openid scopes, the code popup by default', async () => {
    const page = await openLogin();
    const scopes = await page.evaluate(() => {
      const w = window as unknown as {
        __gisCode: { scope: string; ux_mode: string };
        __gisToken: { scope: string };
      };
      return [w.__gisCode.scope, w.__gisCode.ux_mode, w.__gisToken.scope];
    });
    expect(scopes).toEqual(['email profile openid', 'popup', 'email profile openid']);
    await page.context().close();
  });

  it('signs in through the authorization-code popup, the server exchanging the code', async () => {
    const page = await openLogin();
    await page.getByRole('button', { name: 'Sign in with Google', exact: true }).click();
    await expectSignedInAs(page, PEOPLE.code.name);
  });

  it('signs in through the access-token popup, the server checking the token is ours', async () => {
    const page = await openLogin();
    await page.getByRole('button', { name: 'Use a Google access token instead' }).click();
    await expectSignedInAs(page, PEOPLE.token.name);
  });

  it('shows "JWT provided is invalid" for a malformed ID token and sends nothing', async () => {
    const page = await openLogin();
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await page.evaluate(() => {
      (window as unknown as { __credential: string }).__credential = 'not.a-jwt';
    });
    await page.getByRole('button', { name: 'Google: sign in with ID token' }).click();
    const toast = page.getByTestId('toast');
    await toast.waitFor();
    expect(await toast.textContent()).toBe('JWT provided is invalid');
    expect(await toast.getAttribute('data-type')).toBe('error');
    expect(posts).toEqual([]);
    await page.context().close();
  });

  it('shows the seed message when the Google script cannot load', async () => {
    scriptOk = false;
    try {
      const page = await openLogin({ scriptLoads: false });
      const toast = page.getByTestId('toast');
      await toast.waitFor();
      expect(await toast.textContent()).toBe(
        'Failed to load the Google 3P Authorization JavaScript Library.',
      );
      await page.context().close();
    } finally {
      scriptOk = true;
    }
  });
});
