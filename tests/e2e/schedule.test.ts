/**
 * Business hours as an admin meets them, in Chromium against the real server: a new group is open
 * Monday to Friday 09:00–17:00 in the admin's zone; bad hours (an unknown zone, overlapping ranges) are refused next to their fields and nothing
 * is saved; two ranges on one day in UTC are saved and the group's page says it is open now and
 * until when (the same answer the open-now function gives); a second admin's earlier save
 * produces the conflict choice; leaving with unsaved changes asks first; an agent cannot write
 * the schedule (screen and SDK).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNow } from '../../src/domain/hours';
import { scheduleFromData } from '../../src/domain/schedule';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { apiSignIn } from '../model/support/app';
import {
  createGroupOnScreen,
  sdkClientFor,
  signedInPage,
  snapshotDist,
  type Person,
} from './support/live';
import { WEEKDAYS } from '../../src/contracts/records/schedule';
import { weekdayName } from '../../src/domain/weekdays';
import { describeOpenNow } from '../../src/domain/hours-text';
import { wallClock } from '../../src/domain/wall-clock';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;
let groupId = '';

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin/group');
  await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  groupId = await createGroupOnScreen(ada.page, server.url, {
    name: 'Support',
    number: '300',
    members: ['Tom Agent'],
  });
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

async function storedSchedule() {
  const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
  const doc = await sdk.document({ id: `schedule:${groupId}`, mode: 'open_existing' });
  return doc.data as Record<string, unknown>;
}

describe('business hours', () => {
  it('a new group is open Monday to Friday, 09:00–17:00, in the admin’s zone', async () => {
    const { page } = ada;
    await page.getByTestId('group-hours').waitFor();
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(await page.getByTestId('group-hours').textContent()).toBe(
      `Mon–Fri 09:00–17:00 (${zone})`,
    );
    expect(await page.getByTestId('group-open-now').textContent()).not.toContain(
      'no opening hours ahead',
    );
    await expect
      .poll(() => page.getByTestId('group-next-holiday').textContent())
      .toBe('None planned');
  });

  it('refuses an unknown zone and overlapping ranges next to their fields, and saves nothing', async () => {
    const { page } = ada;
    await page.getByRole('link', { name: 'Business hours', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit business hours' }).waitFor();
    const before = (await storedSchedule()).week;
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    // Monday's first range is the default one; a second is added.
    await page.getByRole('button', { name: 'Add hours on Monday' }).click();
    await page.getByLabel('Monday hours 1 open at').fill('09:00');
    await page.getByLabel('Monday hours 1 close at').fill('12:00');
    await page.getByLabel('Monday hours 2 open at').fill('11:00');
    await page.getByLabel('Monday hours 2 close at').fill('9pm');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByText('Mars/Olympus is not a time zone; choose one like Europe/London.')
      .waitFor();
    await page.getByText('“9pm” is not a time; use 24-hour HH:MM').waitFor();
    // The first field in error takes focus.
    expect(await page.getByLabel('Time zone').evaluate((el) => el === document.activeElement)).toBe(
      true,
    );
    await page.getByLabel('Monday hours 2 close at').fill('13:00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Monday 09:00–12:00 and 11:00–13:00 overlap.').waitFor();
    expect(await page.getByLabel('Monday hours 2 open at').getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect((await storedSchedule()).week).toEqual(before);
  });

  it('saves two ranges on today’s weekday in UTC; the group’s page says open now and until when', async () => {
    const { page } = ada;
    // Start again from the stored hours (leaving asks first: there are unsaved changes).
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('alertdialog', { name: 'Leave without saving?' }).waitFor();
    await page.getByRole('button', { name: 'Leave' }).click();
    await page.getByTestId('group-detail').waitFor();
    await page.getByRole('link', { name: 'Business hours', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit business hours' }).waitFor();
    const today = wallClock(Date.now(), 'UTC').weekday;
    const name = weekdayName(today);
    await page.getByLabel('Time zone').fill('UTC');
    // A weekday already has its default range; add up to two.
    const existing = await page.getByLabel(`${name} hours 1 open at`).count();
    for (let i = existing; i < 2; i++)
      await page.getByRole('button', { name: `Add hours on ${name}` }).click();
    await page.getByLabel(`${name} hours 1 open at`).fill('00:00');
    await page.getByLabel(`${name} hours 1 close at`).fill('12:00');
    await page.getByLabel(`${name} hours 2 open at`).fill('12:00');
    await page.getByLabel(`${name} hours 2 close at`).fill('24:00');
    await expect
      .poll(() => page.getByTestId('schedule-preview').textContent())
      .toContain('With these hours: Open now, until');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The business hours were saved.').waitFor();
    await page.getByTestId('group-detail').waitFor();

    const stored = await storedSchedule();
    expect(stored).toMatchObject({
      timeZone: 'UTC',
      week: {
        [today]: [
          { start: '00:00', end: '12:00' },
          { start: '12:00', end: '24:00' },
        ],
      },
    });
    // The other days keep a new group's hours: Monday to Friday 09:00–17:00.
    for (const day of WEEKDAYS.filter((d) => d !== today)) {
      expect((stored.week as Record<string, unknown>)[day]).toEqual(
        ['sat', 'sun'].includes(day) ? [] : [{ start: '09:00', end: '17:00' }],
      );
    }
    const schedule = scheduleFromData(stored);
    // The page gives the pure function's answer (re-read while the page re-renders on its clock).
    await expect
      .poll(async () => {
        const now = Date.now();
        const expected = describeOpenNow(openNow(schedule, null, now), now, 'UTC');
        return (await page.getByTestId('group-open-now').textContent()) === expected;
      })
      .toBe(true);
    expect(await page.getByTestId('group-open-now').textContent()).toMatch(
      /^Open now, until \w{3} 00:00$/,
    );
    const hours = await page.getByTestId('group-hours').textContent();
    expect(hours).toContain(
      `${today.charAt(0).toUpperCase()}${today.slice(1)} 00:00–12:00, 12:00–24:00`,
    );
    expect(hours).toMatch(/\(UTC\)$/);
  });

  it('a second admin’s earlier save produces the conflict choice; keeping theirs shows them', async () => {
    const { page } = ada;
    await page.getByRole('link', { name: 'Business hours', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit business hours' }).waitFor();
    await page.getByLabel('Time zone').fill('Europe/London');
    // Meanwhile another admin moves the group to New York time.
    const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
    const doc = await sdk.document({ id: `schedule:${groupId}`, mode: 'open_existing' });
    await doc.set({ ...(doc.data as Record<string, unknown>), timeZone: 'America/New_York' });
    await page.getByTestId('schedule-conflict').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Another admin saved these business hours first.').waitFor();
    expect(await page.getByLabel('Time zone').inputValue()).toBe('Europe/London');
    expect(await page.getByTestId('schedule-conflict').textContent()).toContain('America/New_York');
    await page.getByRole('button', { name: 'Use their version' }).click();
    await expect.poll(() => page.getByLabel('Time zone').inputValue()).toBe('America/New_York');
    expect((await storedSchedule()).timeZone).toBe('America/New_York');
  });

  it('an agent is turned away from the screen and refused by the service', async () => {
    const tomPage = await signedInPage(
      browser,
      server.url,
      'Tom Agent',
      'tom@example.com',
      `/admin/schedule/${groupId}/edit`,
    );
    await tomPage.page.getByText('Only admins can open the admin area.').waitFor();
    await tomPage.page.waitForURL((url) => !url.pathname.startsWith('/admin'));
    expect(await tomPage.page.getByLabel('Time zone').count()).toBe(0);
    await tomPage.context.close();
    const tom = await sdkClientFor(server.url, 'Tom Agent', 'tom@example.com');
    const doc = await tom.document({ id: `schedule:${groupId}`, mode: 'open_existing' });
    await expect(doc.set({ timeZone: 'UTC', week: {} })).rejects.toMatchObject({
      status: 403,
      code: 54007,
    });
  });
});
