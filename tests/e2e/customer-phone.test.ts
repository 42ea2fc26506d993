/**
 * A customer on a phone number, in Chromium on the twins: the customer is one of the voice twin's
 * scripted phones (server/twins/voice/phones.ts), reached by the app's `<Dial><Number>` when an agent
 * dials it, or calling the team's number through the twin's phone route (`/twilio/phones/Calls`).
 * Audio is measured both ways: each page's level from its own peer connections, and the phone says
 * which tone it hears (the pages' fake microphones play Chromium's beep; the phone talks 1004 Hz).
 * Each call feature both ways, an agent calling out and the customer calling in: hold and resume,
 * park and pick-up, ring-back, blind and attended transfer; and voicemail, which only a caller
 * leaves (a group on holiday), played from /history.
 *
 * Both backends: the server is given the made-up account's number (`TWILIO_PHONE_NUMBERS`), which
 * `twilio-twins` has anyway and `embedded` otherwise lacks, so the suite runs the same on each.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { saveGroup } from '../support/ring-groups';
import { startServer, type RunningServer } from '../support/server';
import { phonesOrThrow, type PhoneCallView } from '../support/twin-phones';
import { phoneNamed } from '../../server/twins/voice/phones';
import { adminApiFor, type Person } from './support/live';
import { inbound, phonePerson } from './support/page-audio';
import { eventually } from './support/phone';

const TEAM_NUMBER = '+15005550006';
/** A second number of the account, for a group on holiday today: its callers leave a voicemail. */
const HOLIDAY_NUMBER = '+15005550007';
let server: RunningServer;
let browser: Browser;
let ann: Person;
let bob: Person;
let cat: Person;

/** The twin's phone route on this suite's server (tests/support/twin-phones.ts). */
const phones = (path: string, form?: Record<string, string>): Promise<unknown> =>
  phonesOrThrow({ ...server.account(), url: server.url }, path, form);

const phoneCall = async (sid: string): Promise<PhoneCallView> =>
  (await phones(`/Calls/${sid}`)) as PhoneCallView;

/** The phone hears sound that is not its own silence (a page's microphone, or music). */
async function phoneHearsSound(sid: string): Promise<void> {
  await eventually(
    () => phoneCall(sid),
    (c) => (c.heard?.level ?? 0) > 100,
  );
}

async function pageHears(page: Page): Promise<void> {
  const before = (await inbound(page)).packets;
  await eventually(
    () => inbound(page),
    (s) => s.packets > before + 25 && s.level > 0.01,
  );
}

