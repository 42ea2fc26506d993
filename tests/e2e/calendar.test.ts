/**
 * Holidays as an admin meets them, in Chromium against the real server: a single day typed in, a
 * range picked in the month view with the keyboard, an end before its start and an overlap refused
 * next to their fields, an .ics import with its preview (one event left out for overlapping; an
 * Outlook all-day event and a title folded inside a character read right), a file that is not
 * iCalendar refused, none of it stored; leaving with unsaved changes asks first; saved, they show
 * on the group's page (next holiday) and after a reload; a second admin's earlier save produces the
 * conflict choice; an agent is turned away from the screen and refused by the service.
 * Dates are in next year, so the test reads the same whenever it runs.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;
let groupId = '';
const Y = new Date().getUTCFullYear() + 1;

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin/group');
  await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  groupId = await createGroupOnScreen(ada.page, server.url, { name: 'Support', number: '300' });
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

async function stored(): Promise<{ label: string; start: string; end: string }[]> {
  const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
  const doc = await sdk.document({ id: `calendar:${groupId}`, mode: 'open_existing' });
  return (doc.data as { holidays: { label: string; start: string; end: string }[] }).holidays;
}

const rows = (page: Page) => page.getByTestId('holiday-row').allTextContents();

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Holidays//EN',
  'BEGIN:VEVENT',
  `DTSTART;VALUE=DATE:${Y}0101`,
  `DTEND;VALUE=DATE:${Y}0102`,
  'SUMMARY:New Year’s Day',
  'END:VEVENT',
  'BEGIN:VEVENT',
  `DTSTART;VALUE=DATE:${Y}0405`,
  `DTEND;VALUE=DATE:${Y}0406`,
  'SUMMARY:Easter Monday',
  'END:VEVENT',
  // Outlook writes all-day events as midnight to midnight.
  'BEGIN:VEVENT',
  `DTSTART;TZID=GMT Standard Time:${Y}1226T000000`,
  `DTEND;TZID=GMT Standard Time:${Y}1227T000000`,
  'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
  'SUMMARY:Boxing Day',
  'END:VEVENT',
  'BEGIN:VEVENT',
  `DTSTART;VALUE=DATE:${Y}1225`,
  `DTEND;VALUE=DATE:${Y}1226`,
  'SUMMARY:Christmas (from the file)',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

/** The file's bytes with the line `SUMMARY:New Year’s Day` folded inside the ’ (three bytes). */
function icsFoldedInsideACharacter(): Buffer {
  const bytes = Buffer.from(ICS);
  const at = bytes.indexOf(Buffer.from('’')) + 1;
  return Buffer.concat([bytes.subarray(0, at), Buffer.from('\r\n '), bytes.subarray(at)]);
}

