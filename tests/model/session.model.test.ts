/**
 * Model-based test of the session machine: every planned path is driven through the real app
 * (built, served by the real server, which here asks for a team passcode) in Chromium. Requests
 * are held in flight with Playwright routes so the in-between states (restoring, signing in,
 * signing out) can be seen, then let through to the real server; the failure events are real
 * server refusals (a wrong passcode) or a dropped connection.
 */
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine, EventObject } from 'xstate';
import {
  SESSION_EXPIRED_MESSAGE,
  SIGN_OUT_TIMED_OUT,
  SIGN_OUT_TIMEOUT_MS,
  sessionMachine,
} from '../../src/machines/session.machine';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { addSessionCookie, apiRevoke, apiSignIn } from './support/app';
import { drivePath, planPaths, type PlannedPath } from './support/plan';
import { FIRST_ANSWERS_ID } from '../../src/contracts/api-session';

const PASSCODE = 'correct horse battery staple';
const TARGET = '/history?filter=missed#today';
const FORM = { name: 'Model Tester' };
/**
 * Each path is a new browser signing in as a new person: a browser that never signed in as an existing
 * person would be asked for the server's one-time code (tests/unit/server/identity/returning-sign-in.test.ts).
 */
let runs = 0;

function invokeId(machine: AnyStateMachine, state: string): string {
  const node = (machine.root.states as Record<string, { invoke: Array<{ id: string }> }>)[state];
  const id = node?.invoke[0]?.id;
  if (!id) throw new Error(`state ${state} invokes nothing`);
  return id;
}
const done = (state: string): string => `xstate.done.actor.${invokeId(sessionMachine, state)}`;
const failed = (state: string): string => `xstate.error.actor.${invokeId(sessionMachine, state)}`;
const SIGN_OUT_TIMED_OUT_EVENT = 'xstate.after.SIGN_OUT_TIMEOUT.session.signingOut';

const USER = { identity: 'x', name: 'x', email: 'x', role: 'agent', picture: null };
const events = [
  { type: done('restoring'), output: USER },
  { type: done('restoring'), output: null },
  { type: failed('restoring'), error: new Error('offline') },
  { type: 'session.signIn', request: { method: 'local', ...FORM, passcode: PASSCODE } },
  { type: done('signingIn'), output: USER },
  { type: failed('signingIn'), error: new Error('refused') },
  { type: 'session.signOut' },
  { type: done('signingOut') },
  { type: failed('signingOut'), error: new Error('offline') },
  { type: SIGN_OUT_TIMED_OUT_EVENT },
  { type: 'session.expired', redirect: TARGET },
] as EventObject[];

function eventName(e: EventObject): string {
  if (e.type === done('restoring'))
    return (e as unknown as { output: unknown }).output ? 'restored a user' : 'restored nobody';
  if (e.type === failed('restoring')) return 'restore failed';
  if (e.type === done('signingIn')) return 'sign-in accepted';
  if (e.type === failed('signingIn')) return 'sign-in refused';
  if (e.type === done('signingOut')) return 'signed out';
  if (e.type === failed('signingOut')) return 'sign-out failed';
  if (e.type === SIGN_OUT_TIMED_OUT_EVENT) return 'sign-out timed out';
  return e.type;
}

const plan = planPaths(sessionMachine, events, eventName);

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_PASSCODE: PASSCODE } });
  browser = await launchChromium();
});

