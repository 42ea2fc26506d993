/**
 * Ring groups as callers and the team meet them, in Chromium against the real server (fake
 * microphones, the audio each page receives read from its own peer connections). Ada (admin) sets
 * the groups up through the API, as the admin screens do. Cat calls a group open all week:
 * Ann and Bob ring at once ("via Sales"), Bob answers and Ann's ringing stops; in order, Ann rings
 * first, and Bob only once her ring timeout has passed; closed hours play the closed announcement
 * (Cat's audio level shows it before anyone rings) and forward to Bob; a holiday takes Cat's
 * voicemail, which Ann (a member) plays back from /history and Bob (not a member) does not get;
 * Ada's Test this group lists each decision as it is made.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { saveAnnouncement, saveGroup, type AdminApi, type GroupSpec } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { adminApiFor, type Person } from './support/live';
import { inbound, phonePerson } from './support/page-audio';
import { eventually } from './support/phone';
import { card, dismissAll, hangUp } from './support/cards';

let server: RunningServer;
let browser: Browser;
let admin: AdminApi;
let ada: Person;
let ann: Person;
let bob: Person;
let cat: Person;

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2 A/AA violations on the page as it is (their ids). */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, which the app's Content-Security-Policy does not govern.
  await page.evaluate(readFileSync(AXE, 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(d: Document, o: unknown): Promise<{ violations: { id: string }[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => v.id);
  });
}

async function hearsSound(page: Page): Promise<void> {
  const before = (await inbound(page)).packets;
  await eventually(
    () => inbound(page),
    (s) => s.packets > before + 25 && s.level > 0.01,
  );
}

const openPerson = (name: string, path: string): Promise<Person> =>
  phonePerson(browser, server.url, name, path);

/** Stores a group as the admin screens do, as Ada (the admin). */
const makeGroup = (g: GroupSpec) => saveGroup(admin, g);

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_VOICE_RING_SECONDS: '30' } });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  // The first to sign in is the admin.
  ada = await openPerson('Ada', '/contacts');
  admin = await adminApiFor(server.url, 'Ada', 'ada@example.com');
  ann = await openPerson('Ann', '/contacts');
  bob = await openPerson('Bob', '/contacts');
  cat = await openPerson('Cat', '/contacts');
}, 90_000);

