/**
 * The foundation as a new user meets it: the real server (built app, embedded backend) in Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { addSessionCookie, apiSignIn } from '../model/support/app';
import { navigateInApp } from './support/navigate';
import { readdirSync, readFileSync } from 'node:fs';

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
    // Every route's address is served the app itself (a deep link, a bookmark, a reload).
    const entry = /<script type="module"[^>]* src="([^"]+)"/.exec(
      await (await fetch(`${server.url}/`)).text(),
    )?.[1];
    expect(entry).toMatch(/^\/assets\/index-.+\.js$/);
    for (const [path] of ROUTES) {
      const res = await fetch(`${server.url}${path}`, {
        headers: { Cookie: `sb_session=${adminCookie}`, Accept: 'text/html' },
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/html');
      expect(await res.text(), path).toContain(`src="${entry}"`);
    }
    // One page reaches each screen inside the running app, as a person does after the first: each
    // screen's chunk is loaded when it is first shown, so every route but `/` (the first, which
    // loads the app), `/contacts` (the screen of `/`) and /login (which sends an admin on to `/`)
    // asks for a script no route before it asked for.
    const context = await browser.newContext();
    await addSessionCookie(context, server.url, adminCookie);
    const page = await context.newPage();
    const errors = watchErrors(page);
    const requested = new Set<string>();
    let fresh: string[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (!path.endsWith('.js') || requested.has(path)) return;
      requested.add(path);
      fresh.push(path);
    });
    const withoutChunk: string[] = [];
    for (const [i, [path, title]] of ROUTES.entries()) {
      fresh = [];
      if (i === 0) await page.goto(`${server.url}${path}`);
      // A signed-in visitor on /login is sent on to `/`; the login screen itself is tested above.
      else await navigateInApp(page, server.url, path, path === '/login' ? '/' : path);
      if (path !== '/login') {
        await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
        expect(new URL(page.url()).pathname, path).toBe(path);
      }
      expect(errors, `console errors on ${path}`).toEqual([]);
      if (i > 0 && path !== '/contacts' && path !== '/login' && fresh.length === 0)
        withoutChunk.push(path);
    }
    expect(withoutChunk, 'routes that loaded no chunk of their own').toEqual([]);
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

describe('the browser the suites run in', () => {
  it("keeps every feature Playwright turns off, and opens no omnibox popup's WebUI pages", async () => {
    // Chromium reads only the last --disable-features switch, and tests/support/chromium.ts's comes
    // after Playwright's: it must repeat all of Playwright's, whatever Playwright's version says.
    // The browser is this process's child (Playwright launched it here); CDP hands its command line
    // out only with --enable-automation, which Playwright does not pass.
    const args = chromiumCommandLines().find((line) => line.includes('--remote-debugging-pipe'));
    expect(args, 'the browser process, a child of this one').toBeDefined();
    const lists = (args ?? [])
      .filter((a) => a.startsWith('--disable-features='))
      .map((a) => a.slice('--disable-features='.length).split(','));
    expect(lists.length, 'Playwright and tests/support/chromium.ts each pass one').toBeGreaterThan(
      1,
    );
    const read = new Set(lists[lists.length - 1]);
    const dropped = lists.flat().filter((feature) => !read.has(feature));
    expect(dropped, 'features another --disable-features asked for, lost').toEqual([]);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    expect(targetInfos.map((t) => t.url)).toContain(`${server.url}/login`);
    expect(targetInfos.filter((t) => t.url.startsWith('chrome://omnibox-popup'))).toEqual([]);
    await context.close();
    await cdp.detach();
  });
});

/** The command lines of this process's children (Linux's /proc), each split into its arguments. */
function chromiumCommandLines(): string[][] {
  const lines: string[][] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The parent's pid is the second field after the parenthesised command name.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      // A process that ended while the list was read.
    }
  }
  return lines;
}