beforeAll(async () => {
  server = await startServer({
    env: {
      TWILIO_PHONE_NUMBERS: `${TEAM_NUMBER},${HOLIDAY_NUMBER}`,
      SWITCHBOARD_VOICE_RING_SECONDS: '15',
      SWITCHBOARD_VOICE_PARK_SECONDS: '6',
    },
  });
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  ann = await phonePerson(browser, server.url, 'Ann', '/contacts');
  bob = await phonePerson(browser, server.url, 'Bob', '/hold');
  cat = await phonePerson(browser, server.url, 'Cat', '/contacts');
  const admin = await adminApiFor(server.url, 'Ann', 'ann@example.com');
  await saveGroup(admin, {
    id: 'desk',
    name: 'Front desk',
    number: TEAM_NUMBER,
    members: ['ann@example.com'],
  });
  const today = new Date().toISOString().slice(0, 10);
  await saveGroup(admin, {
    id: 'accounts',
    name: 'Accounts',
    number: HOLIDAY_NUMBER,
    members: ['ann@example.com'],
    holidays: [{ id: 'h1', label: 'Founders Day', start: today, end: today }],
  });
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

/** Ann dials the customer's number; once they answer, both hear each other. The phone's call sid. */
async function annCalls(number: string): Promise<string> {
  await ann.page.getByTestId('dial-input').fill(number);
  await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
  await openCard(ann).waitFor({ timeout: 20_000 });
  const { calls } = (await phones(`/Calls?Phone=${encodeURIComponent(number)}`)) as {
    calls: PhoneCallView[];
  };
  expect(calls[0]!.status).toBe('in-progress');
  await pageHears(ann.page);
  await phoneHearsSound(calls[0]!.sid);
  return calls[0]!.sid;
}

/** The customer's phone calls `to`: its call sid. */
async function customerCalls(number: string, to: string): Promise<string> {
  return ((await phones('/Calls', { From: number, To: to })) as { sid: string }).sid;
}

/** `who` accepts the call ringing on their page; they and the customer (`sid`) hear each other. */
async function accepts(who: Person, sid: string): Promise<void> {
  const ringing = who.page.locator('[data-testid="call-card"][data-status="incoming"]');
  await ringing.getByRole('button', { name: 'Accept' }).click({ timeout: 20_000 });
  await openCard(who).waitFor();
  await pageHears(who.page);
  await phoneHearsSound(sid);
}

/** `who` holds: they hear nothing, the customer the music; then resumes, and they talk again. */
async function holdsAndResumes(who: Person, sid: string): Promise<void> {
  await openCard(who).getByRole('button', { name: 'Hold', exact: true }).click();
  await openCard(who).getByTestId('call-hold').filter({ hasText: 'On hold' }).waitFor();
  const before = (await inbound(who.page)).packets;
  await eventually(
    () => inbound(who.page),
    (st) => st.packets > before + 25 && st.level < 0.001,
  );
  await phoneHearsSound(sid);
  await openCard(who).getByRole('button', { name: 'Hold', exact: true, pressed: true }).click();
  await pageHears(who.page);
}

/** `who` parks the call: the customer hears the music. */
async function parks(who: Person, sid: string): Promise<void> {
  await openCard(who).getByRole('button', { name: 'Park', exact: true }).click();
  await who.page.getByTestId('call-ended').filter({ hasText: 'You parked the call' }).waitFor();
  await phoneHearsSound(sid);
}

/** `who` picks the parked call up on /hold; they and the customer hear each other. */
async function picksUp(who: Person, sid: string): Promise<void> {
  await who.page.getByRole('button', { name: /^Pick up/ }).click();
  await openCard(who).waitFor();
  await pageHears(who.page);
  await phoneHearsSound(sid);
}

/** `from` sends the call to `to` (named `name`) at once; `to` answers and talks to the customer. */
async function transfersAtOnce(from: Person, to: Person, name: string, sid: string): Promise<void> {
  await openCard(from).getByRole('button', { name: 'Transfer', exact: true }).click();
  await openCard(from).getByLabel('Transfer to').fill(name);
  await openCard(from).getByRole('button', { name: 'Transfer now' }).click();
  await from.page
    .getByTestId('call-ended')
    .filter({ hasText: 'You transferred the call.' })
    .waitFor();
  await accepts(to, sid);
}

/**
 * `from` talks to Cat first while the customer hears the music, then hands the customer over: Cat
 * and the customer hear each other.
 */
async function talksToCatFirst(from: Person, sid: string): Promise<void> {
  await openCard(from).getByRole('button', { name: 'Transfer', exact: true }).click();
  await openCard(from).getByLabel('Transfer to').fill('Cat');
  await openCard(from).getByRole('button', { name: 'Talk first' }).click();
  const catRinging = cat.page.locator('[data-testid="call-card"][data-status="incoming"]');
  await catRinging.getByRole('button', { name: 'Accept' }).click({ timeout: 20_000 });
  await openCard(from)
    .getByTestId('call-transfer')
    .filter({ hasText: 'Talking to Cat.' })
    .waitFor();
  await pageHears(cat.page); // the transferrer
  await phoneHearsSound(sid); // the music
  await openCard(from).getByRole('button', { name: 'Complete transfer' }).click();
  await from.page
    .getByTestId('call-ended')
    .filter({ hasText: 'You transferred the call.' })
    .waitFor();
  await pageHears(cat.page); // the customer
  await phoneHearsSound(sid); // Cat
}

/** The customer hangs up; `who`'s card says the call ended. */
async function customerHangsUp(who: Person, sid: string): Promise<void> {
  await phones(`/Calls/${sid}/Hangup`, {});
  await who.page.getByTestId('call-ended').waitFor();
}

describe('a customer on a phone number', () => {
  it('Ann calls a customer: they hear each other; she parks them, Bob picks up and sends them on to Cat', async () => {
    const sid = await annCalls(phoneNamed('person').number);
    await parks(ann, sid);
    await picksUp(bob, sid);
    await transfersAtOnce(bob, cat, 'Cat', sid);
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await eventually(
      () => phoneCall(sid),
      (c) => c.status === 'completed',
    );
  });

  it('a customer calls the team number: Ann answers, they hear each other, she holds and resumes', async () => {
    for (const p of [ann, bob, cat]) await dismissAll(p);
    const sid = await customerCalls(phoneNamed('second person').number, TEAM_NUMBER);
    await accepts(ann, sid);
    await holdsAndResumes(ann, sid);
    await customerHangsUp(ann, sid);
  });

  it('a customer calls in, Ann parks them and nobody picks up: it rings Ann back; she talks to Cat first and hands the customer over', async () => {
    for (const p of [ann, bob, cat]) await dismissAll(p);
    const sid = await customerCalls(phoneNamed('person').number, TEAM_NUMBER);
    await accepts(ann, sid);
    // Parked too long (6 s here): the call rings Ann back, and she takes it.
    await parks(ann, sid);
    await dismissAll(ann);
    await accepts(ann, sid);
    await talksToCatFirst(ann, sid);
    await cat.page.getByRole('button', { name: 'Hang up' }).click();
    await eventually(
      () => phoneCall(sid),
      (c) => c.status === 'completed',
    );
  });

  it('Ann calls a customer: she holds and resumes, parks them and nobody picks up: it rings her back; she talks to Cat first and hands the customer over', async () => {
    for (const p of [ann, bob, cat]) await dismissAll(p);
    const sid = await annCalls(phoneNamed('second person').number);
    await holdsAndResumes(ann, sid);
    await parks(ann, sid);
    await dismissAll(ann);
    await accepts(ann, sid);
    await talksToCatFirst(ann, sid);
    await customerHangsUp(cat, sid);
  });

  it('a customer calls in, Ann parks them, Bob picks up and sends them on to Cat at once', async () => {
    for (const p of [ann, bob, cat]) await dismissAll(p);
    const sid = await customerCalls(phoneNamed('person').number, TEAM_NUMBER);
    await accepts(ann, sid);
    await parks(ann, sid);
    await picksUp(bob, sid);
    await transfersAtOnce(bob, cat, 'Cat', sid);
    await customerHangsUp(cat, sid);
  });

  it('a customer calls a group on holiday: they leave a voicemail, end it with #, and Ann plays it from /history', async () => {
    const customer = phoneNamed('person');
    const called = (await phones('/Calls', { From: customer.number, To: HOLIDAY_NUMBER })) as {
      sid: string;
    };
    // The greeting, then the beep (1000 Hz); the customer talks for 2 s and presses #.
    await eventually(
      () => phoneCall(called.sid),
      (c) => Math.abs((c.heard?.toneHz ?? 0) - 1000) <= 10,
    );
    await new Promise((r) => setTimeout(r, 2000));
    await phones(`/Calls/${called.sid}/Digits`, { Digits: '#' });
    await eventually(
      () => phoneCall(called.sid),
      (c) => c.status === 'completed',
    );
    await ann.page.goto(`${server.url}/history`);
    const row = ann.page.getByTestId('call-row').filter({ hasText: 'Voicemail' }).first();
    await row.waitFor({ timeout: 20_000 });
    await expect.poll(() => row.textContent()).toContain('Accounts');
    const played = await row.getByTestId('voicemail-player').evaluate(async (el) => {
      const audio = el as HTMLAudioElement;
      audio.muted = true;
      await audio.play();
      await new Promise((r) => setTimeout(r, 1200));
      return { duration: audio.duration, error: audio.error?.code ?? 0 };
    });
    expect(played.error).toBe(0);
    expect(played.duration).toBeGreaterThan(1);
    await ann.page.goto(`${server.url}/contacts`);
  });
});
