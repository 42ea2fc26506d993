/**
 * /history in Chromium against the real server: calls written by the server (through the Sync
 * service's test hook, as the voice service writes them) show newest first, page in as you scroll, filter by a shareable `filter` parameter, and new
 * calls appear at the top while the screen is open.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { numberCallEnd } from './support/cards';
import { serverWriter, signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let calls: Awaited<ReturnType<typeof serverWriter>>;

const TOTAL = 130;
const OUTCOMES = ['answered', 'missed', 'forwarded', 'abandoned'] as const;
const START = Date.UTC(2026, 10, 1, 9, 0, 0);

/** Call n: even ones inbound, every fourth missed; `from` names it so rows are easy to find. */
function call(n: number) {
  const inbound = n % 2 === 0;
  const startedAt = new Date(START + n * 60_000).toISOString();
  return {
    direction: inbound ? 'inbound' : 'outbound',
    from: inbound ? `+1555000${String(n).padStart(4, '0')}` : '+442079460000',
    to: inbound ? '+442079460000' : `+1555000${String(n).padStart(4, '0')}`,
    user: 'tom@example.com',
    group: 'Front desk',
    startedAt,
    answeredAt: startedAt,
    endedAt: startedAt,
    duration: 60 + n,
    outcome: OUTCOMES[n % 4],
  };
}

const number = (n: number) => `+1555000${String(n).padStart(4, '0')}`;

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({
    env: { SWITCHBOARD_DIST: dist.dir, SWITCHBOARD_SYNC_TEST_HOOKS: '1' },
  });
  browser = await launchChromium();
  calls = await serverWriter(server.url);
  // Pushed one after another so list index order is call order.
  for (let n = 0; n < TOTAL; n += 1) await calls.push('calls', call(n));
});

afterAll(async () => {
  calls?.close();
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

const shownIndexes = (page: Page) =>
  page
    .getByTestId('call-row')
    .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-index'))));

async function scrollToEnd(page: Page) {
  await page.getByTestId('call-scroller').evaluate((el) => el.scrollTo(0, el.scrollHeight));
}

describe('call history', () => {
  let person: Person;

  it('shows the newest calls first, one page at first', async () => {
    person = await signedInPage(browser, server.url, 'Tom Agent', 'tom@example.com', '/history');
    const { page } = person;
    await page.getByTestId('call-row').first().waitFor();
    const indexes = await shownIndexes(page);
    expect(indexes[0]).toBe(TOTAL - 1);
    expect(indexes).toEqual([...indexes].sort((a, b) => b - a));
    // An outbound call shows who was called; its outcome and duration are on the row.
    const newest = await page.getByTestId('call-row').first().textContent();
    // The number as the team's country writes it: its digits, whatever the spacing.
    expect(newest?.replace(/\D/g, '')).toContain(number(TOTAL - 1).slice(2));
    expect(newest).toContain('Outbound');
    expect(newest).toContain('3:09');
    expect(newest).toContain('Missed');
    // The first page is 50 calls: the oldest (index 0) is not loaded yet.
    expect(await page.locator('[data-index="0"]').count()).toBe(0);
  });

  it('loads the next pages as you scroll, down to the first call ever', async () => {
    const { page } = person;
    for (let i = 0; i < 10; i += 1) {
      await scrollToEnd(page);
      if ((await page.locator('[data-index="0"]').count()) > 0) break;
      await page.waitForTimeout(300);
    }
    await page.locator('[data-index="0"]').waitFor();
    await page.getByText(`${TOTAL} calls, all loaded`).waitFor();
    expect(await page.getByTestId('call-row').count()).toBeLessThan(40);
  });

  it('shows a new call at the top while open', async () => {
    const { page } = person;
    await page.getByTestId('call-scroller').evaluate((el) => el.scrollTo(0, 0));
    await calls.push('calls', {
      ...call(TOTAL),
      from: '+15559990000',
      direction: 'inbound',
      outcome: 'missed',
    });
    await page.locator(`[data-index="${TOTAL}"]`).waitFor();
    expect((await shownIndexes(page))[0]).toBe(TOTAL);
    expect(
      (await page.getByTestId('call-row').first().textContent())?.replace(/\D/g, ''),
    ).toContain('5559990000');
  });

  it('filters by the filter parameter, and the buttons change it', async () => {
    const { page } = person;
    await page.goto(`${server.url}/history?filter=missed`);
    await page.getByTestId('call-row').first().waitFor();
    expect(await page.getByRole('button', { name: 'Missed' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    for (const text of await page.getByTestId('call-row').allTextContents())
      expect(text).toContain('Missed');
    expect((await shownIndexes(page))[0]).toBe(TOTAL);

    await page.getByRole('button', { name: 'Outbound' }).click();
    await page.waitForURL(`${server.url}/history?filter=outbound`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="call-row"]')].every((r) =>
        r.textContent?.includes('Outbound'),
      ),
    );
    expect((await shownIndexes(page)).every((i) => i % 2 === 1)).toBe(true);

    await page.getByRole('button', { name: 'Inbound' }).click();
    await page.waitForURL(`${server.url}/history?filter=inbound`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="call-row"]')].every((r) =>
        r.textContent?.includes('Inbound'),
      ),
    );
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.waitForURL(`${server.url}/history`);
    expect(person.errors).toEqual([]);
  });

  it('calls back from a row: the softphone dials it, and a phone number is refused with a reason', async () => {
    const { page } = person;
    await page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    const callBack = page.getByRole('button', { name: /^Call back / }).first();
    await expect.poll(() => callBack.isDisabled()).toBe(false);
    await callBack.click();
    // The newest row is the inbound call from +15559990000 pushed above.
    await page
      .getByTestId('call-ended')
      .filter({ hasText: numberCallEnd('+15559990000') })
      .waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await page.getByTestId('call-card').count()).toBe(0);
  });
});

describe('an empty history', () => {
  it('says there are no calls yet', async () => {
    const other = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
    try {
      const { page } = await signedInPage(
        browser,
        other.url,
        'Ann Empty',
        'ann@example.com',
        '/history?filter=missed',
      );
      await page.getByText('No missed calls.').waitFor();
    } finally {
      await other.stop();
      other.cleanup();
    }
  });
});
