/**
 * Twilio's twins in a process of their own (`npm run twins`, server/twins-main.ts), the app server
 * reaching them over the network as it would reach Twilio (`SWITCHBOARD_BACKEND=twilio-twins` with
 * SWITCHBOARD_TWILIO_API_URL): its REST requests, the browsers' SDKs and the twins' webhooks all
 * cross between the two processes. A call between two people in Chromium, whose audio goes on while
 * the app server is killed and started again, as a call on Twilio does.
 *
 * On the twins only (the suite is about them): on the embedded lane it is skipped.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { freePort } from '../support/ports';
import { e2eBackend, startServer, type RunningServer } from '../support/server';
import { startTwinsProcess, type TwinsProcess } from '../support/twins-process';
import { apiSignIn } from '../model/support/app';
import type { Person } from './support/live';
import { inbound, phonePerson } from './support/page-audio';
import { eventually } from './support/phone';

let twins: TwinsProcess;
let server: RunningServer;
let port: number;
let browser: Browser;
let ann: Person;
let bob: Person;

const openCard = (p: Person) => p.page.locator('[data-testid="call-card"][data-status="open"]');

/** The page hears the other side: its inbound audio keeps coming, and is not silence. */
async function hears(p: Person): Promise<void> {
  const before = (await inbound(p.page)).packets;
  await eventually(
    () => inbound(p.page),
    (s) => s.packets > before + 25 && s.level > 0.01,
  );
}

describe.skipIf(e2eBackend() === 'embedded')('the twins in a process of their own', () => {
  beforeAll(async () => {
    port = await freePort();
    twins = await startTwinsProcess({ publicUrl: `http://127.0.0.1:${port}` });
    server = await startServer({ port, env: twins.appEnv });
    browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
    ann = await phonePerson(browser, server.url, 'Ann', '/contacts');
    bob = await phonePerson(browser, server.url, 'Bob', '/contacts');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    server?.cleanup();
    await twins?.stop();
    twins?.cleanup();
  });

  it('the app runs on them as on Twilio: no twin in its own process, the browsers sent to theirs', async () => {
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as { backend: string };
    expect(config.backend).toBe('twilio-twins');
    // The app server carries none of the twins' APIs (no such file), the twins' process does.
    const { TWILIO_API_SECRET: secret } = twins.appEnv;
    const calls = '/twilio/api/2010-04-01/Accounts/AC7717e5000000000000000000000000a1/Calls.json';
    const auth = {
      authorization: `Basic ${Buffer.from(`SK7717e5000000000000000000000000b2:${secret}`).toString('base64')}`,
    };
    const here = await fetch(`${server.url}${calls}`, { headers: auth });
    expect(here.status).toBe(404);
    expect(await here.json()).toMatchObject({ error: { code: 'not_found' } });
    const there = await fetch(`${twins.url}${calls}`, { headers: auth });
    expect(there.status).toBe(200);
    expect(await there.json()).toMatchObject({ calls: [] });
    const { cookie } = await apiSignIn(server.url, 'Ann', 'ann@example.com');
    const voice = (await (
      await fetch(`${server.url}/api/voice/token`, { headers: { cookie: `sb_session=${cookie}` } })
    ).json()) as { signalling: { url: string } };
    expect(voice.signalling.url).toBe(`${twins.url.replace(/^http/, 'ws')}/signal`);
    const sync = (await (
      await fetch(`${server.url}/api/token`, { headers: { cookie: `sb_session=${cookie}` } })
    ).json()) as { sync: { twilsock: { uri: string }; cdsUri: string } };
    expect(sync.sync).toMatchObject({
      twilsock: { uri: `${twins.url.replace(/^http/, 'ws')}/v3/wsconnect` },
      cdsUri: twins.url,
    });
    // The page may reach the twins' origin (its CSP's connect-src).
    const page = await fetch(`${server.url}/contacts`);
    expect(page.headers.get('content-security-policy')).toContain(twins.url);
  });

  it('a call between two browsers goes on while the app server is killed and started again', async () => {
    await ann.page.getByTestId('dial-input').fill('Bob');
    await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
    const ringing = bob.page.locator('[data-testid="call-card"][data-status="incoming"]');
    await ringing.getByRole('button', { name: 'Accept' }).click({ timeout: 20_000 });
    await openCard(ann).waitFor();
    await openCard(bob).waitFor();
    await hears(ann);
    await hears(bob);

    // The app server dies: the call's signalling and audio are the twins', and go on.
    await server.kill();
    await hears(ann);
    await hears(bob);

    // It comes back on the same address and data; the call ends from a page.
    server = await startServer({ port, dataDir: server.dataDir, env: twins.appEnv });
    await hears(ann);
    await openCard(ann).getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await bob.page.getByTestId('call-ended').waitFor();
  });
});