afterAll(async () => {
  await admin?.sync.shutdown();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

async function catDials(number: string): Promise<void> {
  for (const p of [ada, ann, bob, cat]) await dismissAll(p);
  await cat.page.getByTestId('dial-input').fill(number);
  await cat.page.getByRole('button', { name: 'Call', exact: true }).click();
}

describe('calls to ring groups', () => {
  it('all at once: Ann and Bob ring, Bob answers, Ann stops ringing, Cat and Bob hear each other', async () => {
    await makeGroup({
      id: 'grp-sales',
      name: 'Sales',
      number: '500',
      members: ['ann@example.com', 'bob@example.com'],
    });
    await catDials('500');
    await card(ann, 'incoming')
      .getByTestId('call-group')
      .filter({ hasText: 'via Sales' })
      .waitFor();
    await card(bob, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => card(ann, 'incoming').count(), { timeout: 10_000 }).toBe(0);
    await card(cat, 'open').waitFor();
    await hearsSound(cat.page);
    await hearsSound(bob.page);
    await hangUp(cat);
  });

  it('in order: Ann rings first, Bob only after her ring timeout', async () => {
    await makeGroup({
      id: 'grp-order',
      name: 'Support',
      number: '501',
      members: ['ann@example.com', 'bob@example.com'],
      strategy: 'sequential',
      ringTimeout: 5,
    });
    await catDials('501');
    await card(ann, 'incoming').waitFor();
    const annRang = Date.now();
    expect(await card(bob, 'incoming').count()).toBe(0);
    await card(bob, 'incoming').waitFor({ timeout: 15_000 });
    expect(Date.now() - annRang).toBeGreaterThanOrEqual(4000);
    await expect.poll(() => card(ann, 'incoming').count()).toBe(0);
    await card(bob, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await card(cat, 'open').waitFor();
    await hangUp(cat);
  });

  it('closed: Cat hears the closed announcement, then the rule forwards her to Bob', async () => {
    await saveAnnouncement(admin, 'gdn-closed', {
      name: 'Closed',
      kind: 'tts',
      text: 'Thank you for calling. We are closed, but a colleague will take your call.',
      language: 'en-us',
    });
    await makeGroup({
      id: 'grp-closed',
      name: 'Night desk',
      number: '502',
      members: ['ann@example.com'],
      week: {},
      guidance: { closed: 'gdn-closed' },
      rules: [
        {
          when: 'closed',
          after: 20,
          target: { kind: 'user', identity: 'bob@example.com' },
          order: 0,
        },
      ],
    });
    await catDials('502');
    await card(cat, 'open')
      .getByTestId('call-routing')
      .filter({ hasText: 'Playing the closed announcement.' })
      .waitFor();
    // The announcement is what Cat hears: nobody rings yet.
    await hearsSound(cat.page);
    expect(await card(bob, 'incoming').count()).toBe(0);
    expect(await card(ann, 'incoming').count()).toBe(0);
    await card(bob, 'incoming').getByRole('button', { name: 'Accept' }).click({ timeout: 20_000 });
    await card(cat, 'open')
      .getByTestId('call-routing')
      .filter({ hasText: 'Bob answered.' })
      .waitFor();
    expect(await card(ann, 'incoming').count()).toBe(0);
    await hangUp(cat);
  });

  it('a holiday takes a voicemail; Ann (a member) plays it back from /history, Bob gets no player', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await makeGroup({
      id: 'grp-holiday',
      name: 'Accounts',
      number: '503',
      members: ['ann@example.com'],
      holidays: [{ id: 'h1', label: 'Founders Day', start: today, end: today }],
    });
    await catDials('503');
    await card(cat, 'open')
      .getByTestId('call-routing')
      .filter({ hasText: 'Recording the message.' })
      .waitFor({ timeout: 20_000 });
    // Cat's (fake) microphone speaks for a while.
    await new Promise((r) => setTimeout(r, 3000));
    await hangUp(cat);
    await ann.page.goto(`${server.url}/history`);
    const row = ann.page.getByTestId('call-row').filter({ hasText: 'Voicemail' }).first();
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('Accounts');
    const player = row.getByTestId('voicemail-player');
    const played = await player.evaluate(async (el) => {
      const audio = el as HTMLAudioElement;
      audio.muted = true;
      await audio.play();
      await new Promise((r) => setTimeout(r, 1200));
      return { duration: audio.duration, time: audio.currentTime, error: audio.error?.code ?? 0 };
    });
    expect(played.error).toBe(0);
    expect(played.duration).toBeGreaterThan(1);
    expect(played.time).toBeGreaterThan(0.5);
    expect(await axeViolations(ann.page)).toEqual([]);
    await bob.page.goto(`${server.url}/history`);
    const bobRow = bob.page.getByTestId('call-row').filter({ hasText: 'Voicemail' }).first();
    await bobRow.waitFor();
    expect(await bobRow.getByTestId('voicemail-player').count()).toBe(0);
    for (const p of [ann, bob]) await p.page.goto(`${server.url}/contacts`);
  });

  it('Test this group shows each decision as it is made', async () => {
    await makeGroup({
      id: 'grp-test',
      name: 'Front desk',
      number: '504',
      members: ['ann@example.com'],
    });
    for (const p of [ada, ann, bob, cat]) await dismissAll(p);
    await ada.page.goto(`${server.url}/admin/group/grp-test`);
    await ada.page.getByRole('button', { name: 'Test this group' }).click();
    const steps = ada.page.getByTestId('group-test-steps');
    await steps.getByText('Front desk is open.').waitFor();
    await steps.getByText('Ringing Ann at once.').waitFor();
    await card(ann, 'incoming').getByRole('button', { name: 'Reject' }).click();
    await steps.getByText('Declined.').waitFor();
    await steps.getByText(/Everyone declined the call\. Voicemail/).waitFor();
    await ada.page.getByRole('button', { name: 'End the test call' }).click();
    await ada.page.getByText('The test call ended.').waitFor();
    expect(await axeViolations(ada.page)).toEqual([]);
    expect(await steps.locator('li').allTextContents()).toEqual([
      'Front desk is open.',
      'Ringing Ann at once.',
      'Declined.',
      'Everyone declined the call. Voicemail: the caller can leave a message.',
      ...((await steps.locator('li').count()) > 4 ? ['Recording the message.'] : []),
    ]);
  });
});
