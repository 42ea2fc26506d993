/**
 * TLS_CERT / TLS_KEY: the server speaks HTTPS and WSS itself (what a team needs on a LAN, where a
 * microphone needs a secure context). The Voice SDK then dials wss:// as it always does, with no
 * page rewrite, and the Sync SDK is pointed at wss:// too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';

const SDK = resolve(import.meta.dirname, '../../node_modules/@twilio/voice-sdk/dist/twilio.min.js');
let server: RunningServer;
let browser: Browser;
let certDir: string;

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'sb-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  server = await startServer({
    env: { TLS_CERT: join(certDir, 'cert.pem'), TLS_KEY: join(certDir, 'key.pem') },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  rmSync(certDir, { recursive: true, force: true });
});

it('serves https and wss: a Device registers over wss and places a call, and Sync is pointed at wss', async () => {
  expect(server.output()).toMatch(/listening on https:\/\/127\.0\.0\.1:/);
  const base = `https://127.0.0.1:${server.port}`;
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    bypassCSP: true,
    permissions: ['microphone'],
  });
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  const signedIn = await page.evaluate(async () => {
    const res = await fetch('/api/session/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Tess', email: 'tess@example.com' }),
    });
    return res.status;
  });
  expect(signedIn).toBe(200);
  const cookies = await context.cookies(base);
  expect(cookies.find((c) => c.name === 'sb_session')?.secure).toBe(true);
  await page.addScriptTag({ path: SDK });
  const result = await page.evaluate(async () => {
    const voice = (await (await fetch('/api/voice/token')).json()) as {
      token: string;
      device: Record<string, unknown>;
      signalling: { url: string };
    };
    const sync = (await (await fetch('/api/token')).json()) as {
      sync: { twilsock: { uri: string } };
    };
    interface Call {
      on(event: string, listener: (...args: unknown[]) => void): void;
    }
    const w = window as unknown as {
      Twilio: {
        Device: new (
          t: string,
          o: unknown,
        ) => {
          register(): Promise<void>;
          connect(o: { params: Record<string, string> }): Promise<Call>;
          state: string;
        };
      };
    };
    const device = new w.Twilio.Device(voice.token, voice.device);
    await device.register();
    const state = device.state;
    // A call asks the app's webhooks, over this server's own https ("Twilio" is this process on
    // both backends), which refuse a name nobody has.
    const call = await device.connect({ params: { To: 'Nobody Here' } });
    const events: string[] = [];
    await new Promise<void>((resolve) => {
      for (const e of ['accept', 'error'])
        call.on(e, (err) =>
          events.push(e === 'error' ? `error ${(err as { code: number }).code}` : e),
        );
      call.on('disconnect', () => resolve());
      call.on('error', () => resolve());
    });
    return {
      state,
      events,
      signalling: voice.signalling.url,
      twilsock: sync.sync.twilsock.uri,
    };
  });
  expect(result.state).toBe('registered');
  // The app's answer, <Reject> (31603, declined), not the twin's for a webhook it could not reach.
  expect(result.events).toEqual(['error 31603']);
  expect(server.output()).not.toMatch(/self-signed|HTTP connection failure/);
  expect(result.signalling).toBe(`wss://127.0.0.1:${server.port}/signal`);
  expect(result.twilsock).toBe(`wss://127.0.0.1:${server.port}/v3/wsconnect`);
  await context.close();
});
