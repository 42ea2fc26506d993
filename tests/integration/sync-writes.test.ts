/**
 * A browser's own Sync write that breaks its record, through the real twilio-sync SDK: Sync takes
 * any JSON a permitted identity sends (as Twilio's does), and the server puts it right from Sync's
 * webhooks within moments (server/records/put-right.ts): the item or document becomes the record's
 * tolerant read when that passes the record (a field of the wrong shape takes its fallback), and an
 * item that does not even then is removed (a document is reset to the record's defaults). Each is
 * logged. Writes that pass are left as written. Objects the catalogue does not name: under the ACL
 * nobody may make or write them; with the ACL off (as an account owner may set it) they hold
 * anything, as in Twilio Sync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import {
  aclOff,
  clientWithToken,
  httpCode,
  type RawFrame,
  RawTwilsock,
  refusal,
  shutdownClients,
  signIn,
  token,
  waitFor,
} from './sync/support';

const GROUP = {
  name: 'Sales',
  number: '300',
  members: ['bob@example.com'],
  strategy: 'simultaneous',
  ringTimeout: 20,
};
const HOURS = { timeZone: 'Europe/London', week: { mon: [{ start: '09:00', end: '17:00' }] } };
const PHONE = { label: 'Work', number: '+442079460958' };
const EMPTY_WEEK = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
/** The settings record's defaults (src/contracts/records/settings.ts). */
const SETTINGS_DEFAULTS = {
  doNotDisturb: false,
  microphoneId: null,
  speakerId: null,
  ringtoneId: null,
  ringtoneVolume: 80,
  shortcuts: {},
  voicemailHeard: [],
  voicemailHeardBefore: 0,
};

/** How long the server has to put a write right (it hears of it from Sync's webhooks). */
const PUT_RIGHT_MS = 5000;

