/**
 * Accessibility of every route of the seed (src/ui/app/paths.ts), as an admin with some data on the
 * team (a contact, a ring group with a forwarding rule and holidays, an announcement, an audio
 * file), in Chromium against the real server: each screen is opened, axe-core runs on the whole
 * page (the shell, the side nav and the softphone included) with the WCAG 2.0 and 2.1 A and AA
 * rules, and must report nothing. A line per route shows its count. The test only visits and
 * checks: screens may change freely underneath it.
 */
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src/ui/app/paths';
import { shutdownClients } from '../integration/sync/support';
import { addSessionCookie, apiSignIn } from '../model/support/app';
import { wavFile } from '../support/audio-fixtures';
import { launchChromium } from '../support/chromium';
import { saveAnnouncement, saveGroup } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { adminApiFor, snapshotDist } from './support/live';
import { navigateInApp } from './support/navigate';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const GROUP = 'grp-axe000001';
const GUIDANCE = 'gd-axe000001';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary: string | undefined }[];
}

interface Checked {
  /** Where the page ended up (a redirect would mean the screen itself was not checked). */
  pathname: string;
  heading: string;
  violations: Violation[];
}

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let admin: BrowserContext;
let visitor: BrowserContext;
let agent: BrowserContext;
let third: BrowserContext;
const counts: string[] = [];

/** A context that lets the test add axe's script under the app's Content-Security-Policy. */
async function context(cookie: string | null): Promise<BrowserContext> {
  const ctx = await browser.newContext({ bypassCSP: true });
  if (cookie) await addSessionCookie(ctx, server.url, cookie);
  return ctx;
}

/**
 * What an admin would have made: a contact, a ring group with its objects, an announcement, audio;
 * each as its screen stores it: the contact through Sync, the group and the announcement through the
 * API (the server makes the group's schedule, calendar and forwarding list), then its holidays and
 * forwarding rule through Sync as the group's pages write them.
 */
async function seedData(cookie: string): Promise<void> {
  const api = await adminApiFor(server.url, 'Ada Admin', 'ada@example.com');
  try {
    const contacts = await api.sync.map({ id: 'contacts', mode: 'open_or_create' });
    await contacts.set('ct-acme', {
      name: 'Acme Ltd',
      company: 'Acme',
      phones: [{ label: 'office', number: '+442079460000' }],
      email: 'hello@acme.example',
      note: '',
    });
    // Holidays in this month, so the month view shows marked days (one of them today).
    const today = new Date().toISOString().slice(0, 10);
    const month = today.slice(0, 7);
    const [from, to] = Number(today.slice(8)) <= 14 ? ['20', '22'] : ['03', '05'];
    await saveGroup(api, {
      id: GROUP,
      name: 'Front desk',
      number: '200',
      members: ['ada@example.com', 'tom@example.com'],
      timeZone: 'Europe/London',
      week: { mon: [{ start: '09:00', end: '17:00' }] },
      holidays: [
        { id: 'hol-axe1', label: 'Founders’ Day', start: today, end: today },
        {
          id: 'hol-axe2',
          label: 'Team retreat',
          start: `${month}-${from}`,
          end: `${month}-${to}`,
        },
      ],
      rules: [
        {
          when: 'noAnswer',
          after: 20,
          target: { kind: 'user', identity: 'tom@example.com' },
          order: 0,
        },
      ],
    });
    await saveAnnouncement(api, GUIDANCE, {
      name: 'Welcome',
      kind: 'tts',
      text: 'Welcome to Acme.',
      language: 'en-GB',
    });
  } finally {
    await api.sync.shutdown();
  }
  const res = await fetch(`${server.url}/api/audio?name=Welcome.wav`, {
    method: 'POST',
    headers: { 'Content-Type': 'audio/wav', Cookie: `sb_session=${cookie}`, Origin: server.url },
    body: new Uint8Array(wavFile(2)),
  });
  if (res.status !== 201) throw new Error(`audio upload: ${res.status} ${await res.text()}`);
}

