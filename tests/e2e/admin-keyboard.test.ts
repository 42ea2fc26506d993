/**
 * The admin flows with the keyboard alone, in Chromium against the real server: every control is
 * reached with Tab (never clicked or focused by the test) and worked with the keys a person would
 * press (typing, Space, Enter, a letter in a select). Create a ring group with two members, give it
 * forwarding rules and reorder and delete them, write an announcement and choose it for the group,
 * set its business hours (two ranges on Monday, copied to the weekdays) and add a holiday picked in
 * the month view with the arrow keys, hear an announcement's preview, and upload an audio file.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { apiSignIn } from '../model/support/app';
import { wavFile } from '../support/audio-fixtures';
import { signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  // The first person to sign in is the team's admin.
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin');
  await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  await apiSignIn(server.url, 'Zoe Agent', 'zoe@example.com');
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

const isFocused = (target: Locator): Promise<boolean> =>
  target.evaluate((el) => el === document.activeElement);

/**
 * Presses Tab (or Shift+Tab) until `target` has the focus, as a keyboard user moves through a page;
 * fails when it is not reached within `max` presses (not in the tab order, or behind a trap).
 */
async function tabTo(page: Page, target: Locator, { back = false, max = 80 } = {}): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  const name = await target.evaluate((el) => el.outerHTML.slice(0, 120));
  throw new Error(`Not reached with the keyboard in ${max} presses: ${name}`);
}

/**
 * In a group of radio buttons only the chosen one is in the tab order: Tab to it, then move with the
 * arrow keys until `label` is chosen.
 */
async function chooseRadio(page: Page, group: Locator, label: string): Promise<void> {
  const target = group.getByLabel(label);
  const chosen = group.locator('input[type=radio]:checked');
  await tabTo(page, (await chosen.count()) ? chosen : group.locator('input[type=radio]').first());
  for (let i = 0; i < 6 && !(await target.isChecked()); i++) await page.keyboard.press('ArrowDown');
  expect(await target.isChecked()).toBe(true);
}

/** Tab to a field and type into it (replacing what was there). */
async function typeInto(page: Page, target: Locator, text: string): Promise<void> {
  await tabTo(page, target);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.type(text);
}

/** Tab to a link or button and press Enter. */
async function activate(page: Page, target: Locator, key = 'Enter'): Promise<void> {
  await tabTo(page, target);
  await page.keyboard.press(key);
}

