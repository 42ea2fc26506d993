/**
 * Announcements as an admin meets them, in Chromium against the real server: write a text
 * announcement (empty fields refused beside them), hear the server's preview (real 8 kHz audio of
 * plausible length), list it with a player, choose it for a ring group's closed slot and see it on
 * the group's page, edit it against a second admin's save (the conflict choice); deleting it is
 * refused while the group plays it, naming the group. The screens pass axe-core. An agent can
 * neither open the screens nor write the map through the SDK, nor use the API; an admin writes it
 * only through the API, as the screens do.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import type { SyncClient } from 'twilio-sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownClients } from '../integration/sync/support';
import { addSessionCookie, apiSignIn } from '../model/support/app';
import { launchChromium } from '../support/chromium';
import { saveGroup, updateAnnouncement, type AdminApi } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { adminApiFor, sdkClientFor, signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;
let adaSdk: SyncClient;
/** Ada as her screens reach the server (the API), for what another admin saves meanwhile. */
let adaApi: AdminApi;

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin/guidance');
  await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  adaApi = await adminApiFor(server.url, 'Ada Admin', 'ada@example.com');
  adaSdk = adaApi.sync;
  await saveGroup(adaApi, { id: 'grp-sales', name: 'Sales', number: '300', members: [] });
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