describe('writes that break their record, put right by the server', () => {
  let server: RunningServer;
  let adaCookie: string;
  let ada: SyncClient;
  let bob: SyncClient;
  /** Raw sockets that read what the service holds now (the SDK's own copy may lag). */
  let adaRaw: RawTwilsock;
  let bobRaw: RawTwilsock;

  const person = async (email: string) => {
    const cookie = await signIn(server.url, email);
    const t = await token(server.url, cookie);
    const raw = await RawTwilsock.open(server.url);
    await raw.init((await token(server.url, cookie)).token);
    return { cookie, sdk: clientWithToken(t.token, t.sync), raw };
  };

  beforeAll(async () => {
    server = await startServer();
    const a = await person('ada@example.com');
    const b = await person('bob@example.com');
    [adaCookie, ada, adaRaw, bob, bobRaw] = [a.cookie, a.sdk, a.raw, b.sdk, b.raw];
    const made = await fetch(`${server.url}/api/groups/grp-a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: adaCookie },
      body: JSON.stringify({ group: GROUP, schedule: HOURS }),
    });
    expect(made.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    adaRaw?.close();
    bobRaw?.close();
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  /** What the service holds at `path` now (`data`), or null when there is nothing there. */
  async function held(raw: RawTwilsock, path: string): Promise<unknown> {
    const reply = await raw.request('GET', path);
    if (httpCode(reply) === 404) return null;
    expect(httpCode(reply), path).toBe(200);
    return (reply.body as { data: unknown }).data;
  }
  /** Waits until what is held at `path` equals `want` (null: gone), and says so. */
  async function settles(raw: RawTwilsock, path: string, want: unknown): Promise<void> {
    const wanted = JSON.stringify(want);
    await waitFor(
      async () => JSON.stringify(await held(raw, path)) === wanted,
      PUT_RIGHT_MS,
      `${path} to become ${wanted}`,
    ).catch(async (e: unknown) => {
      throw new Error(
        `${(e as Error).message}; it holds ${JSON.stringify(await held(raw, path))}\n${server.output()}`,
      );
    });
  }
  const logged = (line: RegExp) =>
    waitFor(
      () =>
        server
          .output()
          .split('\n')
          .some((l) => line.test(l)),
      2000,
      String(line),
    );

  it('a contact without a phone, or with a number that cannot be dialled, is accepted by Sync and then removed', async () => {
    const contacts = await bob.map({ id: 'contacts', mode: 'open_existing' });
    const good = { name: 'Ann', phones: [PHONE] };
    await contacts.set('c-good', good);
    // Sync takes them, as Twilio's does…
    await contacts.set('c-none', { name: 'Ann', phones: [] });
    await contacts.set('c-nested', { name: 'Ann', phones: [{ label: 'Work', number: '+44 20' }] });
    // …and the server removes them within moments, since no reading of them is a contact.
    await settles(adaRaw, '/v3/Maps/contacts/Items/c-none', null);
    await settles(adaRaw, '/v3/Maps/contacts/Items/c-nested', null);
    await logged(
      /^records: contacts\/c-none, written by bob@example\.com, broke its record \(Invalid contact phones: Add at least one phone number\.\): removed$/,
    );
    await logged(
      /^records: contacts\/c-nested, written by bob@example\.com, broke its record \(Invalid contact phones\.0\.number: .*\): removed$/,
    );
    // The good one is left as written, and what every reader sees agrees.
    expect(await held(adaRaw, '/v3/Maps/contacts/Items/c-good')).toEqual(good);
    const seen = await ada.map({ id: 'contacts', mode: 'open_existing' });
    await waitFor(
      async () => (await seen.getItems()).items.length === 1,
      PUT_RIGHT_MS,
      'ada’s copy to settle',
    );
    expect((await seen.getItems()).items.map((i) => [i.key, i.data])).toEqual([['c-good', good]]);
  });

  it('a contact with a field of the wrong shape is put right to how every screen reads it', async () => {
    const contacts = await bob.map({ id: 'contacts', mode: 'open_existing' });
    await contacts.set('c-shape', {
      name: 'Bea',
      phones: [{ number: '+442079460958' }],
      email: 42,
    });
    await settles(adaRaw, '/v3/Maps/contacts/Items/c-shape', {
      name: 'Bea',
      company: '',
      phones: [{ label: '', number: '+442079460958' }],
      email: '',
      note: '',
    });
    await logged(/^records: contacts\/c-shape, written by bob@example\.com, .*: put right$/);
  });

  it("a person's settings: a field of the wrong shape takes its default; a value against a rule resets the document", async () => {
    const path = '/v3/Documents/settings:bob@example.com';
    const mine = await bob.document({ id: 'settings:bob@example.com', mode: 'open_existing' });
    await mine.update({ doNotDisturb: true });
    await mine.update({ ringtoneVolume: 'loud' });
    await settles(bobRaw, path, { ...SETTINGS_DEFAULTS, doNotDisturb: true });
    // A number of the right shape against its rule reads as stored, so no reading passes: the
    // document is reset to the record's defaults.
    await mine.update({ ringtoneVolume: 150 });
    await settles(bobRaw, path, SETTINGS_DEFAULTS);
    await logged(
      /^records: settings:bob@example\.com, written by bob@example\.com, broke its record \(Invalid settings ringtoneVolume: .*\): put right$/,
    );
    // A good patch is left as written.
    await mine.update({ ringtoneVolume: 40 });
    await new Promise((r) => setTimeout(r, 500));
    expect(await held(bobRaw, path)).toEqual({ ...SETTINGS_DEFAULTS, ringtoneVolume: 40 });
  });

  it("an admin's write to a group's hours, holidays and forwarding, the audio list and the team's settings is put right or removed", async () => {
    const hours = await ada.document({ id: 'schedule:grp-a', mode: 'open_existing' });
    await hours.set({ timeZone: 'Europe/London', week: { mon: 'all day' } });
    await settles(adaRaw, '/v3/Documents/schedule:grp-a', {
      timeZone: 'Europe/London',
      week: EMPTY_WEEK,
    });

    const holiday = { id: 'h1', label: 'Christmas', start: '2026-12-25', end: '2026-12-25' };
    const calendar = await ada.document({ id: 'calendar:grp-a', mode: 'open_existing' });
    await calendar.set({ holidays: [holiday, 42, { id: 'h2' }] });
    // The holidays that read well are kept.
    await settles(adaRaw, '/v3/Documents/calendar:grp-a', { holidays: [holiday] });

    const rules = await ada.list({ id: 'forwarding:grp-a', mode: 'open_existing' });
    const unknown = await rules.push({ when: 'sometimes', target: { kind: 'voicemail' } });
    const late = await rules.push({ when: 'busy', target: { kind: 'voicemail' }, after: 'soon' });
    const fine = await rules.push({ when: 'always', target: { kind: 'voicemail' } });
    await settles(adaRaw, `/v3/Lists/forwarding:grp-a/Items/${unknown.index}`, null);
    await settles(adaRaw, `/v3/Lists/forwarding:grp-a/Items/${late.index}`, {
      when: 'busy',
      after: 20,
      target: { kind: 'voicemail' },
      order: 0,
    });
    expect(await held(adaRaw, `/v3/Lists/forwarding:grp-a/Items/${fine.index}`)).toEqual({
      when: 'always',
      target: { kind: 'voicemail' },
    });

    const audio = await ada.map({ id: 'audio', mode: 'open_existing' });
    await audio.set('aud-000000000001', {
      name: 'a.flac',
      kind: 'flac',
      contentType: 'audio/flac',
      size: 1,
      duration: 1,
    });
    await settles(adaRaw, '/v3/Maps/audio/Items/aud-000000000001', null);

    const team = await ada.document({ id: 'team-settings', mode: 'open_existing' });
    await team.set({ defaultCountry: 7 });
    await settles(adaRaw, '/v3/Documents/team-settings', { defaultCountry: '' });
  });

  it('leaves a raw request malformed before it is stored to its own error, and puts right what one stores', async () => {
    const status = (reply: RawFrame) => ({
      http: httpCode(reply),
      code: (reply.body as { code?: number }).code,
    });
    // A map item without a key is the service's error, whatever its data.
    expect(
      status(await adaRaw.request('POST', '/v3/Maps/contacts/Items', { data: { name: '' } })),
    ).toEqual({ http: 400, code: 54209 });
    // Data that is no object at all is the handler's to refuse.
    expect(
      status(await adaRaw.request('PUT', '/v3/Maps/contacts/Items/c-x', { data: 'text' })),
    ).toEqual({ http: 400, code: 20001 });
    expect(await held(adaRaw, '/v3/Maps/contacts/Items/c-x')).toBeNull();
    // A push without a body stores an empty rule, which Sync takes and the server removes.
    const pushed = await adaRaw.request('POST', '/v3/Lists/forwarding:grp-a/Items');
    expect(httpCode(pushed)).toBe(201);
    const index = (pushed.body as { index: number }).index;
    await settles(adaRaw, `/v3/Lists/forwarding:grp-a/Items/${index}`, null);
  });

  it('lets nobody make or write an object the catalogue does not name while the ACL is on', async () => {
    for (const sdk of [bob, ada]) {
      expect(await refusal(sdk.map('scratch-anything'))).toEqual({ status: 403, code: 54007 });
      expect(await refusal(sdk.document('notes-of-bob'))).toEqual({ status: 403, code: 54007 });
    }
    expect(
      httpCode(await bobRaw.request('POST', '/v3/Lists', { unique_name: 'scratch-list' })),
    ).toBe(403);
  });

  it('lets objects the catalogue does not name hold anything once the ACL is off, as Twilio Sync does', async () => {
    await aclOff(server);
    const mine = await bob.map('scratch-anything');
    await mine.set('k', { phones: 'not a list', ringTimeout: 2 });
    const doc = await bob.document('notes-of-bob');
    await doc.set({ doNotDisturb: 'yes' });
    await new Promise((r) => setTimeout(r, 500));
    expect(await held(adaRaw, '/v3/Maps/scratch-anything/Items/k')).toEqual({
      phones: 'not a list',
      ringTimeout: 2,
    });
    expect(await held(adaRaw, '/v3/Documents/notes-of-bob')).toEqual({ doNotDisturb: 'yes' });
  });
});
