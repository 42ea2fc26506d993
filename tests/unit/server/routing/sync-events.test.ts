/**
 * Sync's webhooks on the Twilio backend (server/twilio/sync-events.ts): at start the server points the
 * Sync service's webhook URL at itself (unless an operator's is there); the events Twilio posts keep
 * routing's copy of presence and do not disturb current, so a call reads neither from Sync; an
 * unsigned or wrongly signed event is refused (403), a malformed one (400), and neither changes
 * anything. The stand-in sends no webhooks: the tests post what Twilio would
 * (https://www.twilio.com/docs/sync/webhooks), signed with the account's auth token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TWILIO_PATHS } from '../../../../src/contracts/api';
import { ALICE, BOB, CAT, SALES_NUMBER, WED_OPEN, seedTeam, vid } from '../calls/fixture';
import {
  ACCOUNT_SID,
  PUBLIC_URL,
  SERVICE_SID,
  browserCall,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from '../twilio/support';
import { readable } from '../calls/twiml-support';
import { ABSENT_PATIENCE_MS } from '../../../../server/routing/routing-data';

let t: TwilioTestApp;
let eventId = 0;

/** A Sync webhook as Twilio posts it (common parameters added), signed unless told otherwise. */
function event(params: Record<string, string>, signature?: string | null): Promise<Response> {
  return t.webhook(
    TWILIO_PATHS.syncEvents,
    { AccountSid: ACCOUNT_SID, ServiceSid: SERVICE_SID, ...params },
    { follow: false, ...(signature === undefined ? {} : { signature }) },
  );
}

/** A browser's presence write, as its map item event. */
const presence = (who: string, type: string, data?: object) =>
  event({
    EventType: type,
    Identity: who,
    EndpointId: `endpoint-${who}`,
    MapSid: `MP${'1'.repeat(32)}`,
    MapUniqueName: 'presence',
    ItemKey: who,
    EventId: String(++eventId),
    ...(data ? { ItemData: JSON.stringify(data) } : {}),
  });

/** A person's settings document, updated from their browser at `revision`. */
const settings = (who: string, revision: number, doNotDisturb: boolean) =>
  event({
    EventType: 'document_updated',
    Identity: who,
    EndpointId: `endpoint-${who}`,
    DocumentSid: `ET${'2'.repeat(32)}`,
    DocumentUniqueName: `settings:${who}`,
    DocumentRevision: String(revision),
    DocumentData: JSON.stringify({ doNotDisturb }),
  });

/** Reads of presence or settings the server made of the stand-in since `from` requests. */
const syncReads = (from: number) =>
  t.api.requests
    .slice(from)
    .filter(
      (r) =>
        r.method === 'GET' &&
        (r.path.includes('/Maps/presence') || /\/Documents(\/settings|$)/.test(r.path)),
    ).length;

/** Who a call to Sales (Alice and Bob) rings at `at`, and how many presence or settings reads it made. */
async function rung(at: number): Promise<{ rung: string[]; reads: number }> {
  t.clock.now = at;
  const before = t.api.requests.length;
  const res = await t.webhook(
    '/api/twilio/voice',
    incomingCall(sid(), '+447700900123', SALES_NUMBER),
  );
  expect(res.status).toBe(200);
  const xml = readable(await res.text());
  return {
    rung: [ALICE, BOB].filter((p) => xml.includes(`<Identity>${vid(p)}</Identity>`)),
    reads: syncReads(before),
  };
}

const available = { status: 'available', onCall: false };

/** Alice's "on a call" in the stand-in's presence map (what the server last wrote there). */
const presenceOf = (who: string) =>
  t.api.maps.get('presence')?.get(who)?.data as { onCall?: boolean } | undefined;

/**
 * At `at`, Cat calls Alice, who answers: the server writes her "on a call", and Sync's event of it
 * comes. The call's SID and Alice's leg, to end them.
 */
async function aliceOnCall(at: number) {
  t.clock.now = at;
  const call = sid();
  const leg = { CallSid: sid(), ParentCallSid: call, To: `client:${vid(ALICE)}` };
  await t.post('/api/twilio/voice', browserCall(call, CAT, 'Alice'));
  await t.post('/api/twilio/leg', { ...leg, CallStatus: 'in-progress' }, 204);
  await expect.poll(() => presenceOf(ALICE)?.onCall).toBe(true);
  await event({
    EventType: 'map_item_updated',
    Identity: 'system',
    MapUniqueName: 'presence',
    ItemKey: ALICE,
    EventId: String(++eventId),
    ItemData: JSON.stringify({ ...available, onCall: true }),
  });
  return { call, leg };
}

/** Twilio's status callbacks for the end of Alice's call: her leg's, then the call's. */
async function aliceCallEnds(call: string, leg: { CallSid: string }): Promise<void> {
  await t.post('/api/twilio/leg', { ...leg, CallStatus: 'completed' }, 204);
  await t.post(
    '/api/twilio/status',
    { CallSid: call, CallStatus: 'completed', From: `client:${vid(CAT)}`, To: 'Alice' },
    204,
  );
}