/** axe-core's violations on the page as it is now (ids and the first target of each). */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated rather than added as a script: the app's Content-Security-Policy forbids inline scripts.
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: unknown,
          ) => Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }>;
        };
      }
    ).axe;
    // The build label in the corner (the app shell's, outside any landmark) is not these screens'.
    const result = await axe.run({ exclude: [['[data-testid="revision"]']] });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes[0]?.target)}`);
  });
}

/** Waits until the audio element has loaded its metadata; its duration in seconds. */
function durationOf(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate(
    (el) =>
      new Promise<number>((resolve, reject) => {
        const audio = el as HTMLAudioElement;
        if (audio.readyState >= 1) resolve(audio.duration);
        audio.addEventListener('loadedmetadata', () => resolve(audio.duration));
        audio.addEventListener('error', () => reject(new Error('the audio did not load')));
        audio.preload = 'metadata';
        audio.load();
      }),
  );
}

describe('announcements', () => {
  it('says there are none yet, refuses an empty form beside its fields', async () => {
    const { page } = ada;
    await page.getByText('No announcements yet.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'New announcement' }).click();
    await page.getByRole('heading', { name: 'New announcement' }).waitFor();
    await page.getByRole('button', { name: 'Create announcement' }).click();
    await page.getByText('Enter a name for the announcement.').waitFor();
    await page.getByText('Enter what callers will hear.').waitFor();
    // The first invalid field has the focus and is tied to its message.
    expect(await page.getByLabel('Name').evaluate((el) => el === document.activeElement)).toBe(
      true,
    );
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
  });

  it('writes a text announcement and hears the server’s preview before saving it', async () => {
    const { page } = ada;
    await page.getByLabel('Name').fill('After hours');
    await page
      .getByLabel('Text', { exact: true })
      .fill('Thank you for calling Sales. We are closed right now.');
    const language = page.getByLabel('Language');
    await expect.poll(() => language.isEnabled()).toBe(true);
    await language.selectOption('en-gb');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByTestId('guidance-preview').waitFor();
    const seconds = await durationOf(page, '[data-testid="guidance-preview"]');
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(10);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Create announcement' }).click();
    const row = page.getByTestId('guidance-row').filter({ hasText: 'After hours' });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('Text to speech');
    expect(text).toContain('English (United Kingdom)');
    // The list's player plays the stored announcement as callers hear it.
    expect(await durationOf(page, '[aria-label="Play After hours"]')).toBeCloseTo(seconds, 1);
    // The same audio through the API: an 8 kHz WAV of more than half a second.
    const wav = await page.evaluate(async () => {
      const r = await fetch('/api/guidance/preview', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Thank you for calling.', language: 'en-us' }),
      });
      const bytes = new DataView(await r.arrayBuffer());
      return {
        type: r.headers.get('content-type'),
        rate: bytes.getUint32(24, true),
        length: bytes.byteLength,
      };
    });
    expect(wav.type).toBe('audio/wav');
    expect(wav.rate).toBe(8000);
    expect((wav.length - 44) / 2 / 8000).toBeGreaterThan(0.5);
  });

  it('is chosen for a group’s closed slot and shown on the group’s page', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/group/grp-sales/guidance`);
    await page.getByRole('heading', { name: 'Announcements of Sales' }).waitFor();
    const closed = page.getByLabel('When closed');
    await expect.poll(() => closed.isEnabled()).toBe(true);
    await closed.selectOption({ label: 'After hours' });
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${server.url}/admin/group/grp-sales`);
    await expect
      .poll(() => page.getByTestId('group-announcement-closed').textContent())
      .toBe('After hours');
    expect(await page.getByTestId('group-announcement-open').textContent()).toBe('None');

    const groups = await adaSdk.map({ id: 'groups', mode: 'open_existing' });
    const guidance = await adaSdk.map({ id: 'guidance', mode: 'open_existing' });
    const [announcement] = (await guidance.getItems()).items;
    expect(announcement!.data).toEqual({
      name: 'After hours',
      kind: 'tts',
      text: 'Thank you for calling Sales. We are closed right now.',
      language: 'en-gb',
    });
    expect((await groups.get('grp-sales')).data).toMatchObject({
      name: 'Sales',
      number: '300',
      guidance: { closed: announcement!.key },
    });
  });

  it('is edited; a second admin’s earlier save produces the conflict choice', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/guidance`);
    await page.getByRole('link', { name: 'After hours' }).click();
    await page.getByRole('heading', { name: 'Edit After hours' }).waitFor();
    const text = page.getByLabel('Text', { exact: true });
    // Switching to a file and back keeps what was typed.
    await page.getByLabel('Audio file', { exact: true }).check();
    await page.getByRole('link', { name: 'Upload an audio file' }).waitFor();
    await page.getByLabel('Text to speech').check();
    expect(await text.inputValue()).toBe('Thank you for calling Sales. We are closed right now.');
    await text.fill('Sales is closed. Please call again tomorrow.');
    // Meanwhile another admin changes it (with their own edit screen: PUT /api/announcements/:id).
    const guidance = await adaSdk.map({ id: 'guidance', mode: 'open_existing' });
    const [item] = (await guidance.getItems()).items;
    const base = item!.data as Record<string, unknown>;
    expect(
      await updateAnnouncement(adaApi, item!.key, base, { ...base, text: 'We are out.' }),
    ).toEqual({ ok: true });
    await page.getByTestId('guidance-conflict').waitFor();
    expect(await page.getByTestId('guidance-conflict').textContent()).toContain('“We are out.”');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Another admin saved this announcement first.').waitFor();
    expect(await text.inputValue()).toBe('Sales is closed. Please call again tomorrow.');
    await page.getByRole('button', { name: 'Keep mine and overwrite' }).click();
    await page.getByTestId('guidance-list').waitFor();
    expect((await guidance.get(item!.key)).data).toMatchObject({
      text: 'Sales is closed. Please call again tomorrow.',
    });
  });

  it('cannot be deleted while the group plays it: the groups are named', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/guidance`);
    await page.getByRole('button', { name: 'Delete After hours' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete After hours?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'After hours is played by the ring group Sales (when closed).' })
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('guidance-row').count()).toBe(1);
  });
});

describe('an agent', () => {
  it('is turned away from /admin/guidance', async () => {
    const context = await browser.newContext();
    const { cookie } = await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
    await addSessionCookie(context, server.url, cookie);
    const page = await context.newPage();
    await page.goto(`${server.url}/admin/guidance`);
    await page.waitForURL(`${server.url}/`);
    expect(await page.getByTestId('toast').textContent()).toContain(
      'Only admins can open the admin area.',
    );
    // Nor can the API be used from the agent's browser.
    const status = await page.evaluate(async () => {
      const r = await fetch('/api/guidance/preview', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Hello', language: 'en-us' }),
      });
      return r.status;
    });
    expect(status).toBe(403);
    await context.close();
  });

  it('cannot write or remove announcements through the SDK', async () => {
    const tom = await sdkClientFor(server.url, 'Tom Agent', 'tom@example.com');
    const guidance = await tom.map({ id: 'guidance', mode: 'open_existing' });
    await expect(
      guidance.set('gdn-mine', { name: 'Mine', kind: 'tts', text: 'Hi', language: 'en-us' }),
    ).rejects.toMatchObject({ status: 403, code: 54007 });
    const [item] = (await guidance.getItems()).items;
    await expect(guidance.remove(item!.key)).rejects.toMatchObject({ status: 403, code: 54007 });
  });

  // Browsers write no announcement through Sync now, admins included (the screens go through
  // /api/announcements, which keeps one a group plays): Sync refuses it as Twilio does, on both backends.
  it('nor can an admin write or remove announcements through the SDK: only through the API', async () => {
    const guidance = await adaSdk.map({ id: 'guidance', mode: 'open_existing' });
    const [item] = (await guidance.getItems()).items;
    await expect(guidance.remove(item!.key)).rejects.toMatchObject({
      status: 403,
      code: 54007,
      message: expect.stringMatching(/^Access forbidden for identity/),
    });
    await expect(guidance.set(item!.key, { ...item!.data, text: 'Forged.' })).rejects.toMatchObject(
      { status: 403, code: 54007 },
    );
    expect((await guidance.get(item!.key)).data).toEqual(item!.data);
  });
});
