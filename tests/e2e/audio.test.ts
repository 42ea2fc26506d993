/**
 * Audio files as an admin meets them, in Chromium against the real server: upload a WAV with the file
 * picker and watch the progress bar, see it listed with its length and play its preview, a file that is
 * not audio (named .mp3) is refused with the server's words, a slow upload's bar rises and cancelling
 * it leaves nothing behind (no file, no list row), and delete removes it.
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
    await page.getByLabel('Audio file').setInputFiles({
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
    await page.getByLabel('Audio file').setInputFiles({
      name: 'Hold.wav',
      mimeType: 'audio/wav',
      buffer: wavFile(5),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('upload-progress').waitFor();
    await page.getByTestId('audio-row').filter({ hasText: 'Hold.wav' }).waitFor();
    await page.unroute('**/api/audio?*');
  });

  it('on a slow network the bar rises; cancelling leaves nothing behind, and Upload works again', async () => {
    const { page, context } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    const stored = () => readdirSync(join(server.dataDir, 'audio'));
    const before = stored();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    // 256 KB/s up: a 2 MB file takes about 8 s.
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    try {
      await page.getByLabel('Audio file').setInputFiles({
        name: 'Slow.wav',
        mimeType: 'audio/wav',
        buffer: wavFile(125),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
      const bar = page.getByTestId('upload-progress');
      const seen: number[] = [];
      await expect
        .poll(async () => {
          seen.push(Number(await bar.getAttribute('value')));
          return seen.filter((v) => v > 0 && v < 100).length;
        })
        .toBeGreaterThanOrEqual(2);
      // The bar only goes forwards.
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      await page.getByRole('button', { name: 'Cancel upload' }).click();
      await page.getByText('The upload was cancelled; nothing was kept.').waitFor();
    } finally {
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    }
    // The server dropped the partial file (once it notices the cut-off body) and stored nothing.
    await expect.poll(stored).toEqual(before);
    // The same file goes up when asked again, at full speed now.
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByTestId('audio-row').filter({ hasText: 'Slow.wav' }).waitFor();
    expect(stored()).toHaveLength(before.length + 1);
  });

  it('refuses a file that is not audio, whatever its name says', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/audio/create`);
    await page.getByLabel('Audio file').setInputFiles({
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
      expect.stringContaining('Slow.wav'),
    ]);
  });
});
