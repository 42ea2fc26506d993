/**
 * Names everywhere, and a history you can read, in Chromium against the real server (issue 25):
 * people with long names (Annabel-Louise, Bartholomew) in a ring group with a long name; Cat calls
 * it and the call goes through every state (ringing, answered, held, parked, picked up from /hold,
 * an attended transfer, ended). At each step every page in the call, and then every screen, shows
 * names: never an email, a call id, a group id or an internal address (`park:`, `client:`,
 * `test:`). /history at 1280 and 390 px wide has no row or part of a row over another (element
 * boxes compared) and nothing wider than the view. A voicemail row names the caller, says how long
 * the message is, is marked New until played, has a player, and its Call back dials the caller.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { saveGroup, type AdminApi, type GroupSpec } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { adminApiFor, type Person } from './support/live';
import { phonePerson } from './support/page-audio';
import { card, dismissAll } from './support/cards';

let server: RunningServer;
let browser: Browser;
let admin: AdminApi;
/** Stores a group as the group form does, as Ada (the admin). */
const makeGroup = (g: GroupSpec) => saveGroup(admin, g);
let ada: Person;
let ann: Person;
let bob: Person;
let cat: Person;

const ANN = 'Annabel-Louise Montgomery-Featherstonehaugh';
const BOB = 'Bartholomew Alexander Fitzgerald-Worthington';
const CAT = 'Cat Caller';
const GROUP = 'Customer Support and Technical Enquiries';

/** What must never be shown where a name exists. */
const NOT_NAMES: readonly [string, RegExp][] = [
  ['an email address', /[\w.+-]+@[\w-]+\.[\w.]+/],
  ['a call id', /\bCA[0-9a-f]{32}\b/],
  ['a group id', /\bgrp-[\w-]+/],
  ['an internal address', /\b(?:park|client|test):/],
];

/**
 * The text a person reads on the page (visible text and accessible names of controls), with each
 * thing that is not a name, and where it is (what a person typed into a field is not text here).
 */
async function notNames(page: Page): Promise<string[]> {
  const texts = await page.evaluate(() => {
    // /users lists each person's sign-in address in its own Email column, beside their name: a
    // fact about them, not a stand-in for the name.
    const body = document.body.cloneNode(true) as HTMLElement;
    body.querySelectorAll('[data-testid="user-email"], script, style').forEach((el) => el.remove());
    const out: string[] = [document.title, body.textContent ?? ''];
    for (const el of document.querySelectorAll('[aria-label], [title]'))
      out.push(el.getAttribute('aria-label') ?? '', el.getAttribute('title') ?? '');
    return out;
  });
  const found: string[] = [];
  for (const text of texts)
    for (const [what, pattern] of NOT_NAMES) {
      const m = pattern.exec(text);
      if (m) found.push(`${what}: "${m[0]}" in "${text.slice(0, 160)}"`);
    }
  return found;
}

async function expectNames(p: Person, where: string): Promise<void> {
  expect(await notNames(p.page), `${where} (${p.page.url()})`).toEqual([]);
}

async function dialFrom(p: Person, to: string): Promise<void> {
  for (const q of [ada, ann, bob, cat]) await dismissAll(q);
  await p.page.getByTestId('dial-input').fill(to);
  await p.page.getByTestId('dial-input').press('Enter');
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  // The first to sign in is the admin.
  ada = await phonePerson(browser, server.url, 'Ada', '/contacts');
  admin = await adminApiFor(server.url, 'Ada', 'ada@example.com');
  ann = await phonePerson(browser, server.url, ANN, '/contacts', 'ann@example.com');
  bob = await phonePerson(browser, server.url, BOB, '/contacts', 'bob@example.com');
  cat = await phonePerson(browser, server.url, CAT, '/contacts', 'cat@example.com');
  await makeGroup({
    id: 'grp-support',
    name: GROUP,
    number: '700',
    members: ['ann@example.com', 'bob@example.com'],
  });
}, 120_000);

