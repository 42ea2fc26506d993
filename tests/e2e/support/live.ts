/**
 * Helpers for the live-screen journeys: signed-in browser contexts, a real SDK client in Node to
 * write what other people (or the calls feature) would write, and a waiter for the UI.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SyncClient } from 'twilio-sync';
import { addSessionCookie, apiSignIn } from '../../model/support/app';
import { clientWithToken, RawTwilsock, token } from '../../integration/sync/support';
import type { AdminApi } from '../../support/ring-groups';

export interface Person {
  context: BrowserContext;
  page: Page;
  errors: string[];
  /** Every response of 400 or more the page received, as `STATUS METHOD path` (for a test to name). */
  failed: string[];
}

/** A browser context signed in as `name` through the API, with one page open at `path`. */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  name: string,
  email: string,
  path: string,
  /** A script to run in the page before the app's own, on every load (page.addInitScript). */
  initScript?: string,
): Promise<Person> {
  const { cookie } = await apiSignIn(baseUrl, name, email);
  const context = await browser.newContext();
  await addSessionCookie(context, baseUrl, cookie);
  const page = await context.newPage();
  if (initScript !== undefined) await page.addInitScript(initScript);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const url = new URL(response.url());
    failed.push(`${response.status()} ${response.request().method()} ${url.pathname}`);
  });
  await page.goto(`${baseUrl}${path}`);
  return { context, page, errors, failed };
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

/**
 * A signed-in admin (`name`) as the group form and the announcement screen reach the server: the
 * API with the admin's session, and the admin's own twilio-sync client for what the group's pages
 * write (holidays, forwarding rules). For `saveGroup` and `saveAnnouncement`
 * (tests/support/ring-groups.ts); shut its `sync` down when done.
 */
export async function adminApiFor(baseUrl: string, name: string, email: string): Promise<AdminApi> {
  const { cookie } = await apiSignIn(baseUrl, name, email);
  const header = `sb_session=${cookie}`;
  const t = await token(baseUrl, header);
  return { baseUrl, cookie: header, sync: clientWithToken(t.token, t.sync) };
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

/**
 * A private copy of the built app for this file's server. Other test runs on the machine rebuild
 * `dist/` in place; a page that loads a lazy chunk during that rebuild would break for reasons
 * that have nothing to do with the code under test.
 */
export function snapshotDist(): { dir: string; remove: () => void } {
  const source = resolve(import.meta.dirname, '../../../dist');
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-dist-'));
  for (let attempt = 0; ; attempt += 1) {
    cpSync(source, dir, { recursive: true });
    const index = readFileSync(join(dir, 'index.html'), 'utf8');
    const assets = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    if (assets.length > 0 && assets.every((a) => existsSync(join(dir, a)))) break;
    if (attempt >= 20) throw new Error('dist/ stayed incomplete: is a build running?');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    execFileSync('sleep', ['1']);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes through the Sync service as the server would (objects only the server may write, such as the
 * `calls` list), over the service's test hook: the server must run with SWITCHBOARD_SYNC_TEST_HOOKS=1.
 */
export async function serverWriter(baseUrl: string): Promise<{
  push(list: string, data: Record<string, unknown>): Promise<number>;
  close(): void;
}> {
  const { cookie } = await apiSignIn(baseUrl, 'Test Hook', 'test-hook@example.com');
  const t = await token(baseUrl, `sb_session=${cookie}`);
  const raw = await RawTwilsock.open(baseUrl);
  await raw.init(t.token);
  return {
    async push(list, data) {
      const reply = await raw.request('POST', '/test/as-server', {
        method: 'POST',
        path: `/v3/Lists/${encodeURIComponent(list)}/Items`,
        body: { data },
      });
      const body = reply.body as { index?: number; message?: string };
      if (typeof body.index !== 'number') throw new Error(`push refused: ${JSON.stringify(body)}`);
      return body.index;
    },
    close: () => raw.close(),
  };
}

/** Creates a ring group through /admin/group/create as an admin would; resolves its id. */
export async function createGroupOnScreen(
  page: Page,
  baseUrl: string,
  group: { name: string; number: string; members?: string[] },
): Promise<string> {
  await page.goto(`${baseUrl}/admin/group/create`);
  await page.getByLabel('Name').fill(group.name);
  await page.getByLabel('Number or extension').fill(group.number);
  for (const m of group.members ?? []) {
    await page.getByLabel('Add a member').selectOption({ label: m });
  }
  await page.getByRole('button', { name: 'Create group' }).click();
  await page.getByTestId('group-detail').waitFor();
  return new URL(page.url()).pathname.split('/').pop()!;
}
