/**
 * Routing on the twins follows Sync's webhooks (server/twilio/sync-events.ts, the Sync twin's
 * server/twins/sync/twilio-api/webhooks.ts): the server points the service's webhook URL at itself
 * at start; a do-not-disturb change a browser makes with the real twilio-sync SDK reaches routing
 * within moments, through the twin's signed webhook, and so does a presence change (the server
 * writes a person's presence item for them: PUT and DELETE /api/presence); and a call then reads
 * neither presence nor settings from Sync (the twin's REST requests are counted in its request log,
 * SWITCHBOARD_SYNC_LOG_REQUESTS=1).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { TWILIO_PATHS } from '../../../src/contracts/api';
import { GROUPS, PRESENCE, SCHEDULES, SETTINGS } from '../../../src/contracts/objects';
import { voiceIdentityOf } from '../../../src/contracts/voice-identity';
import { createTwilioClient } from '../../../server/twilio/client';
import type { TwilioConfig } from '../../../server/twilio/config';
import { createSyncRest } from '../../../server/twilio/sync-rest';
import { startServer, type RunningServer } from '../../support/server';
import { clientWithToken, shutdownClients, signIn, token } from './support';

const ANN = 'ann@example.com';
const BOB = 'bob@example.com';
const NUMBER = '+442079460055';
const everyDay = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
    d,
    [{ start: '00:00', end: '24:00' }],
  ]),
);

let server: RunningServer;
let config: TwilioConfig;
const browsers: Record<string, SyncClient> = {};
const cookies: Record<string, string> = {};
let calls = 0;

/** A browser of `email`'s, signed in, with the real SDK and the token the server hands out. */
async function browser(email: string): Promise<SyncClient> {
  cookies[email] = await signIn(server.url, email);
  const t = await token(server.url, cookies[email]);
  return clientWithToken(t.token, t.sync);
}

/**
 * What `email`'s page asks of the server for its presence item, as the app's presence machine does
 * (src/app/mutators/presence.ts): the item is the server's to write, not the browser's.
 */
async function presence(email: string, status: 'available' | 'away' | null): Promise<void> {
  const res = await fetch(`${server.url}/api/presence`, {
    method: status === null ? 'DELETE' : 'PUT',
    headers: { cookie: cookies[email]!, 'content-type': 'application/json' },
    ...(status === null ? {} : { body: JSON.stringify({ status }) }),
  });
  expect(res.status, await res.text()).toBe(204);
}

/** The twin's REST reads of presence or of someone's settings, in its log since `from`. */
const syncReads = (from: number): string[] =>
  server
    .output()
    .slice(from)
    .split('\n')
    .filter(
      (line) =>
        /\[sync\] system GET /.test(line) &&
        (line.includes(`/Maps/${PRESENCE.name}`) || /\/Documents(\/settings|\s)/.test(line)),
    );