describe('admin flows with the keyboard alone', () => {
  let groupUrl = '';

  it('creates a ring group with two members', async () => {
    const { page } = ada;
    await activate(
      page,
      page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Ring groups' }),
    );
    await activate(page, page.getByRole('link', { name: 'New ring group' }));
    await page.getByRole('heading', { name: 'New ring group' }).waitFor();
    await typeInto(page, page.getByLabel('Name'), 'Support');
    await typeInto(page, page.getByLabel('Number or extension'), '300');
    // A letter picks the first matching person in a closed select, as in any form.
    const add = page.getByLabel('Add a member');
    await tabTo(page, add);
    await page.keyboard.type('T');
    const drafted = page.getByRole('button', { name: /^Remove / });
    await expect.poll(() => drafted.count()).toBe(1);
    // A select's type-ahead joins letters typed within a second: a person pauses between picks.
    await page.waitForTimeout(1100);
    await tabTo(page, add);
    await page.keyboard.type('Z');
    await expect.poll(() => drafted.count()).toBe(2);
    await activate(page, page.getByRole('button', { name: 'Create group' }));
    await page.getByTestId('group-detail').waitFor();
    groupUrl = new URL(page.url()).pathname;
    expect(await page.getByTestId('group-member').allTextContents()).toEqual([
      expect.stringContaining('Tom Agent'),
      expect.stringContaining('Zoe Agent'),
    ]);
  });

  it('adds two forwarding rules, moves one up and deletes one', async () => {
    const { page } = ada;
    for (const [when, number] of [
      ['Always', '+442079460001'],
      ['When everyone is busy', '+442079460002'],
    ] as const) {
      await activate(page, page.getByRole('link', { name: 'New forwarding rule' }));
      await page.getByRole('heading', { name: /forwarding rule/i }).waitFor();
      const whenSelect = page.getByLabel('When');
      await tabTo(page, whenSelect);
      await page.keyboard.type(when);
      await expect
        .poll(() => whenSelect.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.text))
        .toBe(when);
      await chooseRadio(page, page.getByRole('group', { name: 'Forward to' }), 'A phone number');
      await typeInto(page, page.getByRole('textbox', { name: 'Phone number' }), number);
      await activate(page, page.getByRole('button', { name: 'Add rule' }));
      await page.getByTestId('group-detail').waitFor();
    }
    const rules = page.getByTestId('forwarding-rule');
    await expect.poll(() => rules.count()).toBe(2);
    expect(await rules.nth(1).textContent()).toContain('+442079460002');
    await activate(page, page.getByRole('button', { name: /^Move up: .*460002/ }));
    await expect.poll(async () => (await rules.nth(0).textContent()) ?? '').toContain('460002');
    await activate(page, page.getByRole('button', { name: /^Delete: .*460001/ }));
    const confirm = page.getByRole('dialog');
    if (await confirm.count())
      await activate(page, confirm.getByRole('button', { name: /delete/i }));
    await expect.poll(() => rules.count()).toBe(1);
    expect(await rules.nth(0).textContent()).toContain('460002');
  });

  it('writes an announcement and chooses it for the group', async () => {
    const { page } = ada;
    await activate(
      page,
      page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Announcements' }),
    );
    await activate(page, page.getByRole('link', { name: 'New announcement' }));
    await page.getByRole('heading', { name: 'New announcement' }).waitFor();
    await typeInto(page, page.getByLabel('Name'), 'Closed message');
    await typeInto(page, page.getByLabel('Text', { exact: true }), 'We are closed.');
    // Hear it as callers will: the server's rendering, played in the page.
    await expect.poll(() => page.getByLabel('Language').isEnabled()).toBe(true);
    await activate(page, page.getByRole('button', { name: 'Preview' }));
    await page.getByTestId('guidance-preview').waitFor();
    await activate(page, page.getByRole('button', { name: 'Create announcement' }));
    await page.getByTestId('guidance-row').filter({ hasText: 'Closed message' }).waitFor();

    await activate(
      page,
      page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Ring groups' }),
    );
    await activate(page, page.getByRole('link', { name: 'Support' }));
    await activate(page, page.getByRole('link', { name: 'Choose announcements' }));
    await page.getByRole('heading', { name: 'Announcements of Support' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`${groupUrl}/guidance`);
    const closed = page.getByLabel('When closed');
    await tabTo(page, closed);
    await page.keyboard.type('Closed');
    await activate(page, page.getByRole('button', { name: 'Save' }));
    await expect
      .poll(() => page.getByTestId('group-announcement-closed').textContent())
      .toContain('Closed message');
  });
  it('sets business hours: two ranges on Monday, copied to the other weekdays', async () => {
    const { page } = ada;
    // The previous step ended on the group's page.
    await page.getByTestId('group-detail').waitFor();
    await activate(page, page.getByRole('link', { name: 'Business hours', exact: true }));
    await page.getByRole('heading', { name: 'Edit business hours' }).waitFor();
    await typeInto(page, page.getByLabel('Time zone'), 'Europe/London');
    // A new group opens Mon–Fri 09:00–17:00: Monday's first range is there, one more is added.
    await activate(page, page.getByRole('button', { name: 'Add hours on Monday' }));
    await typeInto(page, page.getByLabel('Monday hours 1 close at'), '12:30');
    await typeInto(page, page.getByLabel('Monday hours 2 open at'), '13:30');
    await typeInto(page, page.getByLabel('Monday hours 2 close at'), '17:00');
    await activate(
      page,
      page.getByRole('button', { name: 'Copy Monday’s hours to Tuesday–Friday' }),
    );
    await activate(page, page.getByRole('button', { name: 'Save' }));
    await page.getByTestId('group-detail').waitFor();
    expect(await page.getByTestId('group-hours').textContent()).toBe(
      'Mon–Fri 09:00–12:30, 13:30–17:00 (Europe/London)',
    );
  });

  it('adds a holiday picked in the month view with the arrow keys', async () => {
    const { page } = ada;
    await activate(page, page.getByRole('link', { name: 'Holidays', exact: true }));
    await page.getByRole('heading', { name: 'Edit holidays' }).waitFor();
    // The grid is one tab stop (today's day); arrows move, Page Down goes a month on, Enter picks.
    const today = page.locator('td[tabindex="0"]');
    await tabTo(page, today);
    const start = await today.getAttribute('data-date');
    await page.keyboard.press('PageDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Shift+Enter');
    const first = await page.getByLabel('First day').inputValue();
    const last = await page.getByLabel('Last day').inputValue();
    expect(first > start!).toBe(true);
    expect((Date.parse(last) - Date.parse(first)) / 86_400_000).toBe(7);
    await typeInto(page, page.getByLabel('Holiday name'), 'Away day');
    await activate(page, page.getByRole('button', { name: 'Add holiday' }));
    await page.getByTestId('holiday-row').filter({ hasText: 'Away day' }).waitFor();
    await activate(page, page.getByRole('button', { name: 'Save holidays' }));
    await page.getByTestId('group-detail').waitFor();
    await expect
      .poll(() => page.getByTestId('group-next-holiday').textContent())
      .toContain('Away day');
  });
  it('uploads an audio file: the file picker opened from the keyboard, Upload pressed', async () => {
    const { page } = ada;
    await activate(
      page,
      page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Audio' }),
    );
    await activate(page, page.getByRole('link', { name: 'Upload audio' }));
    // Enter on "Choose a file…" opens the system's file picker, where the person picks the file.
    const chooser = page.waitForEvent('filechooser');
    await activate(page, page.getByRole('button', { name: 'Choose a file…' }));
    await (
      await chooser
    ).setFiles({
      name: 'Queue music.wav',
      mimeType: 'audio/wav',
      buffer: wavFile(3),
    });
    await page.getByTestId('picked').waitFor();
    await activate(page, page.getByRole('button', { name: 'Upload', exact: true }));
    await page.getByTestId('audio-row').filter({ hasText: 'Queue music.wav' }).waitFor();
  });
});
