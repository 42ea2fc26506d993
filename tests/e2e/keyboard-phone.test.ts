/**
 * The phone with the keyboard alone, in Chromium against the real server and voice service. Ann,
 * the person under test, only ever presses keys (`keyboard.press`, one key at a time, never a click
 * or a `focus()`): she signs in on the login form, places a call and hangs up, answers one, holds and
 * resumes it, parks it, picks it up from /hold and transfers it, and after each step focus is where
 * she would look next, and visibly so. Her colleagues are driven however is shortest. Also: the "?"
 * list of shortcuts, the keypad's typed digits, the skip link to the phone, and an admin issuing a
 * colleague's sign-in code that the colleague then signs in with (an agent may not: 403).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn } from '../model/support/app';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;
let bob: Person;
let cat: Person;
let ann: Page;

const registered = (page: Page) =>
  page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({
    env: { SWITCHBOARD_DIST: dist.dir, SWITCHBOARD_VOICE_RING_SECONDS: '20' },
  });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  // Ada signs in first: the team's admin.
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/users');
  bob = await signedInPage(browser, server.url, 'Bob Agent', 'bob@example.com', '/contacts');
  cat = await signedInPage(browser, server.url, 'Cat Agent', 'cat@example.com', '/contacts');
  for (const p of [ada, bob, cat]) {
    await p.context.grantPermissions(['microphone']);
    await registered(p.page);
  }
  const context = await browser.newContext();
  await context.grantPermissions(['microphone']);
  ann = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

/** Types `text` one key press at a time. */
async function press(page: Page, text: string): Promise<void> {
  for (const key of text) await page.keyboard.press(key);
}

const isFocused = (target: Locator): Promise<boolean> =>
  target.evaluate((el) => el === document.activeElement);

/** Presses Tab (or Shift+Tab) until `target` has the focus. */
async function tabTo(page: Page, target: Locator, { back = false, max = 60 } = {}): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  const html = await target.evaluate((el) => el.outerHTML.slice(0, 120));
  throw new Error(`Not reached with the keyboard in ${max} presses: ${html}`);
}

/** What has the focus: its test id or accessible-ish name, and whether the focus ring shows. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      testId: el?.getAttribute('data-testid') ?? null,
      // Its name as read out: the label, not the shortcut hint beside it (hidden from readers).
      text: (() => {
        if (!el) return '';
        const label = el.getAttribute('aria-label');
        if (label !== null) return label.trim();
        const copy = el.cloneNode(true) as HTMLElement;
        copy.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
        return (copy.textContent ?? '').trim();
      })(),
      pressed: el?.getAttribute('aria-pressed') ?? null,
      tag: el?.tagName.toLowerCase() ?? null,
      inCard: Boolean(el?.closest('[data-testid="call-card"]')),
      visible: el !== null && el !== document.body && el.matches(':focus-visible'),
    };
  });

async function expectFocus(page: Page, want: Partial<Awaited<ReturnType<typeof focused>>>) {
  await expect.poll(() => focused(page)).toMatchObject({ ...want, visible: true });
}

const card = (page: Page, status: string) =>
  page.locator(`[data-testid="call-card"][data-status="${status}"]`);

/** Ann dismisses her ended calls with the keyboard: focus goes back to the dial box each time. */
async function dismissByKeyboard(): Promise<void> {
  const dismiss = ann.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) {
    await tabTo(ann, dismiss.first());
    await ann.keyboard.press('Enter');
    await expectFocus(ann, { testId: 'dial-input' });
  }
}

async function dismissEnded(page: Page): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

