/**
 * Day one for a new team, in Chromium against the real server: Ada (admin, her browser in a zone
 * where it is a weekday morning now) creates a ring group on its form, which shows her zone and
 * Mon–Fri 09:00–17:00; Cat calls it at once: in order with 5 s turns and a 5 s no-answer time,
 * Ann rings, then Bob, the last, who answers, and his top bar says On a call. Then Ann's Away and
 * Bob's do not disturb each keep them from ringing for a group, and /users shows both.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { saveGroup, type AdminApi, type GroupSpec } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { addSessionCookie, apiSignIn } from '../model/support/app';
import { adminApiFor, type Person } from './support/live';
import { phonePerson } from './support/page-audio';
import { card, hangUp } from './support/cards';

let server: RunningServer;
let browser: Browser;
let admin: AdminApi;
/** Stores a group as the group form does, as Ada (the admin). */
const makeGroup = (g: GroupSpec) => saveGroup(admin, g);
let ada: Person;
let ann: Person;
let bob: Person;
let cat: Person;

/** A fixed-offset zone where it is now a weekday between 09:00 and 15:00, if there is one. */
function morningZone(): string | null {
  for (let h = -12; h <= 14; h++) {
    const zone = h === 0 ? 'UTC' : `Etc/GMT${h > 0 ? '-' : '+'}${Math.abs(h)}`;
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      hour: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(new Date());
    const day = parts.find((p) => p.type === 'weekday')!.value;
    const hour = Number(parts.find((p) => p.type === 'hour')!.value);
    if (!['Sat', 'Sun'].includes(day) && hour >= 9 && hour <= 15) return zone;
  }
  return null;
}
const zone = morningZone();

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  // Ada signs in first (the admin), her browser in the morning zone.
  const { cookie } = await apiSignIn(server.url, 'Ada', 'ada@example.com');
  const context = await browser.newContext(zone ? { timezoneId: zone } : {});
  await addSessionCookie(context, server.url, cookie);
  const page = await context.newPage();
  ada = { context, page, errors: [], failed: [] };
  admin = await adminApiFor(server.url, 'Ada', 'ada@example.com');
  ann = await phonePerson(browser, server.url, 'Ann', '/contacts');
  bob = await phonePerson(browser, server.url, 'Bob', '/contacts');
  cat = await phonePerson(browser, server.url, 'Cat', '/contacts');
}, 90_000);

afterAll(async () => {
  await admin?.sync.shutdown();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

async function catDials(number: string): Promise<void> {
  for (const p of [ann, bob, cat]) {
    const dismiss = p.page.getByRole('button', { name: 'Dismiss' });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
  }
  await cat.page.getByTestId('dial-input').fill(number);
  await cat.page.getByRole('button', { name: 'Call', exact: true }).click();
}

describe('day one for a new team', () => {
  it.skipIf(zone === null)(
    'a group made on its form is open in the admin’s zone, and in order reaches its last member',
    async () => {
      const { page } = ada;
      await page.goto(`${server.url}/admin/group/create`);
      await page.getByRole('heading', { name: 'New ring group' }).waitFor();
      expect(await page.getByLabel('Time zone').inputValue()).toBe(zone);
      expect(await page.getByTestId('new-group-hours').textContent()).toContain(
        `Open Mon–Fri 09:00–17:00, in ${zone}.`,
      );
      await page.getByLabel('Name').fill('Support');
      await page.getByLabel('Number or extension').fill('600');
      for (const m of ['Ann', 'Bob'])
        await page.getByLabel('Add a member').selectOption({ label: m });
      await page.getByLabel('In order').check();
      await page.getByLabel('Ring each member for (seconds)').fill('5');
      await page.getByLabel('No answer after (seconds)').fill('5');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByTestId('group-detail').waitFor();
      await page.getByTestId('group-open-now').and(page.locator('[data-open="true"]')).waitFor();

      await catDials('600');
      await card(ann, 'incoming').waitFor({ timeout: 15_000 });
      expect(await card(bob, 'incoming').count()).toBe(0);
      // Past the 5 s no-answer time, the last member still gets his turn.
      await card(bob, 'incoming')
        .getByRole('button', { name: 'Accept' })
        .click({ timeout: 15_000 });
      await card(cat, 'open').waitFor();
      await bob.page.getByTestId('presence-state').filter({ hasText: 'On a call' }).waitFor();
      await hangUp(cat);
    },
  );

  it('away and do not disturb each keep a member from ringing, and show on /users', async () => {
    await makeGroup({
      id: 'grp-desk',
      name: 'Desk',
      number: '601',
      members: ['ann@example.com', 'bob@example.com'],
    });
    await ada.page.goto(`${server.url}/users`);
    const presence = (identity: string, state: string) =>
      ada.page
        .locator(`[data-testid="user-row"][data-identity="${identity}"]`)
        .locator(`[data-testid="user-presence"][data-state="${state}"]`);

    // /users is open, showing Ann available, before she changes anything (the page's own start
    // is not counted in the time her change takes to reach it).
    await presence('ann@example.com', 'available').waitFor({ timeout: 20_000 });
    // Ann is away: only Bob rings.
    await ann.page.getByLabel('Your status').selectOption('away');
    await presence('ann@example.com', 'away').waitFor({ timeout: 10_000 });
    await catDials('601');
    await card(bob, 'incoming').waitFor({ timeout: 15_000 });
    await ann.page.waitForTimeout(1500);
    expect(await card(ann, 'incoming').count()).toBe(0);
    await hangUp(cat);
    await ann.page.getByLabel('Your status').selectOption('available');
    await presence('ann@example.com', 'available').waitFor({ timeout: 10_000 });

    // Bob is on do not disturb: only Ann rings; /users shows it, with no Call button.
    await bob.page.getByTestId('dnd-toggle').check();
    await presence('bob@example.com', 'doNotDisturb').waitFor({ timeout: 10_000 });
    const bobRow = ada.page.locator('[data-testid="user-row"][data-identity="bob@example.com"]');
    expect(await bobRow.getByTestId('user-presence').textContent()).toBe('Do not disturb');
    expect(await bobRow.getByRole('button', { name: 'Call Bob' }).count()).toBe(0);
    await bob.page.getByTestId('presence-state').filter({ hasText: 'Do not disturb' }).waitFor();
    await catDials('601');
    await card(ann, 'incoming').waitFor({ timeout: 15_000 });
    await bob.page.waitForTimeout(1500);
    expect(await card(bob, 'incoming').count()).toBe(0);
    await hangUp(cat);
  });
});
