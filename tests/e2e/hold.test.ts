/**
 * Hold, park and pick up as a team meets them, in Chromium against the real server, with three
 * people (fake microphones) and the audio each page receives read from its own peer connections:
 * Ann calls Bob (both legs speak Opus, by getStats); Bob holds (Ann's level shows the music, Bob's
 * falls silent) and resumes; Bob parks (his phone is free, Ann keeps hearing music) and the call
 * shows on /hold for everyone; Bob and Cat
 * both click Pick up at the same moment, one gets Ann and the other reads that a colleague took it;
 * the row leaves every list and history keeps the trail; a parked caller who hangs up leaves /hold
 * for everyone; a call parked too long rings Bob back. Transfer: Bob sends Ann to Cat at once (Cat
 * rings with Ann's name, answers, and they hear each other); a transfer Cat declines comes back to
 * Bob; Bob talks to Cat first while Ann hears music, then completes, and history says who; a
 * transfer to a ring group rings its member with the group's name, and nobody answering brings the
 * call back to Bob.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { saveGroup } from '../support/ring-groups';
import { serverWrites } from '../support/server-writes';
import { startServer, type RunningServer } from '../support/server';
import { adminApiFor, sdkClientFor, type Person } from './support/live';
import { audioCodecs, inbound, phonePerson } from './support/page-audio';
import { eventually } from './support/phone';

let server: RunningServer;
let browser: Browser;
let ann: Person;
let bob: Person;
let cat: Person;

const until = eventually;

/** Audio arriving and audible, or arriving and silent (packets still flowing). */
async function hears(page: Page, what: 'sound' | 'silence'): Promise<void> {
  const before = (await inbound(page)).packets;
  await until(
    () => inbound(page),
    (s) => s.packets > before + 25 && (what === 'sound' ? s.level > 0.01 : s.level < 0.001),
  );
}

const openPerson = (name: string, path: string): Promise<Person> =>
  phonePerson(browser, server.url, name, path);

beforeAll(async () => {
  server = await startServer({
    env: {
      SWITCHBOARD_VOICE_RING_SECONDS: '10',
      SWITCHBOARD_VOICE_PARK_SECONDS: '8',
      SWITCHBOARD_SYNC_TEST_HOOKS: '1',
    },
  });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  ann = await openPerson('Ann', '/contacts');
  bob = await openPerson('Bob', '/contacts');
  cat = await openPerson('Cat', '/hold');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  server?.cleanup();
});

const openCard = (p: Person) => p.page.locator('[data-testid="call-card"][data-status="open"]');