describe('the phone with the keyboard alone', () => {
  it('signs in on the login form', async () => {
    await ann.goto(`${server.url}/login`);
    await tabTo(ann, ann.getByLabel('Name'));
    await press(ann, 'Ann Agent');
    await tabTo(ann, ann.getByLabel('Email'));
    await press(ann, 'ann@example.com');
    await ann.keyboard.press('Enter');
    await registered(ann);
  });

  it('reaches the phone with the skip link', async () => {
    await ann.goto(`${server.url}/contacts`);
    await registered(ann);
    await ann.keyboard.press('Tab');
    await ann.keyboard.press('Tab');
    await expectFocus(ann, { text: 'Skip to the phone' });
    await ann.keyboard.press('Enter');
    await expect.poll(() => ann.evaluate(() => document.activeElement?.id)).toBe('phone');
    await ann.keyboard.press('Tab');
    await expectFocus(ann, { testId: 'dial-input' });
  });

  it('places a call from the dial box and hangs up: focus goes back to the dial box', async () => {
    // The dial box's shortcut, from anywhere.
    await ann.keyboard.press('Alt+Shift+KeyD');
    await expectFocus(ann, { testId: 'dial-input' });
    await press(ann, 'Bob Agent');
    await ann.keyboard.press('Enter');
    await card(bob.page, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await card(ann, 'open').waitFor();
    await tabTo(ann, card(ann, 'open').getByRole('button', { name: 'Hang up' }));
    await ann.keyboard.press('Enter');
    await card(ann, 'ended').waitFor();
    await expectFocus(ann, { testId: 'dial-input' });
    await dismissEnded(bob.page);
  });

  it('answers a call: focus moves from Accept to the call’s controls', async () => {
    await dismissByKeyboard();
    await bob.page.getByTestId('dial-input').fill('Ann Agent');
    await bob.page.getByTestId('dial-input').press('Enter');
    await tabTo(ann, card(ann, 'incoming').getByRole('button', { name: 'Accept' }));
    await ann.keyboard.press('Enter');
    await card(ann, 'open').waitFor();
    await expectFocus(ann, { inCard: true, text: 'Hang up' });
  });

  it('holds and resumes: focus stays on Hold, pressed, then not', async () => {
    await tabTo(ann, card(ann, 'open').getByRole('button', { name: 'Hold' }), { back: true });
    await ann.keyboard.press('Enter');
    await ann.getByTestId('call-hold').filter({ hasText: 'On hold' }).waitFor();
    await expectFocus(ann, { inCard: true, text: 'Hold', pressed: 'true' });
    await ann.keyboard.press('Enter');
    await expect.poll(() => ann.getByTestId('call-hold').count()).toBe(0);
    await expectFocus(ann, { inCard: true, text: 'Hold', pressed: 'false' });
  });

  it('parks the call: focus goes back to the dial box', async () => {
    await tabTo(ann, card(ann, 'open').getByRole('button', { name: 'Park' }));
    await ann.keyboard.press('Enter');
    await card(ann, 'ended').waitFor();
    await expectFocus(ann, { testId: 'dial-input' });
    await dismissByKeyboard();
  });

  it('picks the call up on /hold: focus moves to the picked-up call', async () => {
    await tabTo(
      ann,
      ann.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Hold' }),
      {
        back: true,
      },
    );
    await ann.keyboard.press('Enter');
    const pickUp = ann.getByRole('button', { name: /^Pick up / });
    await tabTo(ann, pickUp);
    await ann.keyboard.press('Enter');
    await card(ann, 'open').waitFor();
    await expectFocus(ann, { inCard: true, text: 'Hang up' });
  });

  it('transfers the call at once: focus goes to the box, then back to the dial box', async () => {
    await tabTo(ann, card(ann, 'open').getByRole('button', { name: 'Transfer' }), { back: true });
    await ann.keyboard.press('Enter');
    await expectFocus(ann, { tag: 'input', inCard: true });
    await press(ann, 'Cat Agent');
    await ann.keyboard.press('Enter');
    await card(cat.page, 'incoming').getByRole('button', { name: 'Accept' }).click();
    await card(cat.page, 'open').waitFor();
    await card(ann, 'ended').waitFor();
    await expectFocus(ann, { testId: 'dial-input' });
    await dismissByKeyboard();
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await card(cat.page, 'ended').waitFor();
  });

  it('sends typed digits while the keypad is open, and lists the shortcuts on "?"', async () => {
    // Cat hung up on Bob just before: his call ends once the server tells his page (later on a busy
    // machine); a dial while it is still open would place no call.
    await expect
      .poll(() => bob.page.locator('[data-testid="call-card"]:not([data-status="ended"])').count())
      .toBe(0);
    await dismissEnded(bob.page);
    await bob.page.getByTestId('dial-input').fill('Ann Agent');
    await bob.page.getByTestId('dial-input').press('Enter');
    // The answer shortcut, from wherever focus is.
    await card(ann, 'incoming').waitFor();
    await ann.keyboard.press('Alt+Shift+KeyY');
    await card(ann, 'open').waitFor();
    await tabTo(ann, card(ann, 'open').getByRole('button', { name: 'Keypad' }), { back: true });
    await ann.keyboard.press('Enter');
    await ann.keyboard.press('1');
    await ann.keyboard.press('2');
    await ann.keyboard.press('Shift+Digit3'); // #
    await ann.keyboard.press('*');
    await expect.poll(() => ann.locator('.keypad__digits').textContent()).toBe('12#*');

    await ann.keyboard.press('Shift+Slash');
    const dialog = ann.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await expectFocus(ann, { text: 'Close' });
    expect(await dialog.getByTestId('shortcut-help-mute').textContent()).toContain('Alt+Shift+U');
    expect(await dialog.getByTestId('shortcut-help-dial').textContent()).toContain('Alt+Shift+D');
    // Digits typed while the list is open are not tones; Escape closes it, focus returns.
    await ann.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await expectFocus(ann, { inCard: true });
    // "?" typed into a text field is just a character.
    await ann.keyboard.press('Alt+Shift+KeyD');
    await ann.keyboard.press('Shift+Slash');
    expect(await ann.getByTestId('dial-input').inputValue()).toBe('?');
    expect(await ann.getByRole('dialog').count()).toBe(0);
    await ann.keyboard.press('Backspace');
    await ann.keyboard.press('Alt+Shift+KeyH');
    await card(ann, 'ended').waitFor();
  });
});

describe('a sign-in code issued by an admin', () => {
  it('Ada issues Dan’s code on /users; Dan signs in with it on a new browser; the message shows once', async () => {
    await apiSignIn(server.url, 'Dan Agent', 'dan@example.com');
    const { page } = ada;
    await page.goto(`${server.url}/users`);
    await page.getByRole('button', { name: 'Sign-in code for Dan Agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign-in code for Dan Agent' });
    await dialog.getByRole('button', { name: 'Issue a code' }).click();
    const code = (await dialog.getByTestId('sign-in-code').textContent()) ?? '';
    expect(code).toMatch(/^\d{8}$/);
    await dialog.getByRole('button', { name: 'Close' }).click();

    const context = await browser.newContext();
    const dan = await context.newPage();
    await dan.goto(`${server.url}/login`);
    await dan.getByLabel('Name').fill('Dan Agent');
    await dan.getByLabel('Email').fill('dan@example.com');
    await dan.getByRole('button', { name: 'Sign in' }).click();
    const codeField = dan.getByLabel('Sign-in code');
    await codeField.waitFor();
    // The server's message once, beside the form (no toast saying it again).
    await dan.getByTestId('sign-in-error').filter({ hasText: 'ask an admin' }).waitFor();
    expect(await dan.getByText(/already has an account here/).count()).toBe(1);
    await codeField.fill(code);
    await dan.getByRole('button', { name: 'Sign in' }).click();
    await dan.getByTestId('phone-status').waitFor();
    await context.close();
  });

  it('refuses the route to an agent (403) and changes nothing', async () => {
    const { cookie } = await apiSignIn(server.url, 'Bob Agent', 'bob@example.com');
    const res = await fetch(`${server.url}/api/users/dan%40example.com/sign-in-code`, {
      method: 'POST',
      headers: { cookie: `sb_session=${cookie}`, origin: server.url },
    });
    expect(res.status).toBe(403);
    // And an agent's /users has no such button.
    await bob.page.goto(`${server.url}/users`);
    await bob.page.getByTestId('users-table').waitFor();
    expect(await bob.page.getByRole('button', { name: /^Sign-in code/ }).count()).toBe(0);
  });
});
