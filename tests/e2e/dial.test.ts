/**
 * The dial box and phone numbers as a new team meets them, in Chromium against the real server:
 * the team's country guessed at the admin's first sign-in and changed on /admin; "Ben" calls Ben
 * Agent; a UK national number saved on a contact, shown formatted, called in E.164; a contact row
 * whose buttons stay on a 390 px screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { dismissAll, numberCallEnd } from './support/cards';
import { sdkClientFor, signedInPage, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let ada: Person;
let ben: Person;

const registered = (page: Page) =>
  page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  // The first to sign in is the admin; headless Chromium's language is en-US.
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin');
  ben = await signedInPage(browser, server.url, 'Ben Agent', 'ben@example.com', '/contacts');
  for (const p of [ada, ben]) {
    await p.context.grantPermissions(['microphone']);
    await registered(p.page);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('the team country', () => {
  it("is guessed from the admin's browser at first sign-in, and the admin changes it on /admin", async () => {
    const select = ada.page.getByLabel("Team's default country");
    await expect.poll(() => select.inputValue()).toBe('US');
    await select.selectOption('GB');
    await ada.page.getByText('Numbers are now read as United Kingdom numbers.').waitFor();
    // Stored for the team: a colleague's page reads it too.
    const sync = await sdkClientFor(server.url, 'Ben Agent', 'ben@example.com');
    try {
      const doc = await sync.document({ id: 'team-settings', mode: 'open_existing' });
      expect(doc.data).toEqual({ defaultCountry: 'GB' });
    } finally {
      await sync.shutdown();
    }
  });
});

describe('a UK national number on a contact', () => {
  it('is accepted, stored E.164, shown formatted, and called as +442079460958', async () => {
    await ada.page.goto(`${server.url}/contacts`);
    await registered(ada.page);
    await ada.page.getByRole('button', { name: 'Add contact' }).click();
    const dialog = ada.page.getByRole('dialog', { name: 'New contact' });
    await dialog.getByLabel('Name').fill('Acme Ltd');
    await dialog.getByLabel('Number').fill('020 7946');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // A number that does not read is refused with a sentence, and nothing is saved.
    await dialog.getByText(/^020 7946 is /).waitFor();
    expect(await ada.page.getByTestId('contact-count').textContent()).toBe('0 contacts');
    await dialog.getByLabel('Number').fill('020 7946 0958');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = ada.page.getByTestId('contact-row').filter({ hasText: 'Acme Ltd' });
    const call = row.getByRole('button', { name: 'Call Acme Ltd, Mobile 020 7946 0958' });
    await call.waitFor();
    expect(await call.getAttribute('data-number')).toBe('+442079460958');
    // Ben's page shows it the same way.
    await ben.page
      .getByTestId('contact-row')
      .getByRole('button', { name: 'Call Acme Ltd, Mobile 020 7946 0958' })
      .waitFor();

    await call.click();
    await ada.page
      .getByTestId('call-ended')
      .filter({ hasText: numberCallEnd('+442079460958') })
      .waitFor();
    expect(await ada.page.getByTestId('call-card').textContent()).toContain('Acme Ltd');
    // The ended card does not block the next call.
    expect(await ada.page.getByRole('button', { name: 'Call', exact: true }).isDisabled()).toBe(
      false,
    );
    await dismissAll(ada);
  });

  it('keeps every button of the row on a 390 px screen', async () => {
    await ada.page.setViewportSize({ width: 390, height: 844 });
    try {
      const row = ada.page.getByTestId('contact-row').filter({ hasText: 'Acme Ltd' });
      await row.scrollIntoViewIfNeeded();
      const rowBox = (await row.boundingBox())!;
      const buttons = await row.getByRole('button').all();
      expect(buttons.length).toBe(3);
      for (const button of buttons) {
        const box = (await button.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        expect(box.x).toBeGreaterThanOrEqual(rowBox.x);
        expect(box.x + box.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
        expect(box.y).toBeGreaterThanOrEqual(rowBox.y);
        expect(box.y + box.height).toBeLessThanOrEqual(rowBox.y + rowBox.height + 0.5);
      }
    } finally {
      await ada.page.setViewportSize({ width: 1280, height: 720 });
    }
  });
});

describe('the dial box', () => {
  it('offers Ben Agent, with Away beside him while he is away', async () => {
    await dismissAll(ada);
    const status = ben.page.getByTestId('presence-selector').locator('select');
    await status.selectOption('away');
    const input = ada.page.getByRole('combobox', { name: 'Call' });
    await input.fill('Ben');
    const options = ada.page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option');
    const note = options.filter({ hasText: 'Ben Agent' }).getByTestId('dial-note');
    await expect.poll(() => note.textContent()).toBe('Away');
    await status.selectOption('available');
    await expect.poll(() => note.count()).toBe(0);
    expect(await options.allTextContents()).toEqual(['Ben Agentext. 101']);
    await input.fill('');
  });

  it('"Ben" and Enter calls Ben Agent, the one match', async () => {
    const input = ada.page.getByRole('combobox', { name: 'Call' });
    await input.fill('Ben');
    await ada.page.getByRole('option', { name: /Ben Agent/ }).waitFor();
    await input.press('Enter');
    const card = ben.page.locator('[data-testid="call-card"][data-status="incoming"]');
    await card.getByTestId('call-name').filter({ hasText: 'Ada Admin' }).waitFor();
    expect(await ada.page.getByTestId('call-card').textContent()).toContain('Ben Agent');
    await card.getByRole('button', { name: 'Reject' }).click();
    await ada.page.getByTestId('call-ended').waitFor();
    await dismissAll(ada);
    await dismissAll(ben);
  });

  it('offers a contact by the start of its number as dialled at home, and picks it by arrow and Enter', async () => {
    const input = ada.page.getByRole('combobox', { name: 'Call' });
    await input.fill('020 79');
    await ada.page.getByRole('option', { name: /Acme Ltd.*020 7946 0958/ }).waitFor();
    await input.press('ArrowDown');
    await input.press('Enter');
    await ada.page
      .getByTestId('call-ended')
      .filter({ hasText: numberCallEnd('+442079460958') })
      .waitFor();
    await dismissAll(ada);
  });

  it('says what to do when a name matches nobody, and places no call', async () => {
    const input = ada.page.getByRole('combobox', { name: 'Call' });
    await input.fill('Zed');
    await input.press('Enter');
    await ada.page
      .getByTestId('dial-problem')
      .filter({ hasText: 'Nobody on the team or in the contacts is called "Zed".' })
      .waitFor();
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(await ada.page.getByTestId('call-card').count()).toBe(0);
  });
});