describe('routing that follows Sync’s webhooks', () => {
  beforeAll(async () => {
    t = await startTwilioApp({
      now: WED_OPEN,
      before: (api) => {
        api.syncWebhooks = true;
      },
    });
    await seedTeam(t);
    // Each browser's presence write reaches the server as Twilio's event.
    for (const who of [ALICE, BOB, CAT])
      expect((await presence(who, 'map_item_added', available)).status).toBe(204);
  }, 60_000);
  afterAll(() => t.close());

  it('points the Sync service’s webhook URL at the server at start, with REST events on', () => {
    expect(t.api.webhookUrl).toBe(`${PUBLIC_URL}${TWILIO_PATHS.syncEvents}`);
    const update = t.api.requests.find(
      (r) => r.method === 'POST' && r.form.WebhookUrl !== undefined,
    );
    expect(update?.form).toMatchObject({ WebhooksFromRestEnabled: 'true' });
  });

  it('routes from the copy Sync’s events keep: a call reads neither presence nor settings', async () => {
    let at = WED_OPEN + 1000;
    expect(await rung(at)).toEqual({ rung: [ALICE, BOB], reads: 0 });
    // Bob turns do not disturb on: the next call, a second later, does not ring him.
    expect((await settings(BOB, 1, true)).status).toBe(204);
    expect(await rung((at += 1000))).toEqual({ rung: [ALICE], reads: 0 });
    // An older event of his settings, arriving late, is ignored.
    expect((await settings(BOB, 0, false)).status).toBe(204);
    expect(await rung((at += 1000))).toEqual({ rung: [ALICE], reads: 0 });
    // Alice picks Away, then signs out (her item removed): nobody is rung.
    await presence(ALICE, 'map_item_updated', { ...available, status: 'away' });
    expect(await rung((at += 1000))).toEqual({ rung: [], reads: 0 });
    await presence(ALICE, 'map_item_removed');
    expect(await rung((at += 1000))).toEqual({ rung: [], reads: 0 });
    // She is back, and Bob turns do not disturb off.
    await presence(ALICE, 'map_item_added', available);
    await settings(BOB, 2, false);
    expect(await rung((at += 1000))).toEqual({ rung: [ALICE, BOB], reads: 0 });
  });

  it('reads presence again before calling someone offline whose item’s ttl passed in the copy', async () => {
    // A browser renews its item's ttl without an event: past the ttl the copy knows (75 s after
    // Alice's last event), Sync is asked once; the item lives on, and she is rung.
    const late = await rung(WED_OPEN + 90_000);
    expect(late.rung).toEqual([ALICE, BOB]);
    expect(late.reads).toBeGreaterThanOrEqual(1);
    expect(await rung(WED_OPEN + 91_000)).toEqual({ rung: [ALICE, BOB], reads: 0 });
  });

  it('reads presence again before refusing a direct call to someone the copy has no item for (their event still on its way)', async () => {
    // Bob's item goes and comes back at once: the copy has the removal, Sync has him again, and
    // the event of his return has not come yet.
    await presence(BOB, 'map_item_removed');
    try {
      expect((await rung(WED_OPEN + 91_500)).rung).toEqual([ALICE]);
      t.clock.now = WED_OPEN + 91_600;
      const before = t.api.requests.length;
      const res = await t.webhook('/api/twilio/voice', browserCall(sid(), CAT, 'Bob'));
      expect(readable(await res.text())).toContain(`<Identity>${vid(BOB)}</Identity>`);
      expect(syncReads(before)).toBeGreaterThanOrEqual(1);
    } finally {
      await presence(BOB, 'map_item_added', available);
    }
  });

  it('says so in the log when a direct callee the copy has no item for cannot be read in time, and refuses them as offline', async () => {
    await presence(BOB, 'map_item_removed');
    t.api.delay(ABSENT_PATIENCE_MS + 500);
    try {
      t.clock.now = WED_OPEN + 92_000;
      const res = await t.webhook('/api/twilio/voice', browserCall(sid(), CAT, 'Bob'));
      expect(readable(await res.text())).toContain('<Reject reason="rejected"/>');
      expect(t.logs.filter((l) => l.includes('taken as offline'))).toEqual([
        `routing: ${BOB} not in presence and their item could not be read within ${ABSENT_PATIENCE_MS} ms: taken as offline`,
      ]);
    } finally {
      t.api.delay(0);
      await presence(BOB, 'map_item_added', available);
    }
  });

  it('refuses an unsigned or wrongly signed event (403) and changes nothing', async () => {
    const off = {
      EventType: 'map_item_removed',
      Identity: ALICE,
      MapUniqueName: 'presence',
      ItemKey: ALICE,
    };
    expect((await event(off, null)).status).toBe(403);
    expect((await event(off, 'c2lnbmVkIGJ5IHNvbWVvbmUgZWxzZQ==')).status).toBe(403);
    expect((await rung(WED_OPEN + 92_000)).rung).toEqual([ALICE, BOB]);
  });

  it.each([
    ['no EventType', { MapUniqueName: 'presence', ItemKey: ALICE }, 'EventType'],
    [
      'an item without its key',
      { EventType: 'map_item_removed', MapUniqueName: 'presence' },
      'ItemKey',
    ],
    [
      'ItemData that is not JSON',
      { EventType: 'map_item_updated', MapUniqueName: 'presence', ItemKey: ALICE, ItemData: '{' },
      'not JSON',
    ],
    [
      'ItemData that is not an object',
      { EventType: 'map_item_updated', MapUniqueName: 'presence', ItemKey: ALICE, ItemData: '[]' },
      'not a JSON object',
    ],
    [
      'an EventId that is not an integer',
      {
        EventType: 'map_item_removed',
        MapUniqueName: 'presence',
        ItemKey: ALICE,
        EventId: 'x',
      },
      'EventId',
    ],
    [
      'settings without their data',
      { EventType: 'document_updated', DocumentUniqueName: `settings:${ALICE}` },
      'DocumentData',
    ],
    [
      'another service’s event',
      {
        EventType: 'map_item_removed',
        MapUniqueName: 'presence',
        ItemKey: ALICE,
        ServiceSid: `IS${'9'.repeat(32)}`,
      },
      'another Sync service',
    ],
  ])('refuses %s (400) and changes nothing', async (_what, params, says) => {
    const res = await event(params);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(says);
    expect((await rung(WED_OPEN + 93_000)).rung).toEqual([ALICE, BOB]);
  });

  it('rings someone at once when their call ends: the copy takes the server’s own "off the call" write before its event', async () => {
    const { call, leg } = await aliceOnCall(WED_OPEN + 94_000);
    expect((await rung(WED_OPEN + 95_000)).rung).toEqual([BOB]);
    // The call ends and the server writes her free; that write's event has not come yet (Sync
    // sends its webhooks one at a time, after every change before it).
    await aliceCallEnds(call, leg);
    await expect.poll(() => presenceOf(ALICE)?.onCall).toBe(false);
    expect(await rung(WED_OPEN + 95_100)).toEqual({ rung: [ALICE, BOB], reads: 0 });
  });

  it('rings someone whose call Twilio has ended before its status callbacks came: its Calls resource is asked', async () => {
    const { call, leg } = await aliceOnCall(WED_OPEN + 95_500);
    // Twilio ends the call; its status callbacks are still on their way (separate requests, late
    // or out of order), so this server and Sync both still say she is on a call.
    for (const listed of t.api.calls)
      if (listed.sid === call || listed.sid === leg.CallSid) listed.status = 'completed';
    expect(presenceOf(ALICE)?.onCall).toBe(true);
    expect((await rung(WED_OPEN + 95_600)).rung).toEqual([ALICE, BOB]);
    // While Twilio lists a call of hers in progress, she is skipped.
    const other = {
      sid: sid(),
      to: `client:${vid(ALICE)}`,
      from: '+15550100',
      status: 'in-progress',
    };
    t.api.calls.push(other);
    expect((await rung(WED_OPEN + 95_700)).rung).toEqual([BOB]);
    other.status = 'completed';
    // The callbacks come: she is written free.
    await aliceCallEnds(call, leg);
    await expect.poll(() => presenceOf(ALICE)?.onCall).toBe(false);
  });

  it('rings someone whose call ended while Sync refuses the "off the call" write: this server’s own "on a call" stops counting', async () => {
    const { call, leg } = await aliceOnCall(WED_OPEN + 96_000);
    expect((await rung(WED_OPEN + 97_000)).rung).toEqual([BOB]);
    // Sync refuses everything: the call ends, and the server's "off the call" cannot be written.
    t.api.failWith(503);
    try {
      await aliceCallEnds(call, leg);
      // Sync (and the copy its events keep) still say she is on a call; this server knows better.
      expect(presenceOf(ALICE)?.onCall).toBe(true);
      expect((await rung(WED_OPEN + 97_100)).rung).toEqual([ALICE, BOB]);
    } finally {
      t.api.failWith(null);
    }
  });

  it('answers and ignores the events routing does not follow', async () => {
    const other = await event({
      EventType: 'map_item_updated',
      Identity: 'system',
      MapUniqueName: 'users',
      ItemKey: ALICE,
      ItemData: '{}',
    });
    expect(other.status).toBe(204);
    expect((await event({ EventType: 'stream_message_published' })).status).toBe(204);
  });
});

describe('a Sync service whose webhook URL an operator set', () => {
  beforeAll(async () => {
    t = await startTwilioApp({
      now: WED_OPEN,
      before: (api) => {
        api.syncWebhooks = true;
        api.webhookUrl = 'https://ops.example.com/sync-hook';
      },
    });
    await seedTeam(t);
  }, 60_000);
  afterAll(() => t.close());

  it('keeps it, and reads presence and settings for every call as before', async () => {
    expect(t.api.webhookUrl).toBe('https://ops.example.com/sync-hook');
    const first = await rung(WED_OPEN + 1000);
    const second = await rung(WED_OPEN + 2000);
    expect(first.rung).toEqual([ALICE, BOB]);
    expect(second.reads).toBeGreaterThanOrEqual(1);
  });
});
