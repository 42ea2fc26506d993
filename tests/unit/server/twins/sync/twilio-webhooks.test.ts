/**
 * The Sync twin's webhooks (server/sync/twilio-api/webhooks.ts) against Twilio's page,
 * https://www.twilio.com/docs/sync/webhooks: the Service takes `WebhookUrl`,
 * `WebhooksFromRestEnabled` and `ReachabilityWebhooksEnabled` and renders them back; a client's
 * change to a document or map item is POSTed with the page's parameters, form-encoded and signed with
 * `X-Twilio-Signature` as the `twilio` package checks it; a REST change only with
 * `WebhooksFromRestEnabled`; a failing URL is logged once and never holds up a write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import twilio from 'twilio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../../../server/twins/sync/core';
import { route } from '../../../../../server/twins/sync/rest/router';
import type { Ctx } from '../../../../../server/twins/sync/rest/context';
import { openStore, type Store } from '../../../../../server/twins/sync/store';
import { createTwilioApi, type TwilioApi } from '../../../../../server/twins/sync/twilio-api/http';
import { createTwilioClient, type TwilioClient } from '../../../../../server/twilio/client';
import {
  ACCOUNT_SID,
  API_KEY,
  API_SECRET,
  AUTH_TOKEN,
  SERVICE_SID,
  testTwilioConfig,
} from '../../twilio/support';

const HOOK = 'https://switchboard.example.com/api/twilio/sync-events';

/** The page's parameters: common to every event, then each kind's own. */
const COMMON = ['AccountSid', 'EndpointId', 'EventType', 'Identity', 'ServiceSid'];
const DOCUMENT = ['DocumentData', 'DocumentRevision', 'DocumentSid', 'DocumentUniqueName'];
const MAP_ITEM = ['EventId', 'ItemData', 'ItemKey', 'MapSid', 'MapUniqueName'];
const sorted = (names: string[]) => [...names].sort();
const without = (names: string[], ...gone: string[]) => names.filter((n) => !gone.includes(n));

interface Sent {
  url: string;
  params: Record<string, string>;
  signature: string;
  contentType: string;
}

