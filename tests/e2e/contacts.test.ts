/**
 * /contacts in Chromium against the real server: two people in two browser contexts see each
 * other's changes live; the form validates inline and never loses what was typed; 10,000 contacts
 * scroll and search.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from '../../server/twins/sync/framing';
import { RawTwilsock, shutdownClients, token } from '../integration/sync/support';
import { apiSignIn } from '../model/support/app';
import { launchChromium } from '../support/chromium';
import { e2eBackend, startServer, type RunningServer } from '../support/server';
import { inBatches, sdkClientFor, signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;
let tom: Person;

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({
    env: { SWITCHBOARD_DIST: dist.dir, SWITCHBOARD_SYNC_TEST_HOOKS: '1' },
  });
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/contacts');
  tom = await signedInPage(browser, server.url, 'Tom Agent', 'tom@example.com', '/contacts');
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

const row = (page: Page, name: string) => page.getByTestId('contact-row').filter({ hasText: name });

async function openAddDialog(page: Page) {
  await page.getByRole('button', { name: 'Add contact' }).click();
  const dialog = page.getByRole('dialog', { name: 'New contact' });
  await dialog.waitFor();
  return dialog;
}

describe('contacts between two people', () => {
  it(`runs on the ${e2eBackend()} backend (SWITCHBOARD_E2E_BACKEND)`, async () => {
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as { backend: string };
    // /api/config names the backend as it was set (the twins are `twilio-twins`, not `twilio`).
    expect(config.backend).toBe(e2eBackend());
  });

  it('start empty for both, with the empty state', async () => {
    await ada.page.getByTestId('empty-state').waitFor();
    await tom.page.getByTestId('empty-state').waitFor();
    expect(await ada.page.getByTestId('contact-count').textContent()).toBe('0 contacts');
  });

  it('a contact one adds appears for the other without reload; edits and deletes follow', async () => {
    const dialog = await openAddDialog(ada.page);
    // The dialog opens with the name field focused.
    expect(await ada.page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe(
      'name',
    );
    await dialog.getByLabel('Name').fill('Grace Hopper');
    await dialog.getByLabel('Company').fill('Navy');
    await dialog.getByLabel('Number').fill('+1 415 555 0100');
    await dialog.getByLabel('Number').press('Enter');
    await dialog.waitFor({ state: 'detached' });

    await row(tom.page, 'Grace Hopper').waitFor();
    // Shown as dialled in the team's country (guessed from Ada's en-US browser at her first sign-in).
    expect(await row(tom.page, 'Grace Hopper').textContent()).toContain('(415) 555-0100');

    await tom.page.getByRole('button', { name: 'Edit Grace Hopper' }).click();
    const edit = tom.page.getByRole('dialog', { name: 'Edit contact' });
    expect(await edit.getByLabel('Company').inputValue()).toBe('Navy');
    await edit.getByLabel('Company').fill('US Navy');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await row(ada.page, 'US Navy').waitFor();

    await ada.page.getByRole('button', { name: 'Delete Grace Hopper' }).click();
    const confirm = ada.page.getByRole('alertdialog', { name: 'Delete Grace Hopper?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row(tom.page, 'Grace Hopper').waitFor({ state: 'detached' });
    await tom.page.getByTestId('empty-state').waitFor();
    expect([...ada.errors, ...tom.errors]).toEqual([]);
  });

  it('Escape closes the dialog and a cancelled delete deletes nothing', async () => {
    const dialog = await openAddDialog(ada.page);
    await ada.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Focus returns to the button that opened it.
    expect(await ada.page.evaluate(() => document.activeElement?.textContent)).toBe('Add contact');
  });

  it('shows validation errors beside their fields, focuses the first and saves nothing', async () => {
    const dialog = await openAddDialog(ada.page);
    await dialog.getByLabel('Number').fill('12345678');
    await dialog.getByLabel('Email (optional)').fill('not-an-email');
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect(await dialog.getByText('Enter a name.').isVisible()).toBe(true);
    expect(await dialog.getByText(/^12345678 is too short for a phone number/).isVisible()).toBe(
      true,
    );
    expect(await dialog.getByText(/Enter an email address like name@example.com/).isVisible()).toBe(
      true,
    );
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(await ada.page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe(
      'name',
    );

    await dialog.getByLabel('Name').fill('x'.repeat(81));
    await dialog.getByLabel('Number').fill('204');
    await dialog.getByLabel('Email (optional)').fill('');
    await dialog.getByLabel('Note (optional)').fill('n'.repeat(501));
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect(await dialog.getByText('Use at most 80 characters (now 81).').isVisible()).toBe(true);
    expect(await dialog.getByText('Use at most 500 characters (now 501).').isVisible()).toBe(true);
    expect(await dialog.getByText(/too short/).count()).toBe(0);
    await ada.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await ada.page.getByTestId('contact-count').textContent()).toBe('0 contacts');
  });

  it('keeps everything typed when the service refuses the save, and saves on the next try', async () => {
    // Between the page and the server, refuse the item write that carries this contact.
    let refuse = true;
    let refused = 0;
    await ada.context.routeWebSocket(/\/v3\/wsconnect/, (ws) => {
      const upstream = ws.connectToServer();
      ws.onMessage((message) => {
        const bytes = typeof message === 'string' ? Buffer.from(message) : message;
        const decoded = decodeFrame(bytes);
        const http = decoded.ok
          ? (decoded.frame.header.http_request as { method?: string } | undefined)
          : undefined;
        if (
          refuse &&
          decoded.ok &&
          (http?.method === 'PUT' || http?.method === 'POST') &&
          decoded.frame.payload.toString().includes('Refused Person')
        ) {
          refused += 1;
          ws.send(
            encodeFrame(
              {
                method: 'reply',
                id: decoded.frame.header.id,
                status: { code: 200, status: 'OK' },
                http_status: { code: 403, status: 'Forbidden' },
                http_headers: { 'content-type': 'application/json' },
                payload_type: 'application/json',
              },
              { code: 20403, message: 'Writes to contacts are not allowed for you', status: 403 },
            ),
          );
          return;
        }
        upstream.send(message);
      });
    });
    // The route applies to sockets opened from now on.
    await ada.page.reload();
    await ada.page.getByTestId('empty-state').waitFor();

    const dialog = await openAddDialog(ada.page);
    await dialog.getByLabel('Name').fill('Refused Person');
    await dialog.getByLabel('Company').fill('Acme');
    await dialog.getByLabel('Number').fill('+44 20 7946 0958');
    await dialog.getByLabel('Email (optional)').fill('refused@example.com');
    await dialog.getByLabel('Note (optional)').fill('Call after 3pm');
    await dialog.getByRole('button', { name: 'Save' }).click();

    const error = dialog.getByTestId('save-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('Writes to contacts are not allowed for you');
    expect(refused).toBeGreaterThan(0);
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Refused Person');
    expect(await dialog.getByLabel('Company').inputValue()).toBe('Acme');
    expect(await dialog.getByLabel('Number').inputValue()).toBe('+44 20 7946 0958');
    expect(await dialog.getByLabel('Email (optional)').inputValue()).toBe('refused@example.com');
    expect(await dialog.getByLabel('Note (optional)').inputValue()).toBe('Call after 3pm');
    expect(await row(tom.page, 'Refused Person').count()).toBe(0);

    refuse = false;
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(tom.page, 'Refused Person').waitFor();
  });

  it('tells the editor when a colleague deleted the contact, and saving restores it', async () => {
    await tom.page.getByRole('button', { name: 'Edit Refused Person' }).click();
    const edit = tom.page.getByRole('dialog', { name: 'Edit contact' });
    await edit.getByLabel('Company').fill('Acme Ltd');

    await ada.page.getByRole('button', { name: 'Delete Refused Person' }).click();
    await ada.page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();

    await edit.getByText('A colleague deleted this contact.').waitFor();
    expect(await edit.getByLabel('Company').inputValue()).toBe('Acme Ltd');
    await edit.getByRole('button', { name: 'Restore contact' }).click();
    await edit.waitFor({ state: 'detached' });
    await row(ada.page, 'Acme Ltd').waitFor();
  });
});

describe('a dropped connection', () => {
  it('shows "Reconnecting…" until the connection is back, then updates flow again', async () => {
    // The service's test hook closes every socket of one identity, as a network drop would.
    const { cookie, user } = await apiSignIn(server.url, 'Ada Admin', 'ada@example.com');
    const raw = await RawTwilsock.open(server.url);
    await raw.init((await token(server.url, `sb_session=${cookie}`)).token);
    const banner = ada.page.getByTestId('sync-banner');
    expect(await banner.count()).toBe(0);
    await raw.request('POST', '/test/drop', { identity: user.identity });
    raw.close();
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Reconnecting…');
    await banner.waitFor({ state: 'detached', timeout: 60_000 });

    const dialog = await openAddDialog(tom.page);
    await dialog.getByLabel('Name').fill('After The Drop');
    await dialog.getByLabel('Number').fill('205');
    await dialog.getByLabel('Number').press('Enter');
    await row(ada.page, 'After The Drop').waitFor();
  });
});

describe('10,000 contacts', () => {
  const TOTAL = 10_000;
  const name = (i: number) => `Person ${String(i).padStart(5, '0')}`;

  it('load, scroll with a small DOM, and narrow as you type', { timeout: 300_000 }, async () => {
    const writer = await sdkClientFor(server.url, 'Seed Writer', 'seed@example.com');
    const map = await writer.map({ id: 'contacts', mode: 'open_or_create' });
    const keys = Array.from({ length: TOTAL }, (_, i) => i);
    await inBatches(keys, 500, (i) =>
      map.set(`k${String(i).padStart(5, '0')}`, {
        name: name(i),
        company: i % 2 ? 'Globex' : 'Initech',
        phones: [{ label: 'Work', number: `+1555${String(i).padStart(7, '0')}` }],
        email: '',
        note: '',
      }),
    );

    const page = (
      await signedInPage(browser, server.url, 'Bea Big', 'bea@example.com', '/contacts')
    ).page;
    const count = page.getByTestId('contact-count');
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="contact-count"]')?.textContent === '10,002 contacts',
      undefined,
      { timeout: 120_000 },
    );
    const rows = await page.getByTestId('contact-row').count();
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(60);

    await page.getByTestId('contact-scroller').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await row(page, name(TOTAL - 1)).waitFor();
    expect(await page.getByTestId('contact-row').count()).toBeLessThan(60);

    await page.getByLabel('Search contacts').pressSequentially('person 0424');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="contact-count"]')?.textContent?.startsWith('11 of'),
    );
    // Person 04240 to 04249, and Person 00424.
    expect(await count.textContent()).toBe('11 of 10,002 contacts match');
    await page.getByLabel('Search contacts').fill('555 000 4242');
    await row(page, name(4242)).waitFor();
    expect(await count.textContent()).toBe('1 of 10,002 contacts match');
    await page.getByLabel('Search contacts').fill('zzz nobody');
    await page.getByTestId('no-results').waitFor();
  });
});
