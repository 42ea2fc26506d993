/**
 * The softphone as new users meet it: people signed in through the real app in Chromium (fake
 * microphone), calling each other from the dial box, with the audio each page receives measured
 * from the page's own peer connections.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS } from '../../src/contracts/objects';
import { launchChromium } from '../support/chromium';
import { saveGroup } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { numberCallEnd } from './support/cards';
import { adminApiFor, sdkClientFor, signedInPage, type Person } from './support/live';
import { inbound, TRACK_PCS } from './support/page-audio';
import { eventually } from './support/phone';

let server: RunningServer;
let browser: Browser;
let ann: Person;
let bob: Person;

const until = eventually;

async function openPerson(name: string): Promise<Person> {
  const person = await signedInPage(
    browser,
    server.url,
    name,
    `${name.toLowerCase()}@example.com`,
    '/contacts',
  );
  await person.context.grantPermissions(['microphone']);
  return person;
}

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_VOICE_RING_SECONDS: '8' } });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  ann = await openPerson('Ann');
  bob = await openPerson('Bob');
  for (const p of [ann, bob]) {
    await p.page.addInitScript(TRACK_PCS);
    await p.page.reload();
    await p.page
      .getByTestId('phone-status')
      .and(p.page.locator('[data-status="registered"]'))
      .waitFor();
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

describe('calling a colleague from the softphone', () => {
  it('Ann calls Bob by name; Bob sees Ann ringing, accepts, audio flows both ways, Ann hangs up', async () => {
    await ann.page.getByTestId('dial-input').fill('Bob');
    await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
    const card = bob.page.getByTestId('call-card');
    await card.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    await expect(card.getAttribute('data-status')).resolves.toBe('incoming');
    await card.getByRole('button', { name: 'Accept' }).click();
    await ann.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await until(
      () => inbound(ann.page),
      (s) => s.packets > 50 && s.level > 0.01,
    );
    await until(
      () => inbound(bob.page),
      (s) => s.packets > 50 && s.level > 0.01,
    );
    await ann.page.getByTestId('call-timer').waitFor();
    await ann.page.getByRole('button', { name: 'Hang up' }).click();
    await bob.page.getByTestId('call-ended').waitFor();
    await ann.page.getByTestId('call-ended').waitFor();
    expect(ann.errors).toEqual([]);
  });
});

async function dialFrom(person: Person, to: string): Promise<void> {
  await person.page.getByTestId('dial-input').fill(to);
  await person.page.getByRole('button', { name: 'Call', exact: true }).click();
}

async function dismissAll(person: Person): Promise<void> {
  const dismiss = person.page.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

describe('calling by extension', () => {
  it("Ann dials Bob's extension, offered by the dial box; Bob rings with Ann's name and answers; a group's number is routed", async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    // Ann signed in first (100), Bob second: the dial box offers Bob under his extension.
    await ann.page.getByTestId('dial-input').fill('101');
    const offered = ann.page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option');
    await expect.poll(() => offered.allTextContents()).toEqual(['Bobext. 101']);
    await dialFrom(ann, '101');
    const card = bob.page.locator('[data-testid="call-card"][data-status="incoming"]');
    await card.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    await card.getByRole('button', { name: 'Accept' }).click();
    await ann.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    expect(await ann.page.getByTestId('call-card').textContent()).toContain('Bob');
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await dismissAll(ann);
    await dismissAll(bob);
    expect(ann.errors).toEqual([]);

    // A ring group's number is routed: this group has no hours yet, so it is closed and Ann is
    // offered its voicemail (Bob, its member, does not ring).
    // Made as the group form makes it (POST /api/groups/:id), by Ann, the admin.
    const admin = await adminApiFor(server.url, 'Ann', 'ann@example.com');
    try {
      await saveGroup(admin, {
        id: 'grp-sales',
        name: 'Sales',
        number: '300',
        members: ['bob@example.com'],
        week: {},
      });
    } finally {
      await admin.sync.shutdown();
    }
    await dialFrom(ann, '300');
    await ann.page
      .locator('[data-testid="call-card"][data-status="open"]')
      .getByTestId('call-routing')
      .filter({ hasText: 'Voicemail' })
      .waitFor();
    expect(await bob.page.getByTestId('call-card').count()).toBe(0);
    await ann.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await dismissAll(ann);
    await dialFrom(ann, '199');
    await ann.page
      .getByTestId('call-ended')
      .filter({ hasText: 'Nobody has extension 199' })
      .waitFor();
    // (The SDK logs each refused call as a console error: expected here.)
    await dismissAll(ann);
    expect(await bob.page.getByTestId('call-card').count()).toBe(0);
  });
});

describe('calls that do not connect', () => {
  it('Bob rejects: Ann reads that Bob declined', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    await dialFrom(ann, 'Bob');
    const card = bob.page.locator('[data-testid="call-card"][data-status="incoming"]');
    await card.getByRole('button', { name: 'Reject' }).click();
    await ann.page
      .getByTestId('call-ended')
      .filter({ hasText: 'Bob declined the call.' })
      .waitFor();
  });

  it('Ann cancels while it rings: Bob stops ringing', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    await dialFrom(ann, 'Bob');
    await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    await ann.page.getByRole('button', { name: 'Hang up' }).click();
    await bob.page.locator('[data-testid="call-card"][data-status="ended"]').waitFor();
    expect(
      await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').count(),
    ).toBe(0);
  });

  it('Bob in do not disturb, an unknown name and a phone number each end at once with a reason', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    const toggle = bob.page.getByTestId('dnd-toggle');
    await toggle.check();
    try {
      // Saved, not only shown: the control stops being busy once the settings document has it.
      await bob.page.locator('[data-testid="dnd-toggle"]:not([aria-busy="true"])').waitFor();
      expect(await toggle.isChecked()).toBe(true);
      const cases: [string, string][] = [
        ['Bob', 'Bob is not taking calls (do not disturb).'],
        ['+1 415 555 0100', numberCallEnd('+14155550100')],
      ];
      for (const [to, reason] of cases) {
        await dialFrom(ann, to);
        await ann.page.getByTestId('call-ended').filter({ hasText: reason }).waitFor();
        await dismissAll(ann);
      }
      // The history keeps the call to Bob as do not disturb (not busy), on both backends.
      const history = await sdkClientFor(server.url, 'Ann', 'ann@example.com');
      try {
        const calls = await history.list({ id: CALLS.name, mode: 'open_existing' });
        const lastToBob = async () =>
          (await calls.getItems({ order: 'desc', pageSize: 10 })).items
            .map((i) => i.data as { callee: string | null; outcome: string })
            .find((r) => r.callee === 'bob@example.com')?.outcome;
        await expect.poll(lastToBob, { timeout: 10_000 }).toBe('doNotDisturb');
      } finally {
        await history.shutdown();
      }
      // A name nobody has, or a number that cannot be one, is refused in the dial box: no call.
      await dialFrom(ann, 'Nobody Here');
      await ann.page
        .getByTestId('dial-problem')
        .filter({ hasText: 'Nobody on the team or in the contacts is called "Nobody Here".' })
        .waitFor();
      await dialFrom(ann, '+1 555 0100');
      await ann.page
        .getByTestId('dial-problem')
        .filter({ hasText: '+1 555 0100 is too short for a phone number.' })
        .waitFor();
      expect(await ann.page.getByTestId('call-card').count()).toBe(0);
      // A shared contact, found by name in the dial box, dials its number under its name.
      const sync = await sdkClientFor(server.url, 'Ann', 'ann@example.com');
      try {
        const contacts = await sync.map({ id: 'contacts', mode: 'open_or_create' });
        await contacts.set('acme', {
          name: 'Acme Ltd',
          company: '',
          // Stored as the contact form stores it (the server puts any other spelling right).
          phones: [{ label: 'office', number: '+442079460000' }],
          email: '',
          note: '',
        });
      } finally {
        await sync.shutdown();
      }
      await ann.page.getByTestId('dial-input').fill('acme');
      await ann.page
        .getByRole('listbox', { name: 'Suggestions' })
        .getByRole('option', { name: /Acme Ltd/ })
        .waitFor();
      await dialFrom(ann, 'acme ltd');
      const card = ann.page.getByTestId('call-card').filter({ hasText: 'Acme Ltd' });
      await card
        .getByTestId('call-ended')
        .filter({ hasText: numberCallEnd('+442079460000') })
        .waitFor();
      expect(await card.textContent()).toContain('+442079460000');
      await dismissAll(ann);
      expect(await bob.page.getByTestId('call-card').count()).toBe(0);
    } finally {
      // The tests after this one need Bob taking calls again, whatever happened above.
      await toggle.uncheck();
      await bob.page.locator('[data-testid="dnd-toggle"]:not([aria-busy="true"])').waitFor();
    }
  });

  it('a second tab of Bob does not ring: it shows the call of the tab holding the phone, acts on it there, and can take the phone over', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    const second = await bob.context.newPage();
    await second.goto(`${server.url}/users`);
    await second.locator('[data-testid="phone-status"][data-status="follower"]').waitFor();
    await dialFrom(ann, 'Bob');
    await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    // The second tab has no phone of its own: it shows the first tab's call, marked as elsewhere.
    const mirrored = second.locator('[data-testid="call-card"][data-elsewhere="true"]');
    await mirrored.and(second.locator('[data-status="incoming"]')).waitFor();
    expect(await second.locator('[data-testid="call-card"]:not([data-elsewhere])').count()).toBe(0);
    // Accepted there, the call opens in the tab with the phone (where the sound is); both show it.
    await mirrored.getByRole('button', { name: 'Accept' }).click();
    await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await ann.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await mirrored.and(second.locator('[data-status="open"]')).waitFor();
    await mirrored.getByRole('button', { name: 'Mute' }).click();
    await bob.page.getByRole('button', { name: 'Mute', pressed: true }).waitFor();
    // Hung up from the second tab: the call ends everywhere.
    await mirrored.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await bob.page.locator('[data-testid="call-card"][data-status="ended"]').waitFor();
    await mirrored.and(second.locator('[data-status="ended"]')).waitFor();
    await mirrored.getByRole('button', { name: 'Dismiss' }).click();
    await dismissAll(bob);
    await expect.poll(() => second.getByTestId('call-card').count()).toBe(0);
    // Taking the phone over moves the registration to the second tab.
    await second.getByRole('button', { name: 'Use the phone here' }).click();
    await second.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    await bob.page.locator('[data-testid="phone-status"][data-status="follower"]').waitFor();
    await dismissAll(ann);
    await dialFrom(ann, 'Bob');
    await second.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    await second.getByRole('button', { name: 'Reject' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    // Closing the tab that holds the phone hands it back to the one left, with nothing to click.
    await second.close();
    await bob.page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
  });

  it('a call to a hidden tab raises a notification with Accept and Reject, and Accept answers it', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    await bob.context.grantPermissions(['notifications'], { origin: server.url });
    // The tab goes out of sight (headless Chromium cannot hide a page, so its visibility is set).
    await bob.page.evaluate(() =>
      Object.defineProperty(document, 'visibilityState', {
        get: () => 'hidden',
        configurable: true,
      }),
    );
    try {
      await dialFrom(ann, 'Bob');
      await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
      const shown = () =>
        bob.page.evaluate(async () => {
          const worker = await navigator.serviceWorker.ready;
          return (await worker.getNotifications()).map((n) => ({
            title: n.title,
            body: n.body,
            callId: (n.data as { callId: string }).callId,
            actions: (
              (n as unknown as { actions: { action: string; title: string }[] }).actions ?? []
            ).map((a) => `${a.action}:${a.title}`),
          }));
        });
      await expect.poll(async () => (await shown()).length).toBe(1);
      const [note] = await shown();
      expect(note).toMatchObject({
        title: 'Incoming call',
        body: 'Ann',
        actions: ['accept:Accept', 'reject:Reject'],
      });
      // What the service worker sends when Accept is pressed (phone-sw.js; its click handling has
      // its own unit test): the tab holding the call says it is its own and answers it.
      const mine = await bob.page.evaluate(
        (callId) =>
          new Promise<boolean>((resolve) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = (e) => resolve((e.data as { mine: boolean }).mine);
            navigator.serviceWorker.dispatchEvent(
              new MessageEvent('message', {
                data: { kind: 'switchboard.notification', callId, action: 'accept' },
                ports: [channel.port2],
              }),
            );
          }),
        note!.callId,
      );
      expect(mine).toBe(true);
      await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
      await ann.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
      // Answered, the notification goes.
      await expect.poll(async () => (await shown()).length).toBe(0);
      await ann.page.getByRole('button', { name: 'Hang up' }).click();
      await bob.page.locator('[data-testid="call-card"][data-status="ended"]').waitFor();
    } finally {
      await bob.page.evaluate(() => {
        delete (document as unknown as Record<string, unknown>).visibilityState;
      });
    }
  });

  it('answers, mutes and hangs up with the keyboard shortcuts', async () => {
    await dismissAll(ann);
    await dismissAll(bob);
    await dialFrom(ann, 'Bob');
    await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    await bob.page.keyboard.press('Alt+Shift+KeyY');
    await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await bob.page.keyboard.press('Alt+Shift+KeyU');
    await bob.page.getByRole('button', { name: 'Mute', pressed: true }).waitFor();
    await bob.page.keyboard.press('Alt+Shift+KeyH');
    await ann.page.getByTestId('call-ended').waitFor();
    await bob.page.locator('[data-testid="call-card"][data-status="ended"]').waitFor();
  });

  it('calls a colleague from /users and calls back from /history', async () => {
    await dismissAll(ann);
    await bob.page.reload();
    await bob.page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    await ann.page.goto(`${server.url}/users`);
    await ann.page.getByRole('button', { name: 'Call Bob' }).click();
    await bob.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    await bob.page.getByRole('button', { name: 'Reject' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await dismissAll(ann);
    await dismissAll(bob);
    await bob.page.goto(`${server.url}/history`);
    await bob.page.locator('[data-testid="phone-status"][data-status="registered"]').waitFor();
    const row = bob.page.getByTestId('call-row').first();
    await expect.poll(() => row.textContent()).toContain('Inbound');
    await row.getByRole('button', { name: /^Call back/ }).click();
    await ann.page.locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
    await ann.page.getByRole('button', { name: 'Accept' }).click();
    await bob.page.locator('[data-testid="call-card"][data-status="open"]').waitFor();
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
  });
});