/**
 * Waits for the screen to have settled: its heading shown, nothing busy or loading (up to a few
 * seconds: a screen that stays busy is checked as it is).
 */
async function settle(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor({ timeout: 20_000 });
  const end = Date.now() + 8_000;
  while (Date.now() < end) {
    const busy = await page.evaluate(
      () =>
        document.querySelector('[aria-busy="true"]') !== null ||
        [...document.querySelectorAll('[role="status"]')].some((el) =>
          /loading|opening|connecting/i.test(el.textContent ?? ''),
        ),
    );
    if (!busy) break;
    await page.waitForTimeout(150);
  }
  // Let transitions and late renders finish before the colours are measured.
  await page.waitForTimeout(400);
}

/** Runs axe-core on the whole page, adding its script first unless this document has it already. */
async function runAxe(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: Document, options: unknown): Promise<{ violations: Violation[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, TAGS);
}

async function check(
  ctx: BrowserContext,
  path: string,
  before?: (page: Page) => Promise<void>,
): Promise<Checked> {
  const page = await ctx.newPage();
  try {
    await page.goto(`${server.url}${path}`);
    return await examine(page, before);
  } finally {
    await page.close();
  }
}

/** The screen on `page` once settled (and after `before`), as axe-core finds it. */
async function examine(page: Page, before?: (page: Page) => Promise<void>): Promise<Checked> {
  await settle(page);
  await before?.(page);
  const violations = await runAxe(page);
  return {
    pathname: new URL(page.url()).pathname,
    heading: ((await page.locator('h1').first().textContent()) ?? '').trim(),
    violations,
  };
}

/**
 * The admin's page for the route checks, opened once: each screen is reached the way a person
 * reaches it after the first, inside the running app (the router follows the history change), so
 * the app is not started again for every screen. Screens with messages shown, /login and the call
 * states get pages of their own below.
 */
let inApp: Page | undefined;

async function checkInApp(path: string): Promise<Checked> {
  if (!inApp) {
    inApp = await admin.newPage();
    await inApp.goto(`${server.url}${path}`);
  } else {
    await navigateInApp(inApp, server.url, path);
  }
  return examine(inApp);
}

function describeViolations(violations: Violation[]): string {
  return violations
    .map(
      (v) =>
        `${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n` +
        v.nodes
          .slice(0, 5)
          .map((n) => `    ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`)
          .join('\n'),
    )
    .join('\n');
}

/** The seed's seventeen routes (and the main layout's four children), with real ids. */
const ROUTES: [string, string][] = [
  ['/', paths.home.build()],
  ['/contacts', paths.contacts.build()],
  ['/history', paths.history.build()],
  ['/hold', paths.hold.build()],
  ['/users', paths.users.build()],
  ['/admin', paths.admin.build()],
  ['/admin/audio', paths.adminAudio.build()],
  ['/admin/audio/create', paths.adminAudioCreate.build()],
  ['/admin/calendar/{id}/edit', paths.adminCalendarEdit.build(GROUP)],
  ['/admin/group', paths.adminGroups.build()],
  ['/admin/group/create', paths.adminGroupCreate.build()],
  ['/admin/group/{id}', paths.adminGroup.build(GROUP)],
  ['/admin/group/{id}/edit', paths.adminGroupEdit.build(GROUP)],
  ['/admin/group/{id}/forwarding/create', paths.adminGroupForwardingCreate.build(GROUP)],
  ['/admin/group/{id}/guidance', paths.adminGroupGuidance.build(GROUP)],
  ['/admin/guidance', paths.adminGuidance.build()],
  ['/admin/guidance/create', paths.adminGuidanceCreate.build()],
  ['/admin/guidance/{id}/edit', paths.adminGuidanceEdit.build(GUIDANCE)],
  ['/admin/schedule/{id}/edit', paths.adminScheduleEdit.build(GROUP)],
  ['/setting', paths.settings.build()],
];

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  const { cookie } = await apiSignIn(server.url, 'Ada Admin', 'ada@example.com');
  const tom = await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  await seedData(cookie);
  admin = await context(cookie);
  agent = await context(tom.cookie);
  third = await context((await apiSignIn(server.url, 'Sam Agent', 'sam@example.com')).cookie);
  visitor = await context(null);
});