afterAll(async () => {
  console.log(`[model] ${plan.summary}`);
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

type Held = 'restore' | 'signIn' | 'signOut';

interface Run {
  context: BrowserContext;
  page: Page;
  hold: Record<Held, boolean>;
  held: Map<Held, Route>;
  /** What the last event should have left on screen, checked with the state. */
  expectToast: { type: string; text: string | RegExp } | null;
  /** A refused local sign-in's message, shown once: beside the form, not as a toast too. */
  expectSignInError: RegExp | null;
  /** The email this path signs in with. */
  email: string;
}

async function open(): Promise<Run> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const run: Run = {
    context,
    page,
    hold: { restore: true, signIn: false, signOut: false },
    held: new Map(),
    expectToast: null,
    expectSignInError: null,
    email: `model.tester.${++runs}@example.com`,
  };
  const holdOr = (which: Held) => async (route: Route) => {
    const isGet = route.request().method() === 'GET';
    if (run.hold[which] && isGet === (which === 'restore')) {
      run.hold[which] = false;
      run.held.set(which, route);
    } else {
      await route.continue();
    }
  };
  // The walk holds the session restore in flight. The served page carries the server's answer so
  // the app need not ask (foundation.test.ts checks that); taken out of the page as it is parsed,
  // before the app reads it, the app asks, as it does when a page carries none (the Vite dev
  // server). (Fulfilling the page from the test instead would make Chromium treat it as public and
  // refuse its sockets to loopback.)
  await page.addInitScript(`new MutationObserver((_, observer) => {
    const carried = document.getElementById(${JSON.stringify(FIRST_ANSWERS_ID)});
    if (carried) { carried.remove(); observer.disconnect(); }
  }).observe(document, { childList: true, subtree: true });`);
  // The page's clock runs as usual; a step that waits on a timer moves it on (sign-out timed out).
  await page.clock.install();
  await page.route('**/api/session', holdOr('restore'));
  await page.route('**/api/session/local', holdOr('signIn'));
  await page.route('**/api/session/logout', holdOr('signOut'));
  await page.goto(`${server.url}${TARGET}`);
  await expect.poll(() => run.held.has('restore')).toBe(true);
  return run;
}

function take(run: Run, which: Held): Route {
  const route = run.held.get(which);
  if (!route) throw new Error(`no ${which} request is held`);
  run.held.delete(which);
  return route;
}

async function holdNext(run: Run, which: Held, act: () => Promise<void>): Promise<void> {
  run.hold[which] = true;
  await act();
  await expect.poll(() => run.held.has(which)).toBe(true);
}

async function exec(run: Run, event: EventObject): Promise<void> {
  const { page } = run;
  run.expectToast = null;
  run.expectSignInError = null;
  switch (eventName(event)) {
    case 'restored a user': {
      const { cookie } = await apiSignIn(server.url, 'Rita Restored', 'rita@example.com', PASSCODE);
      await addSessionCookie(run.context, server.url, cookie);
      const route = take(run, 'restore');
      await route.continue({
        headers: { ...route.request().headers(), cookie: `sb_session=${cookie}` },
      });
      return;
    }
    case 'restored nobody':
      return take(run, 'restore').continue();
    case 'restore failed':
      run.expectToast = { type: 'error', text: /^Could not restore your session/ };
      return take(run, 'restore').abort('connectionrefused');
    case 'session.signIn':
      await page.getByLabel('Name').fill(FORM.name);
      await page.getByLabel('Email').fill(run.email);
      await page.getByLabel('Passcode').fill(PASSCODE);
      return holdNext(run, 'signIn', () => page.getByRole('button', { name: 'Sign in' }).click());
    case 'sign-in accepted':
      return take(run, 'signIn').continue();
    case 'sign-in refused': {
      // The real server refuses a wrong passcode; the form keeps what the person typed.
      const route = take(run, 'signIn');
      const body = JSON.parse(route.request().postData() ?? '{}') as Record<string, string>;
      run.expectSignInError = /passcode/i;
      return route.continue({ postData: JSON.stringify({ ...body, passcode: 'wrong passcode' }) });
    }
    case 'session.signOut':
      return holdNext(run, 'signOut', () => page.getByRole('button', { name: 'Sign out' }).click());
    case 'signed out':
      return take(run, 'signOut').continue();
    case 'sign-out failed':
      run.expectToast = { type: 'error', text: /^Could not sign out/ };
      return take(run, 'signOut').abort('connectionrefused');
    case 'sign-out timed out': {
      // The server never answers: the request stays held while the page's clock passes the limit.
      const route = take(run, 'signOut');
      run.expectToast = { type: 'error', text: `Could not sign out: ${SIGN_OUT_TIMED_OUT}` };
      await page.clock.runFor(SIGN_OUT_TIMEOUT_MS);
      // The page gave the request up; what the route still holds is dropped.
      await route.abort('timedout').catch(() => undefined);
      return;
    }
    case 'session.expired': {
      const cookie = (await run.context.cookies(server.url)).find((c) => c.name === 'sb_session');
      if (!cookie) throw new Error('no session cookie to expire');
      await apiRevoke(server.url, cookie.value);
      run.expectToast = { type: 'warning', text: SESSION_EXPIRED_MESSAGE };
      // Coming back to the tab makes the app check its session, and find it gone.
      await page.evaluate(() => window.dispatchEvent(new Event('focus')));
      return;
    }
    default:
      throw new Error(`no driver for ${event.type}`);
  }
}

async function check(run: Run, state: string): Promise<void> {
  const { page } = run;
  const signInButton = page.getByRole('button', { name: /^Sign(ing)? in/ });
  const signOutButton = page.getByRole('button', { name: /^Sign(ing)? out/ });
  switch (state) {
    case 'restoring':
      await page.getByTestId('session-restoring').waitFor();
      expect(await page.getByRole('heading', { name: 'Sign in' }).count(), 'no login flash').toBe(
        0,
      );
      expect(new URL(page.url()).pathname).toBe('/history');
      break;
    case 'signedOut': {
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const url = new URL(page.url());
      expect(url.pathname).toBe('/login');
      expect(url.searchParams.get('redirect')).toBe(TARGET);
      await expect.poll(() => signInButton.textContent()).toBe('Sign in');
      expect(await signInButton.isEnabled()).toBe(true);
      break;
    }
    case 'signingIn':
      await expect.poll(() => signInButton.textContent()).toBe('Signing in…');
      expect(await signInButton.isDisabled()).toBe(true);
      break;
    case 'signedIn': {
      await page.getByTestId('current-user').waitFor();
      expect((await page.getByTestId('current-user').textContent())?.trim()).not.toBe('');
      await expect.poll(() => signOutButton.textContent()).toBe('Sign out');
      await expect
        .poll(
          () =>
            `${new URL(page.url()).pathname}${new URL(page.url()).search}${new URL(page.url()).hash}`,
        )
        .toBe(TARGET);
      await page.getByRole('heading', { name: 'History' }).waitFor();
      break;
    }
    case 'signingOut':
      await expect.poll(() => signOutButton.textContent()).toBe('Signing out…');
      expect(await signOutButton.isDisabled()).toBe(true);
      break;
    default:
      throw new Error(`no check for state ${state}`);
  }
  if (run.expectToast) {
    const toast = page.getByTestId('toast');
    await toast.waitFor();
    const text = (await toast.textContent()) ?? '';
    expect(await toast.getAttribute('data-type'), `the toast says "${text}"`).toBe(
      run.expectToast.type,
    );
    expect(text).toMatch(run.expectToast.text);
  }
  if (run.expectSignInError) {
    const error = page.getByTestId('sign-in-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(run.expectSignInError);
    expect(await page.getByTestId('toast').count()).toBe(0);
  }
  if (
    state === 'signedOut' &&
    (run.expectToast?.type === 'error' || run.expectSignInError !== null) &&
    (await page.getByLabel('Name').inputValue()) !== ''
  ) {
    // After a refused sign-in nothing the person typed is lost.
    expect(await page.getByLabel('Email').inputValue()).toBe(run.email);
  }
}

describe('session machine, model-based, in Chromium', () => {
  it('covers every state and transition', () => {
    expect(plan.states.covered).toBe(plan.states.total);
    expect(plan.transitions.covered).toBe(plan.transitions.total);
    expect(plan.states.total).toBe(5);
  });

  it.each(plan.paths.map((p): [string, PlannedPath] => [p.name, p]))('%s', (_name, path) =>
    drivePath(path, { open, exec, check, close: (run) => run.context.close() }),
  );
});
