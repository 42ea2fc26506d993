/**
 * The Sync twin as Twilio's Sync REST API (server/twins/sync/twilio-api/), driven through the
 * `twilio` package itself with the server's own request client (server/twilio/client.ts), as Twilio
 * mode's server talks to it: services and the ACL flag, maps, lists, documents and their items,
 * paging, ttl, If-Match, permissions, the per-object write rate, item size and bad credentials,
 * each answered with Twilio's status, error code and JSON. A REST write reaches twilio-sync
 * clients live, and with ACL on a client needs the object's permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { createTwilioClient, type TwilioClient } from '../../../server/twilio/client';
import type { TwilioConfig } from '../../../server/twilio/config';
import { createSyncRest } from '../../../server/twilio/sync-rest';
import { createSyncAclRest } from '../../../server/twilio/acl';
import { createOnCallWriter } from '../../../server/calls/on-call';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients, waitFor } from './support';

const ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = '0123456789abcdef0123456789abcdef';
const API_KEY = 'SK0123456789abcdef0123456789abcdef';
const API_SECRET = 'test-api-secret-0123456789abcdef';
const SERVICE_SID = 'IS0123456789abcdef0123456789abcdef';

/** What a Twilio-mode server is configured with, its REST address moved to the twin. */
function twilioConfig(base: string, secret = API_SECRET): TwilioConfig {
  return {
    accountSid: ACCOUNT_SID,
    apiKey: API_KEY,
    apiSecret: secret,
    authToken: AUTH_TOKEN,
    syncServiceSid: SERVICE_SID,
    twimlAppSid: 'AP0123456789abcdef0123456789abcdef',
    phoneNumbers: ['+442079460000'],
    publicUrl: 'https://switchboard.example.com',
    apiBaseUrl: base,
  };
}

interface Refusal {
  status: number;
  code: number;
  message: string;
  moreInfo: string;
}
async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (e) {
    const err = e as { status?: number; code?: number; message?: string; moreInfo?: string };
    return {
      status: err.status ?? 0,
      code: err.code ?? 0,
      message: err.message ?? '',
      moreInfo: err.moreInfo ?? '',
    };
  }
  throw new Error('the request was not refused');
}