afterAll(async () => {
  await inApp?.close();
  console.log(`axe-core (${TAGS.join(', ')}), violations per route:\n${counts.join('\n')}`);
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

function report(route: string, checked: Checked): void {
  const line = `  ${route.padEnd(38)} ${String(checked.violations.length).padStart(3)}  (${checked.heading})`;
  counts.push(line);
  console.log(line);
}

describe('axe-core finds no WCAG 2 A/AA violations', () => {
  it('reports what it should: an unlabelled field and an image without a text alternative', async () => {
    const checked = await check(admin, paths.contacts.build(), (page) =>
      page.evaluate(() => {
        const main = document.querySelector('main') ?? document.body;
        main.insertAdjacentHTML(
          'beforeend',
          '<input type="text" data-probe><img src="/favicon.ico" data-probe>',
        );
      }),
    );
    expect(checked.violations.map((v) => v.id)).toEqual(
      expect.arrayContaining(['label', 'image-alt']),
    );
  });

  it.each(ROUTES)('on %s as an admin', async (route, path) => {
    const checked = await checkInApp(path);
    report(route, checked);
    // The screen itself was checked, not a redirect or a not-found page.
    expect(checked.pathname).toBe(path);
    expect(checked.heading).not.toMatch(/not found/i);
    expect(checked.violations, describeViolations(checked.violations)).toEqual([]);
  });

  it('with messages shown: a refused group form and a refused extension', async () => {
    const form = await check(admin, paths.adminGroupCreate.build(), async (page) => {
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByText('Enter a name for the group.').waitFor();
    });
    report('/admin/group/create (errors shown)', form);
    expect(form.violations, describeViolations(form.violations)).toEqual([]);
    const users = await check(admin, paths.users.build(), async (page) => {
      const field = page.getByLabel('Extension of Tom Agent', { exact: true });
      await field.fill('1');
      await field.press('Enter');
      await page.getByTestId('extension-error').waitFor();
    });
    report('/users (extension refused)', users);
    expect(users.violations, describeViolations(users.violations)).toEqual([]);
  });

  it('with the holidays screen busy: a range picked, a refused holiday, an import preview', async () => {
    const checked = await check(admin, paths.adminCalendarEdit.build(GROUP), async (page) => {
      await page
        .getByRole('gridcell', { name: /Team retreat$/ })
        .first()
        .click();
      await page.getByLabel('Last day').fill('1999-01-01');
      await page.getByRole('button', { name: 'Add holiday' }).click();
      await page.getByText(/is before the first/).waitFor();
      await page.getByLabel('iCalendar file (.ics)').setInputFiles({
        name: 'more.ics',
        mimeType: 'text/calendar',
        buffer: Buffer.from(
          'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20990101\r\nSUMMARY:Far away\r\n' +
            'RRULE:FREQ=YEARLY\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:No date\r\nEND:VEVENT\r\n' +
            'END:VCALENDAR\r\n',
        ),
      });
      await page.getByTestId('ics-preview').waitFor();
    });
    report('/admin/calendar/{id}/edit (busy)', checked);
    expect(checked.violations, describeViolations(checked.violations)).toEqual([]);
  });

  it('on /login, signed out', async () => {
    const checked = await check(visitor, paths.login.build());
    report('/login', checked);
    expect(checked.pathname).toBe('/login');
    expect(checked.violations, describeViolations(checked.violations)).toEqual([]);
  });
});

describe('axe-core finds no violations in any call state', () => {
  let ada: Page;
  let tom: Page;
  let sam: Page;
  const card = (page: Page, status: string) =>
    page.locator(`[data-testid="call-card"][data-status="${status}"]`);

  async function phoneAt(ctx: BrowserContext, path: string): Promise<Page> {
    const page = await ctx.newPage();
    await page.goto(`${server.url}${path}`);
    await page
      .getByTestId('phone-status')
      .and(page.locator('[data-status="registered"]'))
      .waitFor({ timeout: 30_000 });
    return page;
  }

  async function checkPage(page: Page, label: string): Promise<void> {
    // Let transitions and late renders finish before the colours are measured.
    await page.waitForTimeout(400);
    const violations = await runAxe(page);
    const heading = ((await page.locator('h1').first().textContent()) ?? '').trim();
    report(label, { pathname: new URL(page.url()).pathname, heading, violations });
    expect(violations, `${label}\n${describeViolations(violations)}`).toEqual([]);
  }

  beforeAll(async () => {
    // The route checks' page holds Ada's phone (one tab of a person rings): it goes first.
    await inApp?.close();
    inApp = undefined;
    ada = await phoneAt(admin, paths.contacts.build());
    tom = await phoneAt(agent, paths.contacts.build());
    sam = await phoneAt(third, paths.contacts.build());
  });

  afterAll(async () => {
    await ada?.close();
    await tom?.close();
    await sam?.close();
  });

  it('ringing, in call, muted with the keypad, on hold, transferring and parked', async () => {
    await tom.getByTestId('dial-input').fill('ada@example.com');
    await tom.getByRole('button', { name: 'Call', exact: true }).click();
    const ringing = card(ada, 'incoming');
    await ringing.waitFor();
    await checkPage(ada, 'call: ringing here');
    await checkPage(tom, 'call: ringing there');

    await ringing.getByRole('button', { name: 'Accept' }).click();
    const open = card(ada, 'open');
    await open.waitFor();
    await card(tom, 'open').waitFor();
    await checkPage(ada, 'call: in call');

    await open.getByRole('button', { name: 'Mute', exact: true }).click();
    await open.getByRole('button', { name: 'Keypad', exact: true }).click();
    await open.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: '5' }).click();
    await checkPage(ada, 'call: muted, keypad open');
    await open.getByRole('button', { name: 'Keypad', exact: true }).click();
    await open.getByRole('button', { name: 'Mute', exact: true }).click();

    await open.getByRole('button', { name: 'Hold', exact: true }).click();
    await open.getByTestId('call-hold').filter({ hasText: 'On hold' }).waitFor();
    await card(tom, 'open').getByTestId('call-held-by-them').waitFor();
    await checkPage(ada, 'call: on hold');
    await checkPage(tom, 'call: held by them');
    await open.getByRole('button', { name: 'Hold', exact: true }).click();
    await expect
      .poll(() =>
        open.getByRole('button', { name: 'Hold', exact: true }).getAttribute('aria-pressed'),
      )
      .toBe('false');

    await open.getByRole('button', { name: 'Transfer', exact: true }).click();
    await open.getByRole('button', { name: 'Transfer now' }).click();
    await open.getByRole('alert').filter({ hasText: 'Type who to transfer' }).waitFor();
    await checkPage(ada, 'call: transfer form, nobody named');
    await open.getByLabel('Transfer to').fill('sam@example.com');
    await open.getByRole('button', { name: 'Talk first' }).click();
    await open.getByTestId('call-transfer').filter({ hasText: 'Calling' }).waitFor();
    await card(sam, 'incoming').waitFor();
    await checkPage(ada, 'call: transfer, calling them first');
    await checkPage(sam, 'call: transfer ringing');
    await open.getByRole('button', { name: 'Cancel transfer' }).click();
    await expect.poll(() => open.getByTestId('call-transfer').count()).toBe(0);

    await open.getByRole('button', { name: 'Park', exact: true }).click();
    await ada.getByTestId('call-ended').waitFor();
    await ada.getByRole('link', { name: /^Hold\b/ }).click();
    await ada.getByTestId('hold-row').waitFor();
    await checkPage(ada, 'call: parked (/hold)');
    await checkPage(tom, 'call: parked, waiting');

    await tom.getByRole('button', { name: 'Hang up' }).click();
    await tom.getByTestId('call-ended').waitFor();
    await checkPage(tom, 'call: ended');
  });
});
