/**
 * /hold in Chromium against the real server: calls parked through the SDK (as the softphone will
 * park them) show live with a running timer; when two people click Pick up at the same moment
 * exactly one gets the call, the other is told kindly, and the call leaves both lists.
 */
import type { Browser, Page } from 'playwright-core';
import type { SyncClient, SyncMap } from 'twilio-sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { sdkClientFor, signedInPage, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let ada: Person;
let tom: Person;
let parker: SyncClient;
let holds: SyncMap;

const TAKEN = 'A colleague already picked up this call.';
const pickedUp = (caller: string) =>
  `Picked up ${caller}. Audio connects when the softphone arrives.`;

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/hold');
  tom = await signedInPage(browser, server.url, 'Tom Agent', 'tom@example.com', '/hold');
  parker = await sdkClientFor(server.url, 'Pat Parker', 'pat@example.com');
  holds = await parker.map('holds');
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

const rowOf = (page: Page, callId: string) =>
  page.locator(`[data-testid="hold-row"][data-call="${callId}"]`);

function park(callId: string, caller: string, secondsAgo = 0) {
  return holds.set(callId, {
    caller,
    parkedBy: 'pat@example.com',
    parkedAt: Date.now() - secondsAgo * 1000,
  });
}

describe('calls on hold between two people', () => {
  it('starts with the empty state for both', async () => {
    await ada.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
    await tom.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
  });

  it('a parked call appears live with caller, who parked it and a running timer', async () => {
    await park('CA-timer', 'Grace Hopper', 65);
    const row = rowOf(tom.page, 'CA-timer');
    await row.waitFor();
    expect(await row.textContent()).toContain('Grace Hopper');
    // The parker's name comes from the users directory.
    await row.filter({ hasText: 'Parked by Pat Parker' }).waitFor();
    const timer = row.getByTestId('hold-timer');
    const first = await timer.textContent();
    expect(first).toMatch(/^01:0[5-9]$/);
    await expect.poll(() => timer.textContent(), { timeout: 4000 }).not.toBe(first);
    await rowOf(ada.page, 'CA-timer').waitFor();
  });

  it('the longest-waiting call is listed first', async () => {
    await park('CA-newer', 'Alan Turing', 5);
    await rowOf(ada.page, 'CA-newer').waitFor();
    const order = await ada.page
      .getByTestId('hold-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call')));
    expect(order).toEqual(['CA-timer', 'CA-newer']);
  });

  it('two people pick up the same call at once: exactly one wins, the other is told kindly', async () => {
    await park('CA-race', 'Katherine Johnson');
    const adaButton = rowOf(ada.page, 'CA-race').getByRole('button', {
      name: 'Pick up Katherine Johnson',
    });
    const tomButton = rowOf(tom.page, 'CA-race').getByRole('button', {
      name: 'Pick up Katherine Johnson',
    });
    await adaButton.waitFor();
    await tomButton.waitFor();

    // Playwright's clicks run one after the other closely enough that the winner's removal can
    // detach the second button before it is pressed. Both browsers press at one agreed instant.
    const at = Date.now() + 300;
    const pressAt = (el: HTMLElement, when: number) =>
      new Promise<void>((resolve) =>
        setTimeout(
          () => {
            el.click();
            resolve();
          },
          Math.max(0, when - Date.now()),
        ),
      );
    await Promise.all([adaButton.evaluate(pressAt, at), tomButton.evaluate(pressAt, at)]);

    const toastText = async (page: Page) => {
      const toast = page.getByTestId('toast');
      await toast.waitFor();
      return toast.textContent();
    };
    const texts = await Promise.all([toastText(ada.page), toastText(tom.page)]);
    expect(texts.filter((t) => t === pickedUp('Katherine Johnson'))).toHaveLength(1);
    expect(texts.filter((t) => t === TAKEN)).toHaveLength(1);

    // The call leaves both lists; the others stay.
    await rowOf(ada.page, 'CA-race').waitFor({ state: 'detached', timeout: 5000 });
    await rowOf(tom.page, 'CA-race').waitFor({ state: 'detached', timeout: 5000 });
    expect(await ada.page.getByTestId('hold-row').count()).toBe(2);
    expect((await holds.getItems({})).items.map((i) => i.key).sort()).toEqual([
      'CA-newer',
      'CA-timer',
    ]);
    // Whether the loser lost on the revision (412) or read the claim first depends on timing;
    // tests/integration/users-presence-holds.test.ts asserts the 412 path.
  });

  it('a call picked up by one disappears for the other, and the list ends empty', async () => {
    await tom.page.getByRole('button', { name: 'Pick up Grace Hopper' }).click();
    await tom.page
      .getByTestId('toast')
      .filter({ hasText: pickedUp('Grace Hopper') })
      .waitFor();
    await rowOf(ada.page, 'CA-timer').waitFor({ state: 'detached', timeout: 5000 });
    await ada.page.getByRole('button', { name: 'Pick up Alan Turing' }).press('Enter');
    await ada.page
      .getByTestId('toast')
      .filter({ hasText: pickedUp('Alan Turing') })
      .waitFor();
    await ada.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
    await tom.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
    expect(ada.errors).toEqual([]);
    expect(tom.errors).toEqual([]);
  });
});