let dir: string;
let store: Store;
let clock: number;
let core: Core;
let api: TwilioApi;
let http: Server;
let client: TwilioClient;
let sent: Sent[];
let logged: string[];
let answer: () => Promise<Response>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sync-webhooks-'));
  store = openStore(dir);
  clock = 1_800_000_000_000;
  core = new Core(store, () => clock);
  sent = [];
  logged = [];
  answer = () => Promise.resolve(new Response(null, { status: 204 }));
  api = createTwilioApi(core, {
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    apiKeys: { [API_KEY]: API_SECRET },
    serviceSid: SERVICE_SID,
    log: (message) => logged.push(message),
    webhookFetch: (url, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        url: url as string,
        params: Object.fromEntries(new URLSearchParams(init?.body as string)),
        signature: headers.get('X-Twilio-Signature') ?? '',
        contentType: headers.get('Content-Type') ?? '',
      });
      return answer();
    },
  });
  http = createServer((req, res) => {
    if (!api.handle(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  client = createTwilioClient(testTwilioConfig(`http://127.0.0.1:${port}/twilio`));
});

afterEach(async () => {
  api.webhooks.stop();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const service = () => client.sync.v1.services(SERVICE_SID);

/** A change made by a twilio-sync client (as server/sync/connection.ts runs its requests). */
function asClient(identity: string, method: string, path: string, body?: unknown) {
  const ctx: Ctx = {
    core,
    base: '',
    identity,
    conn: { open: true, subscriptions: new Map(), notify: () => undefined },
  };
  return core.actingAs({ via: 'client', identity, endpointId: 'endpoint-ann-1' }, () =>
    route(ctx, {
      method,
      segments: path.slice(1).split('/'),
      params: {},
      headers: {},
      body,
    }),
  );
}

/** What was POSTed, once every delivery queued so far is done. */
async function delivered(): Promise<Sent[]> {
  await api.webhooks.settled();
  return sent;
}

describe('the Sync Service resource', () => {
  it('takes WebhookUrl, WebhooksFromRestEnabled and ReachabilityWebhooksEnabled and renders them', async () => {
    const before = await service().fetch();
    expect(before).toMatchObject({
      webhookUrl: null,
      webhooksFromRestEnabled: false,
      reachabilityWebhooksEnabled: false,
    });
    const after = await service().update({
      webhookUrl: HOOK,
      webhooksFromRestEnabled: true,
      reachabilityWebhooksEnabled: true,
    });
    expect(after).toMatchObject({
      webhookUrl: HOOK,
      webhooksFromRestEnabled: true,
      reachabilityWebhooksEnabled: true,
    });
    expect(await service().fetch()).toMatchObject({ webhookUrl: HOOK });
    // An empty URL removes it.
    expect(await service().update({ webhookUrl: '' })).toMatchObject({ webhookUrl: null });
  });

  it('refuses a WebhookUrl that is not an absolute http(s) URL, changing nothing', async () => {
    await service().update({ webhookUrl: HOOK });
    await expect(service().update({ webhookUrl: 'not a url' })).rejects.toMatchObject({
      status: 400,
      code: 20001,
    });
    expect((await service().fetch()).webhookUrl).toBe(HOOK);
  });
});

describe('Sync webhooks', () => {
  beforeEach(async () => {
    await service().update({ webhookUrl: HOOK });
    await service().syncMaps.create({ uniqueName: 'presence' });
    await service().documents.create({ uniqueName: 'settings:ann@example.com', data: {} });
    await delivered();
    sent.length = 0;
  });

  it('posts a client’s map item changes with the page’s parameters, signed as Twilio signs', async () => {
    asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
      data: { status: 'available' },
      ttl: 75,
    });
    asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
      data: { status: 'away' },
    });
    asClient('ann@example.com', 'DELETE', '/v3/Maps/presence/Items/ann@example.com');
    const events = await delivered();
    expect(events.map((e) => e.params.EventType)).toEqual([
      'map_item_added',
      'map_item_updated',
      'map_item_removed',
    ]);
    const map = await service().syncMaps('presence').fetch();
    for (const e of events) {
      expect(e.url).toBe(HOOK);
      expect(e.contentType).toBe('application/x-www-form-urlencoded');
      expect(twilio.validateRequest(AUTH_TOKEN, e.signature, HOOK, e.params)).toBe(true);
      expect(e.params).toMatchObject({
        AccountSid: ACCOUNT_SID,
        ServiceSid: SERVICE_SID,
        Identity: 'ann@example.com',
        EndpointId: 'endpoint-ann-1',
        MapSid: map.sid,
        MapUniqueName: 'presence',
        ItemKey: 'ann@example.com',
      });
    }
    expect(sorted(Object.keys(events[0]!.params))).toEqual(sorted([...COMMON, ...MAP_ITEM]));
    expect(JSON.parse(events[1]!.params.ItemData!)).toEqual({ status: 'away' });
    // "ItemData … Not included for the map_item_removed event" (as DocumentData for documents).
    expect(sorted(Object.keys(events[2]!.params))).toEqual(
      sorted(without([...COMMON, ...MAP_ITEM], 'ItemData')),
    );
    // EventId: "A sequence number representing the order of occurrence".
    const ids = events.map((e) => Number(e.params.EventId));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
  });

  it('posts a client’s document update and the REST removal of the document', async () => {
    await service().update({ webhooksFromRestEnabled: true });
    asClient('ann@example.com', 'POST', '/v3/Documents/settings:ann@example.com', {
      data: { doNotDisturb: true },
    });
    await service().documents('settings:ann@example.com').remove();
    const [updated, removed] = await delivered();
    expect(sorted(Object.keys(updated!.params))).toEqual(sorted([...COMMON, ...DOCUMENT]));
    expect(updated!.params).toMatchObject({
      EventType: 'document_updated',
      Identity: 'ann@example.com',
      DocumentUniqueName: 'settings:ann@example.com',
      DocumentRevision: '1',
    });
    expect(JSON.parse(updated!.params.DocumentData!)).toEqual({ doNotDisturb: true });
    // REST: Identity "system" and no EndpointId; "DocumentData … Not included for the
    // document_removed event".
    expect(removed!.params).toMatchObject({
      EventType: 'document_removed',
      Identity: 'system',
      DocumentSid: updated!.params.DocumentSid,
      DocumentUniqueName: 'settings:ann@example.com',
    });
    expect(sorted(Object.keys(removed!.params))).toEqual(
      sorted(without([...COMMON, ...DOCUMENT], 'EndpointId', 'DocumentData')),
    );
    expect(twilio.validateRequest(AUTH_TOKEN, removed!.signature, HOOK, removed!.params)).toBe(
      true,
    );
  });

  it('sends nothing for a REST change unless WebhooksFromRestEnabled is on', async () => {
    const items = service().syncMaps('presence').syncMapItems;
    await items.create({ key: 'bob@example.com', data: { status: 'available' } });
    expect(await delivered()).toEqual([]);
    await service().update({ webhooksFromRestEnabled: true });
    await service()
      .syncMaps('presence')
      .syncMapItems('bob@example.com')
      .update({
        data: { status: 'away' },
      });
    const [event] = await delivered();
    expect(event!.params).toMatchObject({ EventType: 'map_item_updated', Identity: 'system' });
    expect(event!.params.EndpointId).toBeUndefined();
  });

  it('sends the document made through REST with its data, once asked to', async () => {
    await service().update({ webhooksFromRestEnabled: true });
    await service().documents.create({ uniqueName: 'settings:bob@example.com', data: { a: 1 } });
    const [made] = await delivered();
    expect(made!.params).toMatchObject({
      EventType: 'document_created',
      DocumentUniqueName: 'settings:bob@example.com',
      DocumentRevision: '0',
      Identity: 'system',
    });
    expect(JSON.parse(made!.params.DocumentData!)).toEqual({ a: 1 });
  });

  it('sends nothing for an item its ttl removed (nobody’s change)', async () => {
    asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
      data: { status: 'available' },
      ttl: 10,
    });
    await delivered();
    sent.length = 0;
    clock += 11_000;
    core.sweep();
    expect(await delivered()).toEqual([]);
  });

  it('sends nothing once the URL is removed', async () => {
    await service().update({ webhookUrl: '' });
    asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
      data: { status: 'available' },
    });
    expect(await delivered()).toEqual([]);
  });

  it('logs a failing URL once, sends each event once, and never fails the write', async () => {
    answer = () => Promise.reject(new Error('connect ECONNREFUSED'));
    for (const status of ['available', 'away', 'available'])
      expect(
        asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
          data: { status },
        }).status,
      ).toBeLessThan(300);
    expect(await delivered()).toHaveLength(3);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('ECONNREFUSED');
    // A success, then a failure again: logged again.
    answer = () => Promise.resolve(new Response(null, { status: 200 }));
    asClient('ann@example.com', 'DELETE', '/v3/Maps/presence/Items/ann@example.com');
    await delivered();
    answer = () => Promise.resolve(new Response('', { status: 500 }));
    asClient('ann@example.com', 'PUT', '/v3/Maps/presence/Items/ann@example.com', {
      data: { status: 'away' },
    });
    await delivered();
    expect(logged).toHaveLength(2);
    expect(logged[1]).toContain('answered 500');
  });
});
