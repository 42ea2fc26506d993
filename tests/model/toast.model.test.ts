/**
 * Model-based test of the toast machine: every path that @xstate/graph plans is driven through the
 * real app (built, served by the real server) in Chromium, checking the screen in every state.
 * Toasts are raised the way a user raises them: an agent opening /admin (warning) and a sign-out
 * that cannot reach the server (error). Time is Chromium's clock, installed by Playwright.
 */
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import { ADMIN_ONLY_MESSAGE } from '../../src/ui/app/guard';
import { AUTO_DISMISS_MS, toastMachine } from '../../src/machines/toast.machine';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { addSessionCookie, apiSignIn } from './support/app';
import { drivePath, planPaths, type PlannedPath } from './support/plan';
import { UNREGISTER_TIMEOUT_MS } from '../../src/machines/device.setup';

const AFTER = 'xstate.after.autoDismiss.toast.shown.timed';
const SIGN_OUT_FAILED = /^Could not sign out/;

const events: EventObject[] = [
  { type: 'toast.show', message: ADMIN_ONLY_MESSAGE, toastType: 'warning' } as EventObject,
  { type: 'toast.show', message: 'Could not sign out', toastType: 'error' } as EventObject,
  { type: 'toast.close' },
  { type: AFTER },
];
const eventName = (e: EventObject): string =>
  e.type === 'toast.show' ? `show ${(e as { toastType?: string }).toastType ?? 'info'}` : e.type;

const plan = planPaths(toastMachine, events, eventName);

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
  // The first user is the admin; the toast paths run as an agent so /admin raises the warning.
  await apiSignIn(server.url, 'Ada Admin', 'ada@example.com');
});

afterAll(async () => {
  console.log(`[model] ${plan.summary}`);
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

interface Run {
  context: BrowserContext;
  page: Page;
  lastType: string | null;
}

async function open(): Promise<Run> {
  const context = await browser.newContext();
  const { cookie } = await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  await addSessionCookie(context, server.url, cookie);
  const page = await context.newPage();
  await page.clock.install();
  await page.goto(`${server.url}/contacts`);
  await page.getByTestId('current-user').waitFor();
  // From here on, time only moves when a step says so: a second ahead of the page's own clock, read
  // again if more than that second passed before the pause (Playwright refuses to go back: "Cannot
  // fast-forward to the past"; it happened on a machine at load 12).
  for (let attempt = 1; ; attempt++) {
    try {
      await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
      break;
    } catch (error) {
      if (attempt === 5 || !String(error).includes('to the past')) throw error;
    }
  }
  return { context, page, lastType: null };
}

async function clientNavigate(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState({}, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

async function exec(run: Run, event: EventObject): Promise<void> {
  const { page } = run;
  if (event.type === 'toast.show') {
    const type = (event as unknown as { toastType: string }).toastType;
    run.lastType = type;
    if (type === 'warning') {
      await clientNavigate(page, '/admin');
      await page.waitForURL(`${server.url}/`);
      await expect
        .poll(() => page.getByTestId('toast').textContent())
        .toContain(ADMIN_ONLY_MESSAGE);
    } else {
      await refusedSignOut(page);
    }
  } else if (event.type === 'toast.close') {
    await page.getByRole('button', { name: 'Close notification' }).click();
  } else if (event.type === AFTER) {
    await page.clock.runFor(AUTO_DISMISS_MS);
  } else {
    throw new Error(`no driver for ${event.type}`);
  }
}

/**
 * A sign-out the server refuses: this click's own request is held until it is made, then dropped,
 * and only then is the route taken away (so no request of this sign-out reaches the server). Before
 * asking the server, signing out hangs the phone up and waits for its unregister, up to
 * UNREGISTER_TIMEOUT of the page's clock: the paused clock is moved on while the request is awaited.
 */
async function refusedSignOut(page: Page): Promise<void> {
  const held: Route[] = [];
  await page.route('**/api/session/logout', (route) => {
    held.push(route);
  });
  await page.getByRole('button', { name: 'Sign out' }).click();
  for (let moved = 0; held.length === 0; moved += 250) {
    if (moved > UNREGISTER_TIMEOUT_MS + 1000) throw new Error('signing out never asked the server');
    await page.waitForTimeout(50);
    if (held.length === 0) await page.clock.runFor(250);
  }
  expect(await page.getByRole('button', { name: 'Signing out…' }).isDisabled()).toBe(true);
  await held[0]?.abort('connectionrefused');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.unroute('**/api/session/logout');
  expect(held).toHaveLength(1);
}

async function check(run: Run, state: string): Promise<void> {
  const toast = run.page.getByTestId('toast');
  if (state === 'hidden') {
    await expect.poll(() => toast.count()).toBe(0);
    return;
  }
  await toast.waitFor();
  const type = await toast.getAttribute('data-type');
  const text = (await toast.textContent()) ?? '';
  if (state === 'shown.timed') {
    expect(type).toBe(run.lastType);
    expect(type).not.toBe('error');
    expect(text).toContain(ADMIN_ONLY_MESSAGE);
    expect(await toast.getAttribute('role')).toBe('alert');
    // Still there just before its time is up.
    await run.page.clock.runFor(AUTO_DISMISS_MS - 500);
    expect(await toast.count()).toBe(1);
    // Give back the time taken, so a later autoDismiss step measures the whole delay again.
  } else if (state === 'shown.persistent') {
    expect(type).toBe('error');
    expect(text).toMatch(SIGN_OUT_FAILED);
    await run.page.clock.runFor(AUTO_DISMISS_MS * 3);
    expect(await toast.count(), 'an error toast stays until closed').toBe(1);
  } else {
    throw new Error(`no check for state ${state}`);
  }
  expect(await run.page.getByRole('button', { name: 'Close notification' }).count()).toBe(1);
}

describe('toast machine, model-based, in Chromium', () => {
  it('covers every state and transition', () => {
    expect(plan.states.covered).toBe(plan.states.total);
    expect(plan.transitions.covered).toBe(plan.transitions.total);
    expect(plan.states.total).toBe(3);
  });

  it.each(plan.paths.map((p): [string, PlannedPath] => [p.name, p]))('%s', (_name, path) =>
    drivePath(path, { open, exec, check, close: (run) => run.context.close() }),
  );
});
