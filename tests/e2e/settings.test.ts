/**
 * /setting as a person meets it, in Chromium against the real server: their display name (saved
 * through the server, seen by a colleague and in the top bar), do not disturb, call notifications,
 * the microphone chosen from the browser's devices and the ringtone volume, all kept across a
 * reload; the ringtone the phone loads follows the volume; another person's settings document is
 * refused by the Sync service.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { sdkClientFor, signedInPage, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let ann: Person;
let bob: Person;

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
  ann = await signedInPage(browser, server.url, 'Ann', 'ann@example.com', '/contacts');
  await ann.context.grantPermissions(['microphone'], { origin: server.url });
  await ann.page.goto(`${server.url}/setting`);
  bob = await signedInPage(browser, server.url, 'Bob', 'bob@example.com', '/users');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('settings', () => {
  it('saves the display name through the server: the top bar and a colleague on /users show it', async () => {
    const { page } = ann;
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const field = page.getByTestId('settings-name');
    await expect.poll(() => field.inputValue()).toBe('Ann');
    await field.fill('   ');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('alert').filter({ hasText: 'Type the name colleagues' }).waitFor();
    await field.fill('Ann Archer');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.getByTestId('current-user').filter({ hasText: 'Ann Archer' }).waitFor();
    await bob.page.getByText('Ann Archer').first().waitFor();
  });

  it('keeps do not disturb, the microphone and the ringtone volume across a reload', async () => {
    const { page } = ann;
    await page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    const mic = page.getByTestId('settings-microphoneId');
    // Chromium's fake devices are listed by name (the microphone permission is granted).
    await expect.poll(async () => (await mic.locator('option').count()) > 1).toBe(true);
    const chosen = await mic.locator('option').nth(1).getAttribute('value');
    expect(chosen).toBeTruthy();
    await mic.selectOption(chosen);
    const volume = page.getByTestId('settings-volume');
    await volume.focus();
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => volume.inputValue()).toBe('40');
    // The screen's own toggle (the phone panel beside it has one too).
    const dnd = page.locator('main [data-testid="dnd-toggle"]');
    await dnd.check();
    await page.locator('main [data-testid="dnd-toggle"]:not([aria-busy="true"])').waitFor();

    // The phone loads the ringtone at that volume.
    const ringtone = page.waitForRequest((r) => r.url().includes('incoming.wav?level=40'));
    await page.reload();
    await ringtone;
    await expect.poll(() => page.getByTestId('settings-volume').inputValue()).toBe('40');
    await expect.poll(() => page.getByTestId('settings-microphoneId').inputValue()).toBe(chosen);
    await expect.poll(() => dnd.isChecked()).toBe(true);
    expect(
      await page
        .locator('aside [data-testid="dnd-toggle"], .softphone [data-testid="dnd-toggle"]')
        .first()
        .isChecked(),
    ).toBe(true);
    await dnd.uncheck();
    await page.locator('main [data-testid="dnd-toggle"]:not([aria-busy="true"])').waitFor();
  });

  it('shows where call notifications stand', async () => {
    // Before permission: a button that asks, or (headless Chromium denies by default) where to allow.
    await ann.page
      .locator('[data-testid="notifications-enable"], [data-testid="notifications-state"]')
      .first()
      .waitFor();
    expect(
      await ann.page.getByTestId('notifications-state').filter({ hasText: 'On:' }).count(),
    ).toBe(0);
    await ann.context.grantPermissions(['microphone', 'notifications'], { origin: server.url });
    await ann.page.reload();
    await ann.page.getByTestId('notifications-state').filter({ hasText: 'On:' }).first().waitFor();
  });

  it('remaps a shortcut by pressing it, refuses clashes with the reason, and keeps it across a reload', async () => {
    const { page } = ann;
    const mute = page.getByTestId('shortcut-mute');
    await mute.getByRole('button', { name: /Change/ }).click();
    await page.keyboard.press('Alt+Shift+KeyY');
    await page.getByTestId('shortcut-problem').filter({ hasText: 'already “Answer' }).waitFor();
    await page.keyboard.press('Control+KeyW');
    await page
      .getByTestId('shortcut-problem')
      .filter({ hasText: 'belongs to the browser' })
      .waitFor();
    await page.keyboard.press('KeyM');
    await page
      .getByTestId('shortcut-problem')
      .filter({ hasText: 'needs Ctrl, Alt or Meta' })
      .waitFor();
    expect(await mute.locator('kbd').textContent()).toBe('Alt+Shift+U');
    await page.keyboard.press('Alt+KeyU');
    await mute.locator('kbd').filter({ hasText: 'Alt+U' }).waitFor();
    await page.reload();
    await page.getByTestId('shortcut-mute').locator('kbd').filter({ hasText: 'Alt+U' }).waitFor();
    // Alt+Shift+D, the dial box's shortcut, works from anywhere on the page.
    await page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    await page.keyboard.press('Alt+Shift+KeyD');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('dial-input');
    await page.getByRole('button', { name: 'Back to the defaults' }).click();
    await page
      .getByTestId('shortcut-mute')
      .locator('kbd')
      .filter({ hasText: 'Alt+Shift+U' })
      .waitFor();
  });

  it("refuses another person's settings at the Sync service", async () => {
    const client = await sdkClientFor(server.url, 'Bob', 'bob@example.com');
    try {
      const refused = await client
        .document({ id: 'settings:ann@example.com', mode: 'open_or_create' })
        .then(
          () => null,
          (e: { status?: number; code?: number; message?: string }) => e,
        );
      expect(refused).toMatchObject({ status: 403, code: 54007 });
      // Twilio's wording on both backends now (the embedded backend's own reason is gone): 54007
      // "Access forbidden for identity" (https://www.twilio.com/docs/api/errors/54007).
      expect(refused?.message).toMatch(/^Access forbidden for identity\b/);
    } finally {
      await client.shutdown();
    }
  });

  it('serves the ringtone at a volume, and refuses a volume out of range', async () => {
    const wav = async (query: string) =>
      fetch(`${server.url}/api/voice/sounds/incoming.wav${query}`);
    const peak = async (res: Response) => {
      const body = Buffer.from(await res.arrayBuffer());
      let max = 0;
      for (let i = 44; i + 1 < body.length; i += 2)
        max = Math.max(max, Math.abs(body.readInt16LE(i)));
      return max;
    };
    const full = await peak(await wav(''));
    const quiet = await peak(await wav('?level=40'));
    expect(quiet).toBeGreaterThan(0);
    expect(quiet / full).toBeCloseTo(0.4, 1);
    for (const q of ['?level=101', '?level=-1', '?level=abc', '?level=4.5']) {
      const res = await wav(q);
      expect(res.status, q).toBe(400);
    }
  });
});