async function dismissAll(person: Person): Promise<void> {
  const dismiss = person.page.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

const ringingCard = (p: Person) =>
  p.page.locator('[data-testid="call-card"][data-status="incoming"]');

/**
 * Bob, talking to Ann, transfers the call to `to` (opening the transfer form unless it is open):
 * at once, or after talking to them first.
 */
async function bobTransfers(to: string, mode: 'Transfer now' | 'Talk first'): Promise<void> {
  const bobCard = openCard(bob);
  const field = bobCard.getByLabel('Transfer to');
  if ((await field.count()) === 0)
    await bobCard.getByRole('button', { name: 'Transfer', exact: true }).click();
  await field.fill(to);
  await bobCard.getByRole('button', { name: mode }).click();
  if (mode === 'Transfer now')
    await bob.page
      .getByTestId('call-ended')
      .filter({ hasText: 'You transferred the call.' })
      .waitFor();
}

/** Ann calls Bob from the dial box and Bob accepts; both cards open. */
async function annCallsBob(): Promise<void> {
  for (const p of [ann, bob, cat]) await dismissAll(p);
  await ann.page.getByTestId('dial-input').fill('Bob');
  await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
  const ringing = ringingCard(bob);
  await ringing.getByRole('button', { name: 'Accept' }).click();
  await openCard(ann).waitFor();
  await openCard(bob).waitFor();
}

describe('hold, park and pick up', () => {
  it('Bob holds: Ann hears music and is told, Bob hears nothing; Resume brings them back', async () => {
    await annCallsBob();
    await hears(ann.page, 'sound');
    await hears(bob.page, 'sound');
    // Both browsers' legs to the relay speak Opus, each way: the music below is heard on Opus.
    for (const p of [ann, bob])
      expect(await audioCodecs(p.page)).toEqual({ inbound: 'audio/opus', outbound: 'audio/opus' });
    await openCard(bob).getByRole('button', { name: 'Hold', exact: true }).click();
    await openCard(bob).getByTestId('call-hold').filter({ hasText: 'On hold' }).waitFor();
    await openCard(ann)
      .getByTestId('call-held-by-them')
      .filter({ hasText: 'Bob put you on hold.' })
      .waitFor();
    await hears(bob.page, 'silence');
    await hears(ann.page, 'sound');
    // Ann cannot hold Bob back while he holds her: the server says why, nothing changes.
    await openCard(ann).getByRole('button', { name: 'Hold', exact: true }).click();
    await openCard(ann)
      .getByTestId('call-problem')
      .filter({ hasText: 'The other side has put this call on hold' })
      .waitFor();
    // Hold is a toggle: pressed while on hold, pressed again to resume.
    await openCard(bob).getByRole('button', { name: 'Hold', exact: true, pressed: true }).click();
    await expect.poll(() => openCard(ann).getByTestId('call-held-by-them').count()).toBe(0);
    await hears(bob.page, 'sound');
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
  });

  it('Bob parks: his phone is free, Ann waits with music on /hold; Bob and Cat pick up at once and one gets her', async () => {
    await annCallsBob();
    await openCard(bob).getByRole('button', { name: 'Park', exact: true }).click();
    await bob.page.getByTestId('call-ended').filter({ hasText: 'You parked the call' }).waitFor();
    const row = cat.page.getByTestId('hold-row');
    await row.filter({ hasText: 'Ann' }).filter({ hasText: 'Parked by Bob' }).waitFor();
    await openCard(ann).getByTestId('call-held-by-them').waitFor();
    await hears(ann.page, 'sound');
    // Bob goes to /hold too, and both click Pick up at the same moment.
    await bob.page.getByRole('link', { name: 'Hold' }).click();
    const bobButton = bob.page.getByRole('button', { name: 'Pick up Ann' });
    const catButton = cat.page.getByRole('button', { name: 'Pick up Ann' });
    await bobButton.waitFor();
    await Promise.all([bobButton.click(), catButton.click()]);
    await until(
      async () => (await openCard(bob).count()) + (await openCard(cat).count()),
      (n) => n === 1,
    );
    const [winner, loser] = (await openCard(bob).count()) === 1 ? [bob, cat] : [cat, bob];
    await loser.page
      .getByTestId('call-ended')
      .filter({ hasText: 'A colleague already picked up this call.' })
      .waitFor();
    for (const p of [bob, cat])
      await p.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
    await expect.poll(() => openCard(ann).getByTestId('call-held-by-them').count()).toBe(0);
    await hears(winner.page, 'sound');
    await hears(ann.page, 'sound');
    let last = winner;
    if (winner === bob) {
      // Cat lost the race: Bob parks Ann again and Cat, alone, picks her up.
      await openCard(bob).getByRole('button', { name: 'Park', exact: true }).click();
      await cat.page.getByRole('button', { name: 'Pick up Ann' }).click();
      await openCard(cat).waitFor();
      await hears(cat.page, 'sound');
      await hears(ann.page, 'sound');
      last = cat;
    }
    await last.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    // History: one row for the call, with who parked it and who picked it up, by name.
    await ann.page.getByRole('link', { name: 'History' }).click();
    await ann.page
      .getByTestId('call-row')
      .filter({ hasText: 'Parked by Bob' })
      .filter({ hasText: `Picked up by ${winner === bob ? 'Bob' : 'Cat'}` })
      .waitFor();
    await ann.page.getByRole('link', { name: 'Contacts' }).click();
  });

  it('a parked caller who hangs up leaves /hold for everyone', async () => {
    await annCallsBob();
    await openCard(bob).getByRole('button', { name: 'Park', exact: true }).click();
    await cat.page.getByTestId('hold-row').filter({ hasText: 'Ann' }).waitFor();
    await bob.page.getByTestId('hold-row').filter({ hasText: 'Ann' }).waitFor();
    await ann.page.getByRole('button', { name: 'Hang up' }).click();
    for (const p of [bob, cat])
      await p.page.getByTestId('empty-state').filter({ hasText: 'No calls on hold' }).waitFor();
  });

  it('a call parked too long leaves /hold and rings Bob back; he takes it and they talk', async () => {
    await annCallsBob();
    await openCard(bob).getByRole('button', { name: 'Park', exact: true }).click();
    await cat.page.getByTestId('hold-row').filter({ hasText: 'Ann' }).waitFor();
    const back = ringingCard(bob);
    await back.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor({ timeout: 20_000 });
    await cat.page.getByTestId('empty-state').waitFor();
    await back.getByRole('button', { name: 'Accept' }).click();
    await openCard(bob).waitFor();
    await expect.poll(() => openCard(ann).getByTestId('call-held-by-them').count()).toBe(0);
    await hears(bob.page, 'sound');
    await hears(ann.page, 'sound');
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    // Only what the steps above meant to happen was logged: Ann's refused hold (409) and the SDK's
    // lines for the pick-up that lost (its `<Reject>`: the gateway's Decline, 31603; on a busy
    // machine also its early media's play() cut short by that refusal, "Error attaching stream").
    const expected =
      /409 \(Conflict\)|A colleague already picked up this call|Decline \(31603\)|Error attaching stream to element \(_onAddTrack\)/;
    expect([...ann.errors, ...bob.errors, ...cat.errors].filter((e) => !expected.test(e))).toEqual(
      [],
    );
  });

  it('blind transfer: Bob sends Ann to Cat and is free; Cat rings with Ann, answers, and they talk', async () => {
    await annCallsBob();
    const bobCard = openCard(bob);
    await bobCard.getByRole('button', { name: 'Transfer', exact: true }).click();
    // Nobody named: said beside the field, nothing sent.
    await bobCard.getByRole('button', { name: 'Transfer now' }).click();
    await bobCard
      .getByRole('alert')
      .filter({ hasText: 'Type who to transfer the call to' })
      .waitFor();
    await bobTransfers('Cat', 'Transfer now');
    const ringing = ringingCard(cat);
    await ringing.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    await ringing.getByRole('button', { name: 'Accept' }).click();
    await openCard(cat).waitFor();
    await expect.poll(() => openCard(ann).getByTestId('call-held-by-them').count()).toBe(0);
    await hears(cat.page, 'sound');
    await hears(ann.page, 'sound');
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
  });

  it('a blind transfer Cat declines comes back to Bob', async () => {
    await annCallsBob();
    await bobTransfers('Cat', 'Transfer now');
    await ringingCard(cat).getByRole('button', { name: 'Reject' }).click();
    const back = ringingCard(bob);
    await back.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    await back.getByRole('button', { name: 'Accept' }).click();
    await openCard(bob).waitFor();
    await hears(ann.page, 'sound');
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
  });

  it('attended transfer: Bob talks to Cat while Ann hears music, then completes; history says who', async () => {
    await annCallsBob();
    await bobTransfers('Cat', 'Talk first');
    const bobCard = openCard(bob);
    await bobCard.getByTestId('call-transfer').filter({ hasText: 'Calling Cat…' }).waitFor();
    const ringing = ringingCard(cat);
    await ringing.getByTestId('call-name').filter({ hasText: 'Bob' }).waitFor();
    await ringing.getByRole('button', { name: 'Accept' }).click();
    await bobCard.getByTestId('call-transfer').filter({ hasText: 'Talking to Cat.' }).waitFor();
    await openCard(ann).getByTestId('call-held-by-them').waitFor();
    await hears(ann.page, 'sound'); // the music
    await hears(cat.page, 'sound'); // Bob
    await bobCard.getByRole('button', { name: 'Complete transfer' }).click();
    await bob.page
      .getByTestId('call-ended')
      .filter({ hasText: 'You transferred the call.' })
      .waitFor();
    await expect.poll(() => openCard(ann).getByTestId('call-held-by-them').count()).toBe(0);
    await hears(ann.page, 'sound');
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
    await ann.page.getByRole('link', { name: 'History' }).click();
    await ann.page
      .getByTestId('call-row')
      .filter({ hasText: 'Transferred to Cat by Bob' })
      .first()
      .waitFor();
    await ann.page.getByRole('link', { name: 'Contacts' }).click();
  });

  it('a blind transfer to a ring group rings its member with the group named; nobody answering brings it back to Bob', async () => {
    // Ann signed in first: she is the admin who sets up the group (Cat alone, 3 s a turn).
    // 3 s a turn, quicker than the group form allows: made through the API at the form's minimum,
    // then rewritten as the server (saveGroup).
    const admin = await adminApiFor(server.url, 'Ann', 'ann@example.com');
    const writes = await serverWrites(server.url);
    try {
      await saveGroup(
        admin,
        {
          id: 'front',
          name: 'Front desk',
          number: '700',
          members: ['cat@example.com'],
          strategy: 'sequential',
          ringTimeout: 3,
        },
        writes,
      );
    } finally {
      writes.close();
      await admin.sync.shutdown();
    }
    await annCallsBob();
    await bobTransfers('700', 'Transfer now');
    const ringing = ringingCard(cat);
    await ringing.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    await ringing.getByTestId('call-group').filter({ hasText: 'via Front desk' }).waitFor();
    // Cat lets it ring: after the group's 3 s it stops for her and rings Bob again.
    const back = ringingCard(bob);
    await back.getByTestId('call-name').filter({ hasText: 'Ann' }).waitFor();
    expect(await ringing.count()).toBe(0);
    await back.getByRole('button', { name: 'Accept' }).click();
    await openCard(bob).waitFor();
    await hears(ann.page, 'sound');
    await hears(bob.page, 'sound');
    await bob.page.getByRole('button', { name: 'Hang up' }).click();
    await ann.page.getByTestId('call-ended').waitFor();
  });

  it('nobody writes the holds map but the server', async () => {
    const sdk = await sdkClientFor(server.url, 'Cat', 'cat@example.com');
    try {
      const holds = await sdk.map('holds');
      await expect(
        holds.set('CA-forged', { caller: 'Mallory', parkedBy: 'cat', parkedAt: Date.now() }),
      ).rejects.toMatchObject({ status: 403, code: 54007 });
    } finally {
      await sdk.shutdown();
    }
    await cat.page.getByTestId('empty-state').waitFor();
  });
});