/** The code a request is refused with, or 0 when it is not. */
async function codeOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 0;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe('the Sync twin answers Twilio’s Sync REST API', () => {
  let server: RunningServer;
  let base: string;
  let twilio: TwilioClient;
  const service = () => twilio.sync.v1.services(SERVICE_SID);

  beforeAll(async () => {
    // The twins' account, with the credentials a Twilio-mode server would be configured with.
    server = await startServer({
      env: {
        TWILIO_ACCOUNT_SID: ACCOUNT_SID,
        TWILIO_AUTH_TOKEN: AUTH_TOKEN,
        TWILIO_API_KEY: API_KEY,
        TWILIO_API_SECRET: API_SECRET,
        TWILIO_SYNC_SERVICE_SID: SERVICE_SID,
      },
    });
    // The app turns the service's ACL on at start; these cases set it themselves where it matters.
    await aclOff(server);
    base = `${server.url}/twilio`;
    twilio = createTwilioClient(twilioConfig(base));
  }, 60_000);
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('fetches the service and turns its ACL on and off', async () => {
    const s = await service().fetch();
    expect(s).toMatchObject({ sid: SERVICE_SID, accountSid: ACCOUNT_SID });
    expect(s.url).toBe(`https://sync.twilio.com/v1/Services/${SERVICE_SID}`);
    // Whatever it was (the app turns it on at start), it flips both ways and is read back as set.
    const was = s.aclEnabled;
    expect(typeof was).toBe('boolean');
    try {
      for (const aclEnabled of [!was, was, true, false]) {
        expect((await service().update({ aclEnabled })).aclEnabled).toBe(aclEnabled);
        expect((await service().fetch()).aclEnabled).toBe(aclEnabled);
      }
    } finally {
      await service().update({ aclEnabled: was });
    }
    expect((await service().fetch()).aclEnabled).toBe(was);
    expect((await twilio.sync.v1.services.list()).map((x) => x.sid)).toEqual([SERVICE_SID]);
    expect(await refusal(twilio.sync.v1.services('IS' + 'f'.repeat(32)).fetch())).toMatchObject({
      status: 404,
      code: 20404,
    });
  });

  it('creates, reads, pages, updates and deletes maps', async () => {
    const made = await service().syncMaps.create({ uniqueName: 'rest-map-a' });
    expect(made.sid).toMatch(/^MP[0-9a-f]{32}$/);
    expect(made).toMatchObject({
      uniqueName: 'rest-map-a',
      accountSid: ACCOUNT_SID,
      serviceSid: SERVICE_SID,
      createdBy: 'system',
      dateExpires: null,
    });
    expect(made.url).toBe(`https://sync.twilio.com/v1/Services/${SERVICE_SID}/Maps/${made.sid}`);
    expect(made.links).toEqual({
      items: `${made.url}/Items`,
      permissions: `${made.url}/Permissions`,
    });
    expect((await service().syncMaps('rest-map-a').fetch()).sid).toBe(made.sid);
    expect((await service().syncMaps(made.sid).fetch()).uniqueName).toBe('rest-map-a');
    // A taken unique name: 409 / 54301.
    expect(await refusal(service().syncMaps.create({ uniqueName: 'rest-map-a' }))).toMatchObject({
      status: 409,
      code: 54301,
      moreInfo: 'https://www.twilio.com/docs/errors/54301',
    });
    for (const n of ['b', 'c', 'd', 'e'])
      await service().syncMaps.create({ uniqueName: `rest-map-${n}` });
    // Pages of two, followed through next_page_url by the package.
    const names = (await service().syncMaps.list({ pageSize: 2 })).map((m) => m.uniqueName);
    expect(names.filter((n) => n?.startsWith('rest-map-'))).toEqual([
      'rest-map-a',
      'rest-map-b',
      'rest-map-c',
      'rest-map-d',
      'rest-map-e',
    ]);
    const updated = await service().syncMaps('rest-map-e').update({ ttl: 3600 });
    expect(updated.dateExpires.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect(await service().syncMaps('rest-map-e').remove()).toBe(true);
    expect(await refusal(service().syncMaps('rest-map-e').fetch())).toMatchObject({
      status: 404,
      code: 54300,
    });
    expect(
      await refusal(
        service()
          .syncMaps('MP' + '0'.repeat(32))
          .fetch(),
      ),
    ).toMatchObject({
      status: 404,
      code: 54200,
    });
  });

  it('creates, reads, pages, updates and deletes map items, with If-Match', async () => {
    await service().syncMaps.create({ uniqueName: 'rest-items' });
    const items = () => service().syncMaps('rest-items').syncMapItems;
    const made = await items().create({ key: 'ada@example.com', data: { name: 'Ada' } });
    expect(made).toMatchObject({
      key: 'ada@example.com',
      data: { name: 'Ada' },
      createdBy: 'system',
    });
    expect(made.url).toMatch(/\/Maps\/MP[0-9a-f]{32}\/Items\/ada%40example\.com$/);
    expect(await refusal(items().create({ key: 'ada@example.com', data: {} }))).toMatchObject({
      status: 409,
      code: 54208,
    });
    const fetched = await service().syncMaps('rest-items').syncMapItems('ada@example.com').fetch();
    expect(fetched.data).toEqual({ name: 'Ada' });
    const item = () => service().syncMaps('rest-items').syncMapItems('ada@example.com');
    const next = await item().update({ data: { name: 'Ada L' }, ifMatch: fetched.revision });
    expect(next.revision).not.toBe(fetched.revision);
    // A stale revision: 412, the map item's revision-mismatch code, nothing written.
    expect(
      await refusal(item().update({ data: { name: 'X' }, ifMatch: fetched.revision })),
    ).toMatchObject({
      status: 412,
      code: 54207,
    });
    expect((await item().fetch()).data).toEqual({ name: 'Ada L' });
    expect(await refusal(item().remove({ ifMatch: fetched.revision }))).toMatchObject({
      status: 412,
    });
    expect(await item().remove({ ifMatch: next.revision })).toBe(true);
    expect(await refusal(item().fetch())).toMatchObject({ status: 404, code: 54201 });
    expect(await refusal(item().update({ data: {} }))).toMatchObject({ status: 404, code: 54201 });

    for (let i = 0; i < 120; i++)
      await items().create({ key: `k${String(i).padStart(3, '0')}`, data: { i } });
    const all = await items().list({ pageSize: 50 });
    expect(all).toHaveLength(120);
    expect(all[0]!.key).toBe('k000');
    expect(all[119]!.key).toBe('k119');
    const desc = await items().list({ order: 'desc', pageSize: 7, limit: 10 });
    expect(desc.map((x) => x.key)).toEqual([...Array(10)].map((_, i) => `k${119 - i}`));
    const after = await items().list({ from: 'k010', bounds: 'exclusive', limit: 2 });
    expect(after.map((x) => x.key)).toEqual(['k011', 'k012']);
    const page = await items().page({ pageSize: 5 });
    expect(page.instances).toHaveLength(5);
    expect(page.nextPageUrl).toMatch(
      new RegExp(
        `^https://sync\\.twilio\\.com/v1/Services/${SERVICE_SID}/Maps/MP[0-9a-f]{32}/Items\\?`,
      ),
    );
  });

  it('creates, pages, updates and deletes lists and their items', async () => {
    const list = await service().syncLists.create({ uniqueName: 'rest-list' });
    expect(list.sid).toMatch(/^ES[0-9a-f]{32}$/);
    const items = () => service().syncLists('rest-list').syncListItems;
    const indexes: number[] = [];
    for (let i = 0; i < 12; i++) indexes.push((await items().create({ data: { n: i } })).index);
    expect(indexes).toEqual([...Array(12)].map((_, i) => i));
    const newest = await items().list({ order: 'desc', limit: 3, pageSize: 2 });
    expect(newest.map((x): unknown => x.data)).toEqual([{ n: 11 }, { n: 10 }, { n: 9 }]);
    const one = await items()(4).fetch();
    expect(one).toMatchObject({ index: 4, data: { n: 4 }, listSid: list.sid });
    await items()(4).update({ data: { n: 40 }, ifMatch: one.revision });
    expect(
      await refusal(items()(4).update({ data: { n: 41 }, ifMatch: one.revision })),
    ).toMatchObject({
      status: 412,
      code: 54155,
    });
    expect((await items()(4).fetch()).data).toEqual({ n: 40 });
    expect(await items()(4).remove()).toBe(true);
    expect(await refusal(items()(4).fetch())).toMatchObject({ status: 404, code: 54151 });
    expect((await items().list()).map((x) => x.index)).not.toContain(4);
    expect(await service().syncLists('rest-list').remove()).toBe(true);
  });

  it('creates, updates (If-Match) and deletes documents', async () => {
    const doc = await service().documents.create({ uniqueName: 'rest-doc', data: { a: 1 } });
    expect(doc).toMatchObject({ uniqueName: 'rest-doc', data: { a: 1 }, createdBy: 'system' });
    expect(doc.links).toEqual({ permissions: `${doc.url}/Permissions` });
    const next = await service()
      .documents('rest-doc')
      .update({ data: { a: 2 }, ifMatch: doc.revision });
    expect(next.data).toEqual({ a: 2 });
    expect(
      await refusal(
        service()
          .documents('rest-doc')
          .update({ data: { a: 3 }, ifMatch: doc.revision }),
      ),
    ).toMatchObject({ status: 412, code: 54103 });
    expect((await service().documents('rest-doc').fetch()).data).toEqual({ a: 2 });
    expect((await service().documents.list()).map((d) => d.uniqueName)).toContain('rest-doc');
    expect(await service().documents('rest-doc').remove()).toBe(true);
    expect(await refusal(service().documents('rest-doc').fetch())).toMatchObject({ status: 404 });
  });

  it('expires items and objects after their ttl, and refuses a ttl out of bounds', async () => {
    await service().syncMaps.create({ uniqueName: 'rest-ttl' });
    const items = () => service().syncMaps('rest-ttl').syncMapItems;
    const short = await items().create({ key: 'short', data: {}, ttl: 1 });
    expect(short.dateExpires.getTime()).toBeGreaterThan(Date.now() - 1000);
    await items().create({ key: 'long', data: {}, itemTtl: 3600, ttl: 1 });
    expect((await items()('long').fetch()).dateExpires.getTime()).toBeGreaterThan(
      Date.now() + 3000_000,
    );
    // CollectionTtl on an item's write sets its map's expiry.
    await items().create({ key: 'c', data: {}, collectionTtl: 7200 });
    expect((await service().syncMaps('rest-ttl').fetch()).dateExpires.getTime()).toBeGreaterThan(
      Date.now() + 7000_000,
    );
    await waitFor(
      async () => (await codeOf(items()('short').fetch())) === 54201,
      5000,
      'the item to expire',
    );
    expect((await items().list()).map((x) => x.key).sort()).toEqual(['c', 'long']);
    expect(await refusal(items().create({ key: 'x', data: {}, ttl: 31_536_001 }))).toMatchObject({
      status: 400,
      code: 54011,
    });
    expect(await refusal(service().syncMaps('rest-ttl').update({ ttl: -1 }))).toMatchObject({
      status: 400,
      code: 54011,
    });
    await service().documents.create({ uniqueName: 'rest-ttl-doc', ttl: 1 });
    await waitFor(
      async () => (await codeOf(service().documents('rest-ttl-doc').fetch())) === 54300,
      5000,
      'the document to expire',
    );
  });

  it('refuses data over 16 KiB (413 / 54006) and data that is not a JSON object', async () => {
    await service().syncMaps.create({ uniqueName: 'rest-size' });
    const items = () => service().syncMaps('rest-size').syncMapItems;
    expect(
      await refusal(items().create({ key: 'big', data: { text: 'x'.repeat(16_400) } })),
    ).toMatchObject({ status: 413, code: 54006 });
    await items().create({ key: 'fits', data: { text: 'x'.repeat(16_000) } });
    const res = await fetch(`${base}/sync/v1/Services/${SERVICE_SID}/Maps/rest-size/Items`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ Key: 'bad', Data: '[1,2]' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 54206, status: 400 });
    expect(await refusal(items()('bad').fetch())).toMatchObject({ status: 404 });
  });

  it('answers 429 / 54009 beyond an object’s write rate, and stores only what it took', async () => {
    await service().syncMaps.create({ uniqueName: 'rest-rate' });
    const items = () => service().syncMaps('rest-rate').syncMapItems;
    const results = await Promise.allSettled(
      [...Array(300)].map((_, i) => items().create({ key: `r${i}`, data: { i } })),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatchObject({ status: 429, code: 54009 });
    const taken = results.length - refused.length;
    expect(taken).toBeGreaterThanOrEqual(200);
    expect(await items().list()).toHaveLength(taken);
    // Another object has its own rate.
    await service().syncMaps.create({ uniqueName: 'rest-rate-2' });
    await service().syncMaps('rest-rate-2').syncMapItems.create({ key: 'a', data: {} });
  });

  it('answers with exactly the fields Twilio documents for each resource', async () => {
    // The property lists of https://www.twilio.com/docs/sync/api/map-resource, …/map-item-resource,
    // …/document-resource and …/sync-map-permission-resource.
    const auth = `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}`;
    const get = async (path: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${base}/sync/v1/Services/${SERVICE_SID}/${path}`, {
        headers: { authorization: auth },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    await service().syncMaps.create({ uniqueName: 'rest-fields' });
    await service()
      .syncMaps('rest-fields')
      .syncMapItems.create({ key: 'k', data: { a: 1 } });
    await service().syncMaps('rest-fields').syncMapPermissions('p@example.com').update({
      read: true,
      write: false,
      manage: false,
    });
    await service().documents.create({ uniqueName: 'rest-fields-doc', data: {} });
    const common = ['account_sid', 'service_sid', 'url', 'revision', 'date_expires'];
    const dates = ['date_created', 'date_updated', 'created_by'];
    const map = await get('Maps/rest-fields');
    expect(Object.keys(map).sort()).toEqual(
      ['sid', 'unique_name', 'links', ...common, ...dates].sort(),
    );
    expect(map.date_created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(await get('Maps/rest-fields/Items/k')).sort()).toEqual(
      ['key', 'map_sid', 'data', ...common, ...dates].sort(),
    );
    expect(Object.keys(await get('Documents/rest-fields-doc')).sort()).toEqual(
      ['sid', 'unique_name', 'links', 'data', ...common, ...dates].sort(),
    );
    expect(Object.keys(await get('Maps/rest-fields/Permissions/p@example.com')).sort()).toEqual(
      [
        'account_sid',
        'service_sid',
        'map_sid',
        'identity',
        'read',
        'write',
        'manage',
        'url',
      ].sort(),
    );
    const page = await get('Maps/rest-fields/Items?PageSize=1');
    expect(Object.keys(page.meta as object).sort()).toEqual(
      [
        'first_page_url',
        'key',
        'next_page_url',
        'page',
        'page_size',
        'previous_page_url',
        'url',
      ].sort(),
    );
    expect(page.meta).toMatchObject({ key: 'items', page: 0, page_size: 1 });
  });

  it('refuses a bad unique name and answers a missing object in the cloud’s words', async () => {
    // The words twilio/twilio-sync-sdk's integration tests expect from the cloud (server/sync/errors.ts).
    const invalidName = {
      status: 400,
      code: 54302,
      message:
        'Invalid unique name. Expected a string with length 1-320 not matching the SID pattern [A-Z]{2}[a-f0-9]{32}',
    };
    const map = await service().syncMaps.create();
    const hex = '0123456789abcdef'.repeat(2);
    expect(await refusal(service().syncMaps.create({ uniqueName: map.sid }))).toMatchObject(
      invalidName,
    );
    expect(
      await refusal(service().documents.create({ uniqueName: `AB${hex}`, data: {} })),
    ).toMatchObject(invalidName);
    expect(
      await refusal(service().syncLists.create({ uniqueName: 'n'.repeat(321) })),
    ).toMatchObject(invalidName);
    expect(await refusal(service().syncStreams.create({ uniqueName: map.sid }))).toMatchObject(
      invalidName,
    );
    expect((await service().syncLists.create({ uniqueName: 'n'.repeat(320) })).uniqueName).toBe(
      'n'.repeat(320),
    );
    const missing = await Promise.all([
      refusal(service().documents(`ET${hex}`).fetch()),
      refusal(service().syncLists(`ES${hex}`).fetch()),
      refusal(service().syncMaps(`MP${hex}`).fetch()),
      refusal(service().syncStreams(`TO${hex}`).fetch()),
      refusal(service().syncStreams('rest-no-such-stream').fetch()),
    ]);
    expect(missing.map((r) => [r.status, r.code, r.message])).toEqual([
      [404, 54100, 'Document not found'],
      [404, 54150, 'List not found'],
      [404, 54200, 'Map not found'],
      [404, 54250, 'Stream not found'],
      [404, 54300, 'Unique name not found'],
    ]);
  });

  it('creates, publishes to and deletes message streams; a deleted one is 404 / 54250', async () => {
    const made = await service().syncStreams.create({ uniqueName: 'rest-stream', ttl: 60 });
    expect(made.sid).toMatch(/^TO[0-9a-f]{32}$/);
    expect(made).toMatchObject({ uniqueName: 'rest-stream', createdBy: 'system' });
    expect(made.links).toEqual({ stream_messages: `${made.url}/Messages` });
    expect(made.dateExpires).toBeInstanceOf(Date);
    expect((await service().syncStreams('rest-stream').fetch()).sid).toBe(made.sid);
    expect((await service().syncStreams.list()).map((s) => s.sid)).toContain(made.sid);

    const zoe: SyncClient = await client(server.url, 'zoe@example.com');
    const stream = await zoe.stream({ id: 'rest-stream', mode: 'open_existing' });
    const heard = new Promise((resolve) =>
      stream.on('messagePublished', (e) => resolve(e.message.data)),
    );
    // A client's subscription is made asynchronously; publish until it hears one.
    let sent: { sid: string; data: unknown } | undefined;
    const first = await waitFor(async () => {
      sent = await service()
        .syncStreams(made.sid)
        .streamMessages.create({ data: { hi: 1 } });
      return Promise.race([heard, new Promise((r) => setTimeout(() => r(undefined), 200))]);
    });
    expect(first).toEqual({ hi: 1 });
    expect(sent?.sid).toMatch(/^TZ[0-9a-f]{32}$/);
    expect(sent?.data).toEqual({ hi: 1 });

    expect(await service().syncStreams(made.sid).remove()).toBe(true);
    for (const gone of [
      service().syncStreams(made.sid).fetch(),
      service().syncStreams(made.sid).streamMessages.create({ data: {} }),
    ])
      expect(await refusal(gone)).toMatchObject({
        status: 404,
        code: 54250,
        message: 'Stream not found',
      });
  });

  it('refuses bad credentials with 401 / 20003, and takes the account’s auth token', async () => {
    const wrong = createTwilioClient(twilioConfig(base, 'not-the-secret-0123456789'));
    expect(await refusal(wrong.sync.v1.services(SERVICE_SID).fetch())).toMatchObject({
      status: 401,
      code: 20003,
    });
    const none = await fetch(`${base}/sync/v1/Services/${SERVICE_SID}`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await none.json()).toEqual({
      code: 20003,
      message: 'Authenticate',
      more_info: 'https://www.twilio.com/docs/errors/20003',
      status: 401,
    });
    const account = await fetch(`${base}/sync/v1/Services/${SERVICE_SID}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
      },
    });
    expect(account.status).toBe(200);
  });

  it('keeps per-object permissions, and applies them to clients when ACL is on', async () => {
    await service().syncMaps.create({ uniqueName: 'rest-acl' });
    await service()
      .syncMaps('rest-acl')
      .syncMapItems.create({ key: 'k', data: { v: 1 } });
    const perms = () => service().syncMaps('rest-acl').syncMapPermissions;
    const granted = await perms()('zoe@example.com').update({
      read: true,
      write: false,
      manage: false,
    });
    expect(granted).toMatchObject({
      identity: 'zoe@example.com',
      read: true,
      write: false,
      manage: false,
    });
    expect((await perms().list()).map((p) => p.identity)).toEqual(['zoe@example.com']);
    expect((await perms()('zoe@example.com').fetch()).read).toBe(true);

    const zoe: SyncClient = await client(server.url, 'zoe@example.com');
    const yan: SyncClient = await client(server.url, 'yan@example.com');
    await service().update({ aclEnabled: true });
    try {
      const map = await zoe.map({ id: 'rest-acl', mode: 'open_existing' });
      expect((await map.get('k')).data).toEqual({ v: 1 });
      // Read only: her write is refused, as Twilio's ACL refuses it.
      await expect(map.set('k', { v: 2 })).rejects.toMatchObject({ status: 403, code: 54007 });
      // Nothing granted: yan may not even open it.
      await expect(yan.map({ id: 'rest-acl', mode: 'open_existing' })).rejects.toMatchObject({
        status: 403,
      });
      // A REST write reaches her live.
      const seen = new Promise((resolve) => map.on('itemUpdated', (e) => resolve(e.item.data)));
      await service()
        .syncMaps('rest-acl')
        .syncMapItems('k')
        .update({ data: { v: 3 } });
      expect(await seen).toEqual({ v: 3 });
      expect(await perms()('zoe@example.com').remove()).toBe(true);
      expect(await refusal(perms()('zoe@example.com').fetch())).toMatchObject({ status: 404 });
    } finally {
      await service().update({ aclEnabled: false });
    }
  });

  it('serves the server’s own Sync REST and ACL modules, unchanged', async () => {
    const rest = createSyncRest(twilio, SERVICE_SID);
    await rest.setMapItem('rest-users', 'ada@example.com', { name: 'Ada' });
    await rest.setMapItem('rest-users', 'ada@example.com', { name: 'Ada L' }, 60);
    const got = await rest.getMapItem('rest-users', 'ada@example.com');
    expect(got?.data).toEqual({ name: 'Ada L' });
    expect(got?.expiresAt).toBeGreaterThan(Date.now());
    expect([...(await rest.mapItems('rest-users')).keys()]).toEqual(['ada@example.com']);
    await rest.removeMapItem('rest-users', 'ada@example.com');
    await rest.removeMapItem('rest-users', 'ada@example.com');
    expect(await rest.getMapItem('rest-users', 'ada@example.com')).toBeNull();
    const first = await rest.pushListItem('rest-calls', { id: 'a' });
    await rest.pushListItem('rest-calls', { id: 'b' });
    await rest.updateListItem('rest-calls', first, { id: 'a2' });
    expect((await rest.listItems('rest-calls', 10, 'desc')).map((x) => x.data)).toEqual([
      { id: 'b' },
      { id: 'a2' },
    ]);
    expect(await rest.document('no-such-doc')).toBeNull();

    const acl = createSyncAclRest(twilio, SERVICE_SID);
    expect(await acl.aclEnabled()).toBe(false);
    expect(await acl.create({ kind: 'document', name: 'rest-acl-doc' }, { x: 1 })).toBe(true);
    expect(await acl.create({ kind: 'document', name: 'rest-acl-doc' })).toBe(false);
    expect(await acl.names('document')).toContain('rest-acl-doc');
    const ref = { kind: 'document', name: 'rest-acl-doc' } as const;
    await acl.setPermission(ref, 'ada@example.com', { read: true, write: true, manage: false });
    expect(await acl.permissions(ref)).toEqual(
      new Map([['ada@example.com', { read: true, write: true, manage: false }]]),
    );
    await acl.setPermission(ref, 'ada@example.com', { read: false, write: false, manage: false });
    await acl.setPermission(ref, 'ada@example.com', { read: false, write: false, manage: false });
    expect(await acl.permissions(ref)).toEqual(new Map());
    await acl.remove(ref);
    await acl.remove(ref);
    expect(await acl.names('document')).not.toContain('rest-acl-doc');
  });
  it('writes an item only at the revision read (If-Match): a write since is never overwritten', async () => {
    const rest = createSyncRest(twilio, SERVICE_SID);
    await rest.setMapItem(
      'presence',
      'ann@example.com',
      { status: 'available', onCall: false },
      75,
    );
    const read = await rest.getMapItem('presence', 'ann@example.com');
    await rest.setMapItem('presence', 'ann@example.com', { status: 'away', onCall: false }, 75);
    expect(
      await rest.updateMapItemIf(
        'presence',
        'ann@example.com',
        { status: 'available', onCall: true },
        read!.revision,
      ),
    ).toBe('changed');
    expect((await rest.getMapItem('presence', 'ann@example.com'))?.data).toEqual({
      status: 'away',
      onCall: false,
    });

    // "On a call" written while Ann picks Away between the writer's read and its write: her
    // Away is read again and kept, with onCall set.
    let raced = false;
    const racing = {
      ...rest,
      async getMapItem(map: string, key: string) {
        const item = await rest.getMapItem(map, key);
        if (!raced) {
          raced = true;
          await rest.setMapItem(map, key, { status: 'available', onCall: false }, 75);
        }
        return item;
      },
    };
    const logged: string[] = [];
    await rest.setMapItem('presence', 'ann@example.com', { status: 'away', onCall: false }, 75);
    const onCallChanged = createOnCallWriter({
      rest: racing,
      isOnCall: () => true,
      log: (m) => logged.push(m),
    });
    onCallChanged('ann@example.com');
    await waitFor(
      async () => (await rest.getMapItem('presence', 'ann@example.com'))?.data.onCall === true,
    );
    expect((await rest.getMapItem('presence', 'ann@example.com'))?.data).toEqual({
      status: 'available',
      onCall: true,
    });
    expect(raced).toBe(true);
    expect(logged).toEqual([]);
  });
});
