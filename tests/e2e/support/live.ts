/**
 * Helpers for the live-screen journeys: signed-in browser contexts, a real SDK client in Node to
 * write what other people (or the calls feature) would write, and a waiter for the UI.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SyncClient } from 'twilio-sync';
import { addSessionCookie, apiSignIn } from '../../model/support/app';
import { clientWithToken, token } from '../../integration/sync/support';

export interface Person {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A browser context signed in as `name` through the API, with one page open at `path`. */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  name: string,
  email: string,
  path: string,
): Promise<Person> {
  const { cookie } = await apiSignIn(baseUrl, name, email);
  const context = await browser.newContext();
  await addSessionCookie(context, baseUrl, cookie);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  await page.goto(`${baseUrl}${path}`);
  return { context, page, errors };
}

/** A real twilio-sync client in Node for a signed-in user (the test's own writer). */
export async function sdkClientFor(
  baseUrl: string,
  name: string,
  email: string,
): Promise<SyncClient> {
  const { cookie } = await apiSignIn(baseUrl, name, email);
  const t = await token(baseUrl, `sb_session=${cookie}`);
  return clientWithToken(t.token, t.sync);
}

/** Runs `work` for each item with at most `inFlight` running at once. */
export async function inBatches<T>(
  items: T[],
  inFlight: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(inFlight, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(runners);
}
