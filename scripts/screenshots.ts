/**
 * `npm run screenshots`: every screen and call state, as a seeded team meets them, written to
 * docs/screens/ for reviewers. It starts the real server (embedded backend, a fresh data folder)
 * and Debian's Chromium with fake microphones. A team of three signs in: Ann Morgan (the first, so
 * the admin), Ben Agent and Cat Lee. It stores two ring groups and two contacts, then makes real
 * calls: ringing, in a call, on hold, parked and picked up, an attended transfer, and a voicemail.
 *
 * Each picture is taken on its own. One that cannot be taken is reported, and the rest go on; the
 * script exits 1 if any was missed.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CONTACTS } from '../src/contracts/objects';
import { launchChromium } from '../tests/support/chromium';
import { saveGroup } from '../tests/support/ring-groups';
import { startServer } from '../tests/support/server';
import { adminApiFor, signedInPage, type Person } from '../tests/e2e/support/live';

const OUT = resolve(import.meta.dirname, '../docs/screens');
const WIDTH = 1280;
const HEIGHT = 800;

const missed: string[] = [];
let count = 0;

async function shot(page: Page, name: string, prepare?: () => Promise<unknown>): Promise<void> {
  try {
    if (prepare) await prepare();
    await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
    count += 1;
    console.log(`  ${name}.png`);
  } catch (err) {
    missed.push(`${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    console.log(`  ${name}: MISSED`);
  }
}

/** A run of steps whose pictures depend on each other: a failure skips the rest of the run only. */
async function stage(name: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    missed.push(
      `${name} (stopped): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
    console.log(`  ${name}: STOPPED`);
  }
}

async function visit(page: Page, url: string, heading?: string): Promise<void> {
  await page.goto(url);
  if (heading)
    await page.getByRole('heading', { name: heading }).first().waitFor({ timeout: 10_000 });
}

async function person(
  browser: Browser,
  base: string,
  name: string,
  email: string,
): Promise<Person> {
  const p = await signedInPage(browser, base, name, email, '/contacts');
  await p.page.setViewportSize({ width: WIDTH, height: HEIGHT });
  await p.context.grantPermissions(['microphone']);
  await p.page
    .getByTestId('phone-status')
    .and(p.page.locator('[data-status="registered"]'))
    .waitFor({ timeout: 30_000 });
  return p;
}

const card = (p: Person, status: string) =>
  p.page.locator(`[data-testid="call-card"][data-status="${status}"]`);

async function dial(p: Person, what: string): Promise<void> {
  const input = p.page.getByTestId('dial-input');
  await input.fill(what);
  await p.page.getByRole('button', { name: 'Call', exact: true }).click();
}

async function dismissAll(p: Person): Promise<void> {
  const dismiss = p.page.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const server = await startServer({
    env: { SWITCHBOARD_VOICE_RING_SECONDS: '30', SWITCHBOARD_VOICE_PARK_SECONDS: '120' },
  });
  const browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  try {
    const base = server.url;
    console.log(`screenshots of ${base} into docs/screens/`);

    const login = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    await shot(login, 'login', () => visit(login, `${base}/login`));
    await login.close();

    const ann = await person(browser, base, 'Ann Morgan', 'ann@example.com');
    const ben = await person(browser, base, 'Ben Agent', 'ben@example.com');
    const cat = await person(browser, base, 'Cat Lee', 'cat@example.com');

    // Groups through the API, as the group form makes them (only the server creates Sync objects).
    const admin = await adminApiFor(base, 'Ann Morgan', 'ann@example.com');
    const sync = admin.sync;
    try {
      await saveGroup(admin, {
        id: 'sales',
        name: 'Sales',
        number: '300',
        members: ['ben@example.com', 'cat@example.com'],
        strategy: 'sequential',
        ringTimeout: 20,
      });
      await saveGroup(admin, {
        id: 'support',
        name: 'Support',
        number: '301',
        members: ['cat@example.com'],
        week: {},
      });
      const contacts = await sync.map(CONTACTS.name);
      await contacts.set('c-acme', {
        name: 'Priya Shah',
        company: 'Acme Logistics',
        phones: [
          { label: 'Office', number: '+442079460958' },
          { label: 'Mobile', number: '+447700900123' },
        ],
        email: 'priya@acme.example',
        note: 'Prefers calls after 10:00.',
      });
      await contacts.set('c-north', {
        name: 'Tom Baker',
        company: 'Northwind',
        phones: [{ label: 'Work', number: '+14155550100' }],
        email: '',
        note: '',
      });
    } finally {
      await sync.shutdown();
    }

    // Screens as the admin sees them.
    const a = ann.page;
    await shot(a, 'contacts', () => visit(a, `${base}/contacts`, 'Contacts'));
    await shot(a, 'users', () => visit(a, `${base}/users`));
    await shot(a, 'hold-empty', () => visit(a, `${base}/hold`));
    await shot(a, 'settings', () => visit(a, `${base}/setting`));
    await shot(a, 'admin', () => visit(a, `${base}/admin`));
    await shot(a, 'admin-groups', () => visit(a, `${base}/admin/group`));
    await shot(a, 'admin-group', () => visit(a, `${base}/admin/group/sales`));
    await shot(a, 'admin-group-edit', () => visit(a, `${base}/admin/group/sales/edit`));
    await shot(a, 'admin-group-create', () => visit(a, `${base}/admin/group/create`));
    await shot(a, 'admin-group-forwarding', () =>
      visit(a, `${base}/admin/group/sales/forwarding/create`),
    );
    await shot(a, 'admin-schedule', () => visit(a, `${base}/admin/schedule/sales/edit`));
    await shot(a, 'admin-calendar', () => visit(a, `${base}/admin/calendar/sales/edit`));
    await shot(a, 'admin-announcements', () => visit(a, `${base}/admin/guidance`));
    await shot(a, 'admin-announcement-create', () => visit(a, `${base}/admin/guidance/create`));
    await shot(a, 'admin-audio', () => visit(a, `${base}/admin/audio`));
    await shot(a, 'admin-audio-create', () => visit(a, `${base}/admin/audio/create`));
    await visit(a, `${base}/contacts`, 'Contacts');

    // Call states: Ann calls Ben.
    await stage('calls', async () => {
      await dial(ann, 'Ben Agent');
      await shot(ben.page, 'call-ringing', () =>
        card(ben, 'incoming').waitFor({ timeout: 15_000 }),
      );
      await shot(ann.page, 'call-ringing-out');
      await card(ben, 'incoming').getByRole('button', { name: 'Accept' }).click();
      await shot(ben.page, 'call-in-call', () =>
        card(ben, 'open').getByTestId('call-timer').waitFor(),
      );
      await card(ben, 'open').getByRole('button', { name: 'Hold', exact: true }).click();
      await shot(ben.page, 'call-on-hold', () =>
        card(ben, 'open')
          .getByRole('button', { name: 'Hold', exact: true, pressed: true })
          .waitFor(),
      );
      await shot(ann.page, 'call-held-by-other', () =>
        card(ann, 'open').getByTestId('call-held-by-them').waitFor(),
      );
      // Hold is a toggle (aria-pressed): pressing it again resumes.
      await card(ben, 'open').getByRole('button', { name: 'Hold', exact: true }).click();
      await card(ben, 'open')
        .getByRole('button', { name: 'Hold', exact: true, pressed: false })
        .waitFor();
      await card(ben, 'open').getByRole('button', { name: 'Park', exact: true }).click();
      await shot(cat.page, 'hold-parked', () =>
        visit(cat.page, `${base}/hold`).then(() =>
          cat.page
            .getByRole('button', { name: /^Pick up/ })
            .first()
            .waitFor({ timeout: 10_000 }),
        ),
      );
      await cat.page
        .getByRole('button', { name: /^Pick up/ })
        .first()
        .click();
      await shot(cat.page, 'call-picked-up', () => card(cat, 'open').waitFor({ timeout: 15_000 }));

      // Cat talks to Ben first, then hands Ann over.
      await dismissAll(ben);
      const catCard = card(cat, 'open');
      await catCard.getByRole('button', { name: 'Transfer', exact: true }).click();
      await catCard.getByLabel('Transfer to').fill('Ben Agent');
      await shot(cat.page, 'call-transfer-form');
      await catCard.getByRole('button', { name: 'Talk first' }).click();
      await card(ben, 'incoming')
        .getByRole('button', { name: 'Accept' })
        .click({ timeout: 15_000 });
      await shot(cat.page, 'call-transfer-consult', () => card(ben, 'open').waitFor());
      await cat.page.getByRole('button', { name: 'Hang up' }).first().click();
      await shot(ben.page, 'call-after-transfer', () => card(ben, 'open').waitFor());
      await ben.page.getByRole('button', { name: 'Hang up' }).first().click();
      await ann.page.getByTestId('call-ended').waitFor({ timeout: 15_000 });
    });
    for (const p of [ann, ben, cat]) await dismissAll(p);

    // A voicemail: Support is closed, so Ann's call is answered by its voicemail.
    await stage('voicemail', async () => {
      await dial(ann, '301');
      await card(ann, 'open').waitFor({ timeout: 15_000 });
      await ann.page.waitForTimeout(9_000);
      await ann.page.getByRole('button', { name: 'Hang up' }).first().click();
      await dismissAll(ann);
    });
    await shot(cat.page, 'history', () =>
      visit(cat.page, `${base}/history`).then(() => cat.page.waitForTimeout(1_500)),
    );
    await cat.page.setViewportSize({ width: 390, height: 844 });
    await shot(cat.page, 'history-390');
    await shot(cat.page, 'contacts-390', () => visit(cat.page, `${base}/contacts`, 'Contacts'));
  } finally {
    await browser.close();
    await server.stop();
    server.cleanup();
  }
  console.log(`${count} pictures written${missed.length ? `; ${missed.length} missed:` : ''}`);
  for (const m of missed) console.log(`  ${m}`);
  if (missed.length) process.exitCode = 1;
}

await main();
