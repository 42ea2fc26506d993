/**
 * People with a phone for the voice model tests: a browser context per person, signed in through
 * the real API and loading the app through that person's signalling proxy, with the page's state
 * log and the microphone-prompt stand-in installed before the app starts.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/chromium';
import type { RunningServer } from '../../support/server';
import { addSessionCookie, apiSignIn } from './app';
import { installMicPrompt } from './mic-prompt';
import { startSignalProxy, type SignalProxy } from './signal-proxy';
import { installStateLog, readStateLog } from './state-log';

/** The phone status of a tab that holds a registered phone with a valid token. */
export const REGISTERED = 'owner.registration.registered owner.token.valid';

/**
 * Debian's Chromium with the fake microphone but without the flag that answers every permission
 * prompt with Allow: here the microphone is what each context's permissions say, so a test can
 * withdraw it (headless Chromium then refuses getUserMedia, as a person clicking Block does).
 */
export async function launchChromiumForVoice(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS.filter((arg) => arg !== '--use-fake-ui-for-media-stream'),
      '--autoplay-policy=no-user-gesture-required',
    ],
    headless: true,
  });
}

export interface VoicePerson {
  name: string;
  email: string;
  context: BrowserContext;
  page: Page;
  proxy: SignalProxy;
  /** Uncaught errors in any of this person's pages. */
  errors: string[];
  /** Opens another tab of this person (the state log installed) at `path`. */
  openTab(path?: string): Promise<Page>;
}

export async function openVoicePerson(
  browser: Browser,
  server: RunningServer,
  name: string,
  path = '/history',
  options: { movableClock?: boolean } = {},
): Promise<VoicePerson> {
  const email = `${name.toLowerCase()}@example.com`;
  const proxy = await startSignalProxy(server.port);
  const { cookie } = await apiSignIn(server.url, name, email);
  const context = await browser.newContext({ permissions: ['microphone'] });
  await addSessionCookie(context, proxy.url, cookie);
  const errors: string[] = [];
  const openTab = async (at = path): Promise<Page> => {
    const page = await context.newPage();
    page.on('pageerror', (err) => errors.push(`${name}: ${err.message}`));
    await installStateLog(page);
    await installMicPrompt(page);
    // Playwright's clock in the page: time runs as usual until a test moves it on.
    if (options.movableClock) await page.clock.install();
    await page.goto(`${proxy.url}${at}`);
    return page;
  };
  const page = await openTab();
  await waitForPhone(page, REGISTERED);
  return { name, email, context, page, proxy, errors, openTab };
}

/** Waits until the tab's phone status shows `state` (a full data-state). */
export async function waitForPhone(page: Page, state: string, timeout = 20_000): Promise<void> {
  await page
    .locator(`[data-testid="phone-status"][data-state="${state}"]`)
    .waitFor({ timeout })
    .catch(async (error: unknown) => {
      const now = await page.getByTestId('phone-status').getAttribute('data-state');
      throw new Error(`phone status is "${now}", not "${state}": ${String(error)}`);
    });
}

/** The states an element (call id or `phone-status`) has shown, in order. */
export async function statesOf(page: Page, key: string): Promise<string[]> {
  return (await readStateLog(page)).filter((e) => e.key === key).map((e) => e.state);
}

/** Waits until the element's log has at least `count` entries and ends with `last`. */
export async function waitForStates(
  page: Page,
  key: string,
  count: number,
  last: string,
  timeout: number,
): Promise<string[]> {
  let seen: string[] = [];
  await expect
    .poll(
      async () => {
        seen = await statesOf(page, key);
        return seen.length >= count && seen.at(-1) === last;
      },
      { timeout, interval: 100 },
    )
    .toBe(true)
    .catch(() => {
      throw new Error(`${key} went ${JSON.stringify(seen)}; waited for ${count} ending "${last}"`);
    });
  return seen;
}
