/**
 * DNS rebinding as an attacker would try it: a hostile name that resolves to the server's loopback address
 * (Chromium's resolver maps it, as a rebinding DNS server would), and a page on that name trying to become
 * the admin and take a Sync token.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { apiSignIn } from '../model/support/app';

const HOSTILE = 'rebind.attacker.test';
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium([`--host-resolver-rules=MAP ${HOSTILE} 127.0.0.1`]);
  // The operator is already the admin.
  await apiSignIn(server.url, 'Ada Admin', 'ada@example.com');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('a page on a hostile name that resolves to the server', () => {
  it('gets no app, cannot sign in as the admin, and gets no token or socket', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = `http://${HOSTILE}:${server.port}`;
    const res = await page.goto(`${origin}/`);
    expect(res?.status()).toBe(421);

    // Same-origin requests from that page, as the attacker's script would send them.
    const outcome = await page.evaluate(async () => {
      const signIn = await fetch('/api/session/local', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Evil', email: 'ada@example.com' }),
      });
      const token = await fetch('/api/token');
      const socket = await new Promise<string>((resolve) => {
        const ws = new WebSocket(`ws://${location.host}/v3/wsconnect`);
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('refused');
      });
      return { signIn: signIn.status, token: token.status, socket };
    });
    expect(outcome).toEqual({ signIn: 421, token: 421, socket: 'refused' });
    expect((await context.cookies()).map((c) => c.name)).not.toContain('sb_session');
    await context.close();
  });

  it('while the same server still serves its own loopback name', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`http://localhost:${server.port}/login`);
    expect(res?.status()).toBe(200);
    await page.close();
  });
});