/** Who a call to the group rings, as Twilio would ask (signed), and the presence reads it caused. */
async function rung(): Promise<{ rung: string[]; reads: string[] }> {
  const from = server.output().length;
  const url = `${server.url}${TWILIO_PATHS.voice}`;
  const params = {
    AccountSid: config.accountSid,
    CallSid: `CA${(++calls).toString(16).padStart(32, 'e')}`,
    CallStatus: 'ringing',
    Direction: 'inbound',
    From: '+447700900123',
    To: NUMBER,
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': getExpectedTwilioSignature(config.authToken, url, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  const xml = await res.text();
  expect(res.status).toBe(200);
  return {
    rung: [ANN, BOB].filter((p) => xml.includes(`<Identity>${voiceIdentityOf(p)}</Identity>`)),
    reads: syncReads(from),
  };
}

/** Calls until `expected` are rung (the change's event on its way), for at most `ms`. */
async function rungWithin(
  expected: string[],
  ms: number,
): Promise<{ rung: string[]; reads: string[] }> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await rung();
    if (JSON.stringify(got.rung) === JSON.stringify(expected) || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A server on the twins with the group and both browsers there, as every test here starts. */
async function startTeam(env: Record<string, string> = {}): Promise<void> {
  server = await startServer({
    env: { SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_SYNC_LOG_REQUESTS: '1', ...env },
  });
  config = {
    ...server.account(),
    apiBaseUrl: `${server.url}/twilio`,
  };
  // An admin's ring group (Ann and Bob, open all day), written as the server writes groups.
  const rest = createSyncRest(createTwilioClient(config), config.syncServiceSid);
  await rest.setMapItem(GROUPS.name, 'grp-events', {
    name: 'Events',
    number: NUMBER,
    members: [ANN, BOB],
    strategy: 'simultaneous',
    ringTimeout: 20,
  });
  await createTwilioClient(config)
    .sync.v1.services(config.syncServiceSid)
    .documents.create({
      uniqueName: SCHEDULES.name('grp-events'),
      data: { timeZone: 'UTC', week: everyDay },
    });
  // Both browsers are open and have published their presence, as the app's presence machine does.
  for (const who of [ANN, BOB]) {
    browsers[who] = await browser(who);
    await presence(who, 'available');
  }
}

async function stopTeam(): Promise<void> {
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
}

beforeAll(() => startTeam(), 120_000);

afterAll(stopTeam);

describe('routing on the twins follows Sync’s webhooks', () => {
  it('the server pointed the Sync service’s webhook URL at itself, REST events on', async () => {
    const service = await createTwilioClient(config)
      .sync.v1.services(config.syncServiceSid)
      .fetch();
    expect(service.webhookUrl).toBe(`${server.url}${TWILIO_PATHS.syncEvents}`);
    expect(service.webhooksFromRestEnabled).toBe(true);
    expect(server.output()).toContain('presence and do not disturb follow the Sync service');
  });

  it('a browser’s do not disturb and Away reach routing at once, and calls read neither', async () => {
    expect(await rungWithin([ANN, BOB], 5000)).toMatchObject({ rung: [ANN, BOB] });
    expect((await rung()).reads).toEqual([]);

    // Bob turns do not disturb on in his browser (his own settings document).
    const started = Date.now();
    const settings = await browsers[BOB]!.document({
      id: SETTINGS.name(BOB),
      mode: 'open_existing',
    });
    await settings.update({ doNotDisturb: true });
    const afterDnd = await rungWithin([ANN], 2000);
    expect(afterDnd.rung).toEqual([ANN]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(afterDnd.reads).toEqual([]);

    // Ann picks Away: nobody is rung, and nothing is read.
    await presence(ANN, 'away');
    const afterAway = await rungWithin([], 2000);
    expect(afterAway).toEqual({ rung: [], reads: [] });

    // Both back.
    await presence(ANN, 'available');
    await settings.update({ doNotDisturb: false });
    expect(await rungWithin([ANN, BOB], 2000)).toEqual({ rung: [ANN, BOB], reads: [] });
  });

  it('a browser that signs out (its item removed) is not rung', async () => {
    await presence(BOB, null);
    expect(await rungWithin([ANN], 2000)).toEqual({ rung: [ANN], reads: [] });
  });
});

describe('when Sync’s webhooks do not arrive (lost on the way), on the twins', () => {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-events-'));
  const faults = join(folder, 'faults');

  beforeAll(async () => {
    await stopTeam();
    // The Sync twin answers every request but its webhooks never reach the server (faults.ts).
    writeFileSync(faults, 'webhooks lost');
    await startTeam({ SWITCHBOARD_TEST_SYNC_FAULTS: faults });
  }, 120_000);

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('the server says so within moments of its start, and routing reads do not disturb for every call, so a change is taken at once', async () => {
    const said = "Sync's webhooks did not arrive";
    const until = Date.now() + 20_000;
    while (!server.output().includes(said) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 200));
    expect(server.output()).toContain(said);
    expect(server.output()).toContain('read from Sync for every call until they do');

    // Bob turns do not disturb on; no event will tell routing, and the next call leaves him out.
    const settings = await browsers[BOB]!.document({
      id: SETTINGS.name(BOB),
      mode: 'open_existing',
    });
    await settings.update({ doNotDisturb: true });
    const after = await rung();
    expect(after.rung).toEqual([ANN]);
    expect(after.reads.length).toBeGreaterThan(0);
  });
});