afterAll(async () => {
  await admin?.sync.shutdown();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('names everywhere', () => {
  it('a group call through every state names people and the group, never an id or email', async () => {
    await dialFrom(cat, '700');
    await card(ann, 'incoming').waitFor({ timeout: 15_000 });
    await card(bob, 'incoming').waitFor({ timeout: 15_000 });
    expect(await card(ann, 'incoming').getByTestId('call-name').textContent()).toContain(CAT);
    for (const p of [ann, bob, cat]) await expectNames(p, 'ringing');

    await card(ann, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await card(ann, 'open').waitFor();
    await card(cat, 'open').getByTestId('call-name').filter({ hasText: ANN }).waitFor();
    for (const p of [ann, cat]) await expectNames(p, 'answered');

    await card(ann, 'open').getByRole('button', { name: 'Hold' }).click();
    await card(cat, 'open').getByTestId('call-held-by-them').waitFor();
    expect(await card(cat, 'open').getByTestId('call-held-by-them').textContent()).toContain(
      'Annabel',
    );
    for (const p of [ann, cat]) await expectNames(p, 'held');
    await card(ann, 'open').getByRole('button', { name: 'Hold', pressed: true }).click();
    await card(ann, 'open').getByRole('button', { name: 'Hold', pressed: false }).waitFor();

    await card(ann, 'open').getByRole('button', { name: 'Park' }).click();
    await card(ann, 'ended').waitFor();
    await bob.page.goto(`${server.url}/hold`);
    const row = bob.page.getByTestId('hold-row').first();
    await row.waitFor();
    expect(await row.textContent()).toContain(CAT);
    expect(await row.textContent()).toContain('Annabel');
    for (const p of [ann, bob, cat]) await expectNames(p, 'parked');

    await row.getByRole('button', { name: /^Pick up / }).click();
    await card(bob, 'open').waitFor();
    expect(await card(bob, 'open').getByTestId('call-name').textContent()).toContain(CAT);
    // The caller's card follows: it names who has the call now.
    await card(cat, 'open').getByTestId('call-name').filter({ hasText: BOB }).waitFor();
    for (const p of [bob, cat]) await expectNames(p, 'picked up');

    // Bob talks to Annabel first, then hands the call over.
    await card(bob, 'open').getByRole('button', { name: 'Transfer' }).click();
    await card(bob, 'open').getByLabel('Transfer to').fill(ANN);
    await card(bob, 'open').getByRole('button', { name: 'Talk first' }).click();
    await card(ann, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await card(bob, 'open')
      .getByTestId('call-transfer')
      .filter({ hasText: `Talking to ${ANN}` })
      .waitFor();
    for (const p of [ann, bob, cat]) await expectNames(p, 'consulting');
    await card(bob, 'open').getByRole('button', { name: 'Complete transfer' }).click();
    await card(bob, 'ended').waitFor();
    await card(cat, 'open').getByTestId('call-name').filter({ hasText: ANN }).waitFor();
    for (const p of [ann, bob, cat]) await expectNames(p, 'transferred');

    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await card(cat, 'ended').waitFor();
    await card(ann, 'ended').last().waitFor();
    for (const p of [ann, bob, cat]) await expectNames(p, 'ended');
  }, 120_000);

  it('every screen names people and groups', async () => {
    const screens = [
      '/contacts',
      '/history',
      '/hold',
      '/users',
      '/setting',
      '/admin',
      '/admin/group',
      '/admin/group/create',
      '/admin/group/grp-support',
      '/admin/group/grp-support/edit',
      '/admin/group/grp-support/guidance',
      '/admin/schedule/grp-support/edit',
      '/admin/calendar/grp-support/edit',
      '/admin/group/grp-support/forwarding/create',
      '/admin/guidance',
      '/admin/audio',
    ];
    for (const path of screens) {
      await ada.page.goto(`${server.url}${path}`);
      await ada.page.getByRole('main').waitFor();
      // The screen's data, not its loading line.
      await ada.page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      await ada.page.waitForTimeout(300);
      await expectNames(ada, path);
    }
    // The history names the parties of the call above.
    await ada.page.goto(`${server.url}/history`);
    await ada.page.getByTestId('call-row').first().waitFor();
    expect(await ada.page.getByTestId('call-row').first().textContent()).toContain(CAT);
  });
});

/** The boxes of each row of /history and of its parts, as the page lays them out. */
async function historyBoxes(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    const rows = [...document.querySelectorAll('[data-testid="call-row"]')].map((row) => ({
      row: box(row),
      parts: [...row.children].map((c) => ({ name: c.className, ...box(c) })),
      controls: [...row.querySelectorAll('button, audio')].map((c) => ({
        name: c.getAttribute('aria-label') ?? c.textContent ?? '',
        ...box(c),
      })),
    }));
    return {
      rows,
      viewWidth: window.innerWidth,
      pageWidth: document.documentElement.scrollWidth,
    };
  });
}

type Box = { top: number; bottom: number; left: number; right: number };
const overlaps = (a: Box, b: Box) =>
  a.left < b.right - 0.5 &&
  b.left < a.right - 0.5 &&
  a.top < b.bottom - 0.5 &&
  b.top < a.bottom - 0.5;

describe('a history you can read', () => {
  it('a voicemail row: the caller, how long, New until played, a player, and Call back dials the caller', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await makeGroup({
      id: 'grp-accounts',
      name: 'Accounts',
      number: '703',
      members: ['ann@example.com'],
      holidays: [{ id: 'h1', label: 'Founders Day', start: today, end: today }],
    });
    await dialFrom(cat, '703');
    await card(cat, 'open')
      .getByTestId('call-routing')
      .filter({ hasText: 'Recording the message.' })
      .waitFor({ timeout: 20_000 });
    // Cat's (fake) microphone speaks for a while.
    await new Promise((r) => setTimeout(r, 3500));
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await card(cat, 'ended').waitFor();

    await ann.page.goto(`${server.url}/history?filter=voicemail`);
    const row = ann.page.getByTestId('call-row').first();
    await row.getByTestId('voicemail-unread').waitFor();
    expect(await row.getByTestId('call-party').textContent()).toBe(CAT);
    const seconds = await row.getByTestId('voicemail-duration').textContent();
    expect(seconds).toMatch(/Message 0:0[2-9]/);
    await ann.page.getByTestId('nav-voicemail-count').waitFor();
    await expectNames(ann, 'voicemail row');

    const played = await row.getByTestId('voicemail-player').evaluate(async (el) => {
      const audio = el as HTMLAudioElement;
      audio.muted = true;
      await audio.play();
      await new Promise((r) => setTimeout(r, 1000));
      return { time: audio.currentTime, error: audio.error?.code ?? 0 };
    });
    expect(played.error).toBe(0);
    expect(played.time).toBeGreaterThan(0.3);
    // Played: no longer New, and the nav's count is gone.
    await row.getByTestId('voicemail-unread').waitFor({ state: 'detached' });
    await ann.page.getByTestId('nav-voicemail-count').waitFor({ state: 'detached' });

    await dismissAll(ann);
    await row.getByRole('button', { name: `Call back ${CAT}` }).click();
    await card(cat, 'incoming').waitFor({ timeout: 15_000 });
    expect(await card(cat, 'incoming').getByTestId('call-name').textContent()).toContain(ANN);
    await card(cat, 'incoming').getByRole('button', { name: 'Reject' }).click();
    await card(ann, 'ended').waitFor();
  }, 60_000);

  it('at 1280 and 390 px wide, no row or part of one lies over another, and nothing is wider than the view', async () => {
    // Annabel's history: the group call (parked, picked up, transferred), the voicemail left for
    // her group with its player, and her call back to Cat.
    const page = ann.page;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${server.url}/history`);
      await page.getByTestId('call-row').first().waitFor();
      await page.waitForTimeout(300);
      const { rows, viewWidth, pageWidth } = await historyBoxes(page);
      expect(rows.length, `${width}px`).toBeGreaterThan(1);
      expect(pageWidth, `${width}px: page width`).toBeLessThanOrEqual(viewWidth);
      const sorted = [...rows].sort((a, b) => a.row.top - b.row.top);
      for (let i = 1; i < sorted.length; i++)
        expect(
          sorted[i]!.row.top,
          `${width}px: row ${i} starts below row ${i - 1}`,
        ).toBeGreaterThanOrEqual(sorted[i - 1]!.row.bottom - 0.5);
      for (const [i, { row, parts, controls }] of rows.entries()) {
        const visible = parts.filter((p) => p.bottom > p.top);
        for (const p of visible) {
          expect(p.right, `${width}px row ${i}: ${p.name} inside the row`).toBeLessThanOrEqual(
            row.right + 0.5,
          );
          expect(p.bottom, `${width}px row ${i}: ${p.name} inside the row`).toBeLessThanOrEqual(
            row.bottom + 0.5,
          );
        }
        for (let a = 0; a < visible.length; a++)
          for (let b = a + 1; b < visible.length; b++)
            expect(
              overlaps(visible[a]!, visible[b]!),
              `${width}px row ${i}: ${visible[a]!.name} over ${visible[b]!.name}`,
            ).toBe(false);
        for (const c of controls) {
          expect(c.right, `${width}px row ${i}: ${c.name} in view`).toBeLessThanOrEqual(viewWidth);
          // "Call back" on one line: a button no taller than two lines of its text would be.
          if (c.name.startsWith('Call back'))
            expect(c.bottom - c.top, `${width}px row ${i}: Call back on one line`).toBeLessThan(48);
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);
});
