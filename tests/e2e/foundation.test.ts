/**
 * The foundation as a new user meets it: the real server (built app, embedded backend) in Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { addSessionCookie, apiSignIn } from '../model/support/app';

let server: RunningServer;
let browser: Browser;
let adminCookie: string;
let agentCookie: string;

/** The 17 routes of seed section 2 (with an id where the route takes one) and their screen titles. */
const ROUTES: Array<[string, string]> = [
  ['/', 'Contacts'],
  ['/contacts', 'Contacts'],
  ['/history', 'Call history'],
  ['/hold', 'On hold'],
  ['/users', 'Users'],
  ['/admin', 'Admin'],
  ['/admin/audio', 'Audio files'],
  ['/admin/audio/create', 'Upload audio'],
  ['/admin/calendar/grp-1/edit', 'Edit holidays'],
  ['/admin/group', 'Ring groups'],
  ['/admin/group/create', 'New ring group'],
  ['/admin/group/grp-1', 'Ring group'],
  ['/admin/group/grp-1/edit', 'Edit ring group'],
  ['/admin/group/grp-1/forwarding/create', 'New forwarding rule'],
  ['/admin/group/grp-1/guidance', 'Announcements of the group'],
  ['/admin/guidance', 'Announcements'],
  ['/admin/guidance/create', 'New announcement'],
  ['/admin/guidance/gd-1/edit', 'Edit announcement'],
  ['/admin/schedule/grp-1/edit', 'Edit business hours'],
  ['/login', 'Sign in'],
  ['/setting', 'Settings'],
];

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
  adminCookie = (await apiSignIn(server.url, 'Ada Admin', 'ada@example.com')).cookie;
  agentCookie = (await apiSignIn(server.url, 'Tom Agent', 'tom@example.com')).cookie;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    // Chromium logs every 4xx; the 401 that says "nobody is signed in" is the expected answer.
    const expected401 = msg.location().url.endsWith('/api/session') && msg.text().includes('401');
    if (msg.type() === 'error' && !expected401) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

describe('a new user', () => {
  it('opens /history, signs in on /login and lands on /history', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${server.url}/history`);
    await page.waitForURL(`${server.url}/login?redirect=%2Fhistory`);
    await page.getByLabel('Name').fill('Nina New');
    await page.getByLabel('Email').fill('nina@example.com');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/history`);
    await page.getByRole('heading', { name: 'History' }).waitFor();
    expect(await page.getByTestId('current-user').textContent()).toContain('Nina New');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the first answers a page carries', () => {
  it('spare the app asking for the session and the sign-in options, signed out and signed in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/session' || path === '/api/config') asked.push(path);
    });
    await page.goto(`${server.url}/history`);
    await page.waitForURL(`${server.url}/login?redirect=%2Fhistory`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await addSessionCookie(context, server.url, adminCookie);
    await page.goto(`${server.url}/history`);
    await page.getByRole('heading', { name: 'History' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/history');
    expect(asked).toEqual([]);
    // Coming back to the tab asks the server again: the carried answer is used once.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => asked).toEqual(['/api/session']);
    await context.close();
  });
});

describe('the routes', () => {
  it("render all 17 (and the main layout's four children) for an admin, each from its own chunk, with no console error", async () => {
    const context = await browser.newContext();
    await addSessionCookie(context, server.url, adminCookie);
    const chunksByRoute = new Map<string, string>();
    for (const [path, title] of ROUTES) {
      const page = await context.newPage();
      const errors = watchErrors(page);
      const scripts = new Set<string>();
      page.on('response', (r) => {
        if (r.url().endsWith('.js')) scripts.add(new URL(r.url()).pathname);
      });
      await page.goto(`${server.url}${path}`);
      if (path === '/login') {
        // A signed-in visitor on /login is sent on; the login screen itself is tested above.
        await page.waitForURL(`${server.url}/`);
      } else {
        await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
        expect(new URL(page.url()).pathname, path).toBe(path);
      }
      await page.waitForLoadState('networkidle');
      expect(errors, `console errors on ${path}`).toEqual([]);
      chunksByRoute.set(path, [...scripts].sort().join(','));
      await page.close();
    }
    // `/` shows the contacts screen, and /login sends an admin to `/`; every other route loads
    // its own screen chunk, so no two of them load the same set of scripts.
    const distinct = new Set(
      [...chunksByRoute].filter(([p]) => p !== '/' && p !== '/login').map(([, c]) => c),
    );
    expect(distinct.size).toBe(ROUTES.length - 2);
    await context.close();
  });

  it('turn an agent away from /admin with a warning', async () => {
    const context = await browser.newContext();
    await addSessionCookie(context, server.url, agentCookie);
    const page = await context.newPage();
    await page.goto(`${server.url}/admin/group`);
    await page.waitForURL(`${server.url}/`);
    const toast = page.getByTestId('toast');
    await toast.waitFor();
    expect(await toast.getAttribute('data-type')).toBe('warning');
    expect(await toast.textContent()).toContain('Only admins can open the admin area.');
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await context.close();
  });

  it('show a not-found screen for unknown paths and malformed ids', async () => {
    const context = await browser.newContext();
    await addSessionCookie(context, server.url, adminCookie);
    const page = await context.newPage();
    for (const path of ['/no-such-page', '/admin/group/%3Cscript%3E/edit']) {
      await page.goto(`${server.url}${path}`);
      await page
        .getByText(/not found|No such/i)
        .first()
        .waitFor();
    }
    await context.close();
  });
});

describe('the revision label', () => {
  it('shows the commit the build was made from, on /login too', async () => {
    // The commit global-setup read from git when it built the app (HEAD may move during a run).
    const commit = inject('builtRevision');
    expect(commit).toMatch(/^[0-9a-f]{7,}$/);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await page.getByTestId('revision').textContent())?.trim()).toBe(commit);
    await context.close();
  });
});