describe('holidays', () => {
  it('starts empty, on this month', async () => {
    const { page } = ada;
    await page.getByRole('link', { name: 'Holidays', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit holidays' }).waitFor();
    await page.getByText('No holidays yet').waitFor();
    await page.getByTestId('month-view').waitFor();
  });

  it('adds a single day typed in, and refuses an end before its start and an overlap', async () => {
    const { page } = ada;
    await page.getByLabel('Holiday name').fill('Christmas Day');
    await page.getByLabel('First day').fill(`${Y}-12-25`);
    await page.getByRole('button', { name: 'Add holiday' }).click();
    await expect.poll(() => rows(page)).toEqual([expect.stringContaining(`25 Dec ${Y}`)]);
    // The month view went to December and names the day.
    await page.getByRole('gridcell', { name: `25 Dec ${Y}, Christmas Day` }).waitFor();

    await page.getByLabel('Holiday name').fill('Backwards');
    await page.getByLabel('First day').fill(`${Y}-12-10`);
    await page.getByLabel('Last day').fill(`${Y}-12-05`);
    await page.getByRole('button', { name: 'Add holiday' }).click();
    await page.getByText(`The last day (${Y}-12-05) is before the first (${Y}-12-10).`).waitFor();
    await page.getByLabel('First day').fill(`${Y}-12-24`);
    await page.getByLabel('Last day').fill(`${Y}-12-26`);
    await page.getByRole('button', { name: 'Add holiday' }).click();
    await page.getByText(`${Y}-12-25 is already a holiday (Christmas Day).`).waitFor();
    expect(await rows(page)).toHaveLength(1);
    expect(await stored()).toEqual([]);
    await page.getByRole('button', { name: 'Clear' }).click();
  });

  it('picks a range in the month view with the keyboard', async () => {
    const { page } = ada;
    await page.getByRole('gridcell', { name: `28 Dec ${Y}` }).click();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+Enter');
    expect(await page.getByLabel('First day').inputValue()).toBe(`${Y}-12-28`);
    expect(await page.getByLabel('Last day').inputValue()).toBe(`${Y}-12-31`);
    await page.getByLabel('Holiday name').fill('Between the years');
    await page.getByLabel('Holiday name').press('Enter');
    await expect
      .poll(() => rows(page))
      .toEqual([
        expect.stringContaining('Christmas Day'),
        expect.stringContaining(`28 Dec ${Y} to 31 Dec ${Y} (4 days)`),
      ]);
    // Page Up goes back a month, keeping the focus in the grid.
    await page.getByRole('gridcell', { name: `31 Dec ${Y}` }).focus();
    await page.keyboard.press('PageUp');
    await page.getByRole('grid', { name: `November ${Y}` }).waitFor();
    expect(
      await page.evaluate(() => document.activeElement?.getAttribute('data-date') ?? null),
    ).toBe(`${Y}-11-30`);
  });

  it('imports an .ics file after a preview, leaving out what overlaps; refuses a file that is not one', async () => {
    const { page } = ada;
    await page.getByLabel('iCalendar file (.ics)').setInputFiles({
      name: 'holidays.csv',
      mimeType: 'text/calendar',
      buffer: Buffer.from('Name,Date\nChristmas,2026-12-25\n'),
    });
    await page
      .getByText(
        'This file is not an iCalendar (.ics) file: it does not start with BEGIN:VCALENDAR.',
      )
      .waitFor();
    expect(await page.getByTestId('ics-preview').count()).toBe(0);
    expect(await rows(page)).toHaveLength(2);
    await page.getByLabel('iCalendar file (.ics)').setInputFiles({
      name: 'public-holidays.ics',
      mimeType: 'text/calendar',
      buffer: icsFoldedInsideACharacter(),
    });
    const preview = page.getByTestId('ics-preview');
    await preview.waitFor();
    expect(await preview.textContent()).toContain(
      'From public-holidays.ics: 3 to add, 1 left out.',
    );
    expect(await preview.textContent()).toContain(`New Year’s Day: 1 Jan ${Y}`);
    expect(await preview.textContent()).toContain(`Boxing Day: 26 Dec ${Y}`);
    expect(await preview.textContent()).not.toContain(`26 Dec ${Y} to`);
    expect(await preview.textContent()).toContain('Left out Christmas (from the file)');
    expect(await rows(page)).toHaveLength(2);
    await page.getByRole('button', { name: 'Add 3 holidays' }).click();
    await expect.poll(async () => (await rows(page)).length).toBe(5);
    expect(await stored()).toEqual([]);
  });

  it('asks before leaving with unsaved changes; staying keeps them', async () => {
    const { page } = ada;
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Your changes to these holidays are not saved.');
    await page.getByRole('button', { name: 'Stay' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(page.url()).toBe(`${server.url}/admin/calendar/${groupId}/edit`);
    expect(await rows(page)).toHaveLength(5);
  });

  it('saves; the group’s page shows the next holiday, and a reload shows them all', async () => {
    const { page } = ada;
    await page.getByRole('button', { name: 'Save holidays' }).click();
    await page.getByText('The holidays were saved.').waitFor();
    await page.getByTestId('group-detail').waitFor();
    await expect
      .poll(() => page.getByTestId('group-next-holiday').textContent())
      .toBe(`New Year’s Day, 1 Jan ${Y}`);
    expect((await stored()).map((h) => [h.label, h.start, h.end])).toEqual([
      ['New Year’s Day', `${Y}-01-01`, `${Y}-01-01`],
      ['Easter Monday', `${Y}-04-05`, `${Y}-04-05`],
      ['Christmas Day', `${Y}-12-25`, `${Y}-12-25`],
      ['Boxing Day', `${Y}-12-26`, `${Y}-12-26`],
      ['Between the years', `${Y}-12-28`, `${Y}-12-31`],
    ]);
    await page.goto(`${server.url}/admin/calendar/${groupId}/edit`);
    await expect.poll(async () => (await rows(page)).length).toBe(5);
    // The month view opens on this month; Page Down reaches December with the days named.
    await page.getByRole('gridcell', { name: /, today$/ }).focus();
    for (
      let i = 0;
      i < 24 && !(await page.getByRole('grid', { name: `December ${Y}` }).count());
      i++
    )
      await page.keyboard.press('PageDown');
    await page.getByRole('gridcell', { name: `26 Dec ${Y}, Boxing Day` }).waitFor();
    await page.getByRole('gridcell', { name: `30 Dec ${Y}, Between the years` }).waitFor();
  });

  it('a second admin’s earlier save produces the conflict choice; overwrite keeps mine', async () => {
    const { page } = ada;
    await page.getByRole('button', { name: 'Delete Easter Monday' }).click();
    await expect.poll(async () => (await rows(page)).length).toBe(4);
    const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
    const doc = await sdk.document({ id: `calendar:${groupId}`, mode: 'open_existing' });
    const theirs = (doc.data as { holidays: unknown[] }).holidays;
    await doc.set({
      holidays: [
        ...theirs,
        { id: 'hol-theirs', label: 'Founders’ Day', start: `${Y}-06-01`, end: `${Y}-06-01` },
      ],
    });
    await page.getByTestId('calendar-conflict').waitFor();
    expect(await page.getByTestId('calendar-conflict').textContent()).toContain('Founders’ Day');
    await page.getByRole('button', { name: 'Save holidays' }).click();
    await page.getByText('Another admin saved these holidays first.').waitFor();
    expect(await rows(page)).toHaveLength(4);
    await page.getByRole('button', { name: 'Keep mine and overwrite' }).click();
    await page.getByText('The holidays were saved.').waitFor();
    expect((await stored()).map((h) => h.label)).toEqual([
      'New Year’s Day',
      'Christmas Day',
      'Boxing Day',
      'Between the years',
    ]);
  });

  it('an agent is turned away from the screen and cannot write holidays through the SDK', async () => {
    const tomPage = await signedInPage(
      browser,
      server.url,
      'Tom Agent',
      'tom@example.com',
      `/admin/calendar/${groupId}/edit`,
    );
    await tomPage.page.getByText('Only admins can open the admin area.').waitFor();
    await tomPage.page.waitForURL((url) => !url.pathname.startsWith('/admin'));
    expect(await tomPage.page.getByLabel('Holiday name').count()).toBe(0);
    await tomPage.context.close();
    const tom = await sdkClientFor(server.url, 'Tom Agent', 'tom@example.com');
    const doc = await tom.document({ id: `calendar:${groupId}`, mode: 'open_existing' });
    await expect(doc.set({ holidays: [] })).rejects.toMatchObject({ status: 403, code: 54007 });
    expect(await stored()).toHaveLength(4);
  });
});
