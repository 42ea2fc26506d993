/**
 * Audio files as an admin meets them, in Chromium against the real server: upload a WAV with the file
 * picker and watch the progress bar, see it listed with its length and play its preview, a file that is
 * not audio (named .mp3) is refused with the server's words, a throttled upload's bar rises step by
 * step, cancelling an upload in flight leaves nothing behind and it can be sent again, and delete
 * removes a file.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
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
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin/audio');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

describe('audio files', () => {
  it('uploads a WAV with a progress bar; it is listed with its length and plays', async () => {
    const { page } = ada;
    await page.getByText('No audio files yet.').waitFor();
    await page.getByRole('link', { name: 'Upload audio' }).click();
    await page.getByLabel('Audio file', { exact: true }).setInputFiles({
      name: 'Welcome.wav',
      mimeType: 'audio/wav',
      buffer: wavFile(65),
    });
    await page.getByTestId('picked').waitFor();
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('audio-row').waitFor();
    const row = await page.getByTestId('audio-row').textContent();
    expect(row).toContain('Welcome.wav');
    expect(row).toContain('1:05');
    // The preview loads and plays real audio from the server.
    const played = await page.getByLabel('Play Welcome.wav').evaluate(async (el) => {
      const audio = el as HTMLAudioElement;
      audio.muted = true;
      await audio.play();
      return audio.duration;
    });
    expect(played).toBeCloseTo(65, 0);
  });

  it('showed the progress bar while uploading', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    // Slow the upload down so the bar is visible, as on a real network.
    await page.route('**/api/audio?*', async (route) => {
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await page.getByLabel('Audio file', { exact: true }).setInputFiles({
      name: 'Hold.wav',
      mimeType: 'audio/wav',
      buffer: wavFile(5),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('upload-progress').waitFor();
    await page.getByTestId('audio-row').filter({ hasText: 'Hold.wav' }).waitFor();
    await page.unroute('**/api/audio?*');
  });

  it('on a slow network the bar rises step by step, never backwards', async () => {
    const { page, context } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 1024 * 1024,
    });
    try {
      // 5 MB of audio; every value the bar takes is recorded in the page as it changes.
      await page.getByLabel('Audio file', { exact: true }).setInputFiles({
        name: 'Long.wav',
        mimeType: 'audio/wav',
        buffer: wavFile(325),
      });
      await page.evaluate(() => {
        const seen: number[] = [];
        (window as unknown as { barValues: number[] }).barValues = seen;
        new MutationObserver(() => {
          const bar = document.querySelector('[data-testid="upload-progress"]');
          const value = bar ? Number(bar.getAttribute('value')) : null;
          if (value !== null && seen.at(-1) !== value) seen.push(value);
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByTestId('audio-row').filter({ hasText: 'Long.wav' }).waitFor();
    } finally {
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    }
    const values = await page.evaluate(
      () => (window as unknown as { barValues: number[] }).barValues,
    );
    expect(values.filter((v) => v > 0 && v < 100).length).toBeGreaterThanOrEqual(2);
    expect([...values].sort((x, y) => x - y)).toEqual(values);
  });

  it('cancelling an upload in flight leaves nothing behind; Upload sends it again', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    const stored = () => readdirSync(join(server.dataDir, 'audio'));
    const before = stored();
    // The request is held on its way, as on a slow network, while the person cancels, and is
    // then dropped: letting it go on would send the whole file, as Playwright does for a held
    // request whose route is removed. A cut-short upload that reaches the server is
    // tests/unit/server/audio/routes.test.ts's business.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let handled: Promise<void> = Promise.resolve();
    await page.route('**/api/audio?*', (route) => {
      handled = held.then(() => route.abort('aborted').catch(() => undefined));
      return handled;
    });
    await page.getByLabel('Audio file', { exact: true }).setInputFiles({
      name: 'Slow.wav',
      mimeType: 'audio/wav',
      buffer: wavFile(10),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('upload-progress').waitFor();
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await page.getByText('The upload was cancelled; nothing was kept.').waitFor();
    release();
    await handled;
    await page.unroute('**/api/audio?*');
    await new Promise((r) => setTimeout(r, 300));
    expect(stored()).toEqual(before);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('audio-row').filter({ hasText: 'Slow.wav' }).waitFor();
    expect(stored()).toHaveLength(before.length + 1);
  });

  it('refuses a file that is not audio, whatever its name says', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    await page.getByLabel('Audio file', { exact: true }).setInputFiles({
      name: 'song.mp3',
      mimeType: 'audio/mpeg',
      buffer: Buffer.from('<html>this is not audio</html>'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    const error = await page.getByTestId('upload-error').textContent();
    expect(error).toMatch(/not WAV, MP3 or Ogg Opus audio/);
  });

  it('deletes a file after confirming', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/audio`);
    await page.getByRole('button', { name: 'Delete Welcome.wav' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Welcome.wav?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page
      .getByTestId('audio-row')
      .filter({ hasText: 'Welcome.wav' })
      .waitFor({ state: 'detached' });
    expect(await page.getByTestId('audio-row').allTextContents()).toEqual([
      expect.stringContaining('Hold.wav'),
      expect.stringContaining('Long.wav'),
      expect.stringContaining('Slow.wav'),
    ]);
  });
});
