/** The REST core in-process (no sockets): paging meta, preconditions, event ids, expiry. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../../../../../server/twins/sync/core';
import { handle } from '../../../../../server/twins/sync/rest/router';
import type { Ctx, RestRequest } from '../../../../../server/twins/sync/rest/context';
import { openStore, type Store } from '../../../../../server/twins/sync/store';

describe('Sync REST core', () => {
  let dir: string;
  let store: Store;
  let clock: number;
  let ctx: Ctx;
  const notified: Array<Record<string, unknown>> = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sync-core-'));
    store = openStore(dir);
    clock = 1_800_000_000_000;
    const core = new Core(store, () => clock);
    ctx = {
      core,
      base: 'http://h',
      identity: 'tester',
      conn: { open: true, subscriptions: new Map(), notify: (p) => notified.push(p) },
    };
    notified.length = 0;
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (
    method: string,
    path: string,
    body?: unknown,
    params: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) => {
    const req: RestRequest = {
      method,
      segments: path.slice(1).split('/').map(decodeURIComponent),
      params,
      headers,
      body,
    };
    return handle(ctx, req, (e) => {
      throw e;
    }) as { status: number; body: Record<string, unknown> };
  };
  const page = (params: Record<string, string>) => {
    const r = call('GET', '/v3/Lists/l/Items', undefined, params).body as {
      items: Array<{ index: number }>;
      meta: { previous_token: string | null; next_token: string | null };
    };
    return {
      idx: r.items.map((i) => i.index),
      prev: r.meta.previous_token !== null,
      next: r.meta.next_token !== null,
    };
  };

  it('sets previous/next tokens exactly when items lie before/after the page, in query order', () => {
    call('POST', '/v3/Lists', { unique_name: 'l' });
    for (let i = 0; i < 7; i++) call('POST', '/v3/Lists/l/Items', { data: { i } });
    call('DELETE', '/v3/Lists/l/Items/3');
    expect(page({ PageSize: '3' })).toEqual({ idx: [0, 1, 2], prev: false, next: true });
    expect(page({ PageSize: '3', From: '2' })).toEqual({ idx: [2, 4, 5], prev: true, next: true });
    expect(page({ PageSize: '3', From: '5' })).toEqual({ idx: [5, 6], prev: true, next: false });
    expect(page({ PageSize: '3', Order: 'desc' })).toEqual({
      idx: [6, 5, 4],
      prev: false,
      next: true,
    });
    expect(page({ PageSize: '3', Order: 'desc', From: '3' })).toEqual({
      idx: [2, 1, 0],
      prev: true,
      next: false,
    });
    expect(page({ From: '9' })).toEqual({ idx: [], prev: true, next: false });
    expect(page({ Index: '3' })).toEqual({ idx: [], prev: false, next: false });
  });

  it('walks page tokens back and forth over the same pages', () => {
    call('POST', '/v3/Lists', { unique_name: 'l' });
    for (let i = 0; i < 10; i++) call('POST', '/v3/Lists/l/Items', { data: { i } });
    const first = call('GET', '/v3/Lists/l/Items', undefined, { PageSize: '4' }).body as {
      meta: { next_token: string };
    };
    const second = call('GET', '/v3/Lists/l/Items', undefined, { PageToken: first.meta.next_token })
      .body as {
      items: Array<{ index: number }>;
      meta: { previous_token: string };
    };
    expect(second.items.map((i) => i.index)).toEqual([4, 5, 6, 7]);
    const back = call('GET', '/v3/Lists/l/Items', undefined, {
      PageToken: second.meta.previous_token,
    }).body as { items: Array<{ index: number }> };
    expect(back.items.map((i) => i.index)).toEqual([0, 1, 2, 3]);
  });

  it('honours If-Match on map items, including -1 for create-only', () => {
    call('POST', '/v3/Maps', { unique_name: 'm' });
    expect(
      call('PUT', '/v3/Maps/m/Items/k', { data: { a: 1 } }, {}, { 'if-match': '-1' }).status,
    ).toBe(201);
    expect(
      call('PUT', '/v3/Maps/m/Items/k', { data: { a: 2 } }, {}, { 'if-match': '-1' }).status,
    ).toBe(412);
    const item = call('GET', '/v3/Maps/m/Items/k').body;
    expect(
      call('PUT', '/v3/Maps/m/Items/k', { data: { a: 3 } }, {}, { 'if-match': 'ff' }).status,
    ).toBe(412);
    expect(
      call(
        'PUT',
        '/v3/Maps/m/Items/k',
        { data: { a: 3 } },
        {},
        { 'if-match': String(item.revision) },
      ).status,
    ).toBe(200);
    expect(call('GET', '/v3/Maps/m/Items/k').body.data).toEqual({ a: 3 });
  });

  it('gives every mutation the next event id and logs it for replay', () => {
    const list = call('POST', '/v3/Lists', { unique_name: 'l' }).body;
    const a = call('POST', '/v3/Lists/l/Items', { data: {} }).body;
    const b = call('POST', '/v3/Lists/l/Items/0', { data: { x: 1 } }).body;
    const c = call('DELETE', '/v3/Lists/l/Items/0').body;
    const d = call('POST', '/v3/Lists/l/Context', { data: { stage: 1 } }).body;
    expect([a.last_event_id, b.last_event_id, c.last_event_id, d.last_event_id]).toEqual([
      1, 2, 3, 4,
    ]);
    const log = store.q.eventsAfter.all(String(list.sid), 1).map((e) => [e.id, e.event_type]);
    expect(log).toEqual([
      [2, 'list_item_updated'],
      [3, 'list_item_removed'],
      [4, 'list_context_updated'],
    ]);
  });

  it('sweeps expired items and objects', async () => {
    call('POST', '/v3/Maps', { unique_name: 'm' });
    call('PUT', '/v3/Maps/m/Items/short', { data: {}, ttl: 1 });
    call('PUT', '/v3/Maps/m/Items/long', { data: {}, ttl: 10 });
    call('POST', '/v3/Documents', { unique_name: 'd', ttl: 2 });
    clock += 1500;
    expect(ctx.core.sweep()).toBe(1);
    expect(call('GET', '/v3/Documents/d').status).toBe(200);
    clock += 1000;
    expect(ctx.core.sweep()).toBe(1);
    expect(call('GET', '/v3/Documents/d').status).toBe(404);
    const keys = (call('GET', '/v3/Maps/m/Items').body.items as Array<{ key: string }>).map(
      (i) => i.key,
    );
    expect(keys).toEqual(['long']);
    expect(
      store.q.eventsAfter
        .all(String(call('GET', '/v3/Maps/m').body.sid), 0)
        .map((e) => e.event_type),
    ).toEqual(['map_item_added', 'map_item_added', 'map_item_removed']);
    await new Promise((r) => setImmediate(r));
  });

  it('returns the first items with a map when asked to Include=items', () => {
    call('POST', '/v3/Maps', { unique_name: 'm' });
    for (const k of ['b', 'a']) call('PUT', `/v3/Maps/m/Items/${k}`, { data: { k } });
    const map = call('GET', '/v3/Maps/m', undefined, { Include: 'items' }).body;
    expect((map.items as Array<{ key: string }>).map((i) => i.key)).toEqual(['a', 'b']);
    expect(call('GET', '/v3/Maps/m').body.items).toBeUndefined();
  });

  it('replays logged events after last_event_id, then establishes; cancel stops delivery', async () => {
    const list = call('POST', '/v3/Lists', { unique_name: 'l' }).body;
    for (let i = 0; i < 3; i++) call('POST', '/v3/Lists/l/Items', { data: { i } });
    const sid = String(list.sid);
    const establish = {
      action: 'establish',
      correlation_id: 7,
      requests: [{ object_sid: sid, object_type: 'list', last_event_id: 1 }],
    };
    expect(call('POST', '/v4/Subscriptions', establish).status).toBe(202);
    expect(notified).toHaveLength(0); // the reply first; notifications on a later tick
    await new Promise((r) => setImmediate(r));
    expect(
      notified.map((n) => [
        n.event_type,
        n.correlation_id,
        (n.event as { id?: number } | undefined)?.id,
      ]),
    ).toEqual([
      ['list_item_added', 7, 2],
      ['list_item_added', 7, 3],
      ['subscription_established', 7, undefined],
    ]);
    expect(notified[2]!.events).toEqual([
      { object_sid: sid, object_type: 'list', replay_status: 'completed', last_event_id: 3 },
    ]);
    notified.length = 0;
    call('POST', '/v4/Subscriptions', {
      action: 'cancel',
      correlation_id: 8,
      requests: [{ object_sid: sid, object_type: 'list' }],
    });
    call('POST', '/v3/Lists/l/Items', { data: {} });
    await new Promise((r) => setImmediate(r));
    expect(notified.map((n) => n.event_type)).toEqual(['subscription_canceled']);
  });

  it('answers subscription_failed 404 for a missing object', async () => {
    const req = {
      action: 'establish',
      correlation_id: 9,
      requests: [{ object_sid: 'ES' + '0'.repeat(32), object_type: 'list', last_event_id: 0 }],
    };
    call('POST', '/v4/Subscriptions', req);
    await new Promise((r) => setImmediate(r));
    expect(notified).toEqual([
      expect.objectContaining({
        event_type: 'subscription_failed',
        correlation_id: 9,
        events: [
          expect.objectContaining({ error: expect.objectContaining({ status: 404, code: 54150 }) }),
        ],
      }),
    ]);
  });

  it('answers subscription_failed with the kind’s code and words whatever the id looks like, as the cloud', async () => {
    // twilio/twilio-sync-sdk SubscriptionManagerTest.kt `subscribeFailed`: document "ET000" is
    // 404 / 54100 "Document not found" (not the 54300 of a missing unique name).
    call('POST', '/v4/Subscriptions', {
      action: 'establish',
      correlation_id: 10,
      requests: [
        { object_sid: 'ET000', object_type: 'document', last_event_id: 0 },
        { object_sid: 'TO000', object_type: 'stream', last_event_id: 0 },
      ],
    });
    await new Promise((r) => setImmediate(r));
    const errorsSeen = notified.flatMap((n) =>
      (n.events as Array<{ error: { status: number; code: number; message: string } }>).map(
        (e) => e.error,
      ),
    );
    expect(errorsSeen).toEqual([
      expect.objectContaining({ status: 404, code: 54100, message: 'Document not found' }),
      expect.objectContaining({ status: 404, code: 54250, message: 'Stream not found' }),
    ]);
  });

  it('group-commits a batch: a refused request rolls back alone and events wait for the COMMIT', async () => {
    call('POST', '/v3/Maps', { unique_name: 'm' });
    await new Promise((r) => setImmediate(r));
    const sid = String(call('GET', '/v3/Maps/m').body.sid);
    ctx.conn.subscriptions.set(sid, 'map');
    ctx.core.hub.subscribe(sid, ctx.conn);
    notified.length = 0;
    const results = ctx.core.batch(() => {
      const a = call('PUT', '/v3/Maps/m/Items/a', { data: { v: 1 } });
      const bad = call('PUT', '/v3/Maps/m/Items/b', { data: { v: 2 } }, {}, { 'if-match': 'ff' });
      const c = call('PUT', '/v3/Maps/m/Items/c', { data: { v: 3 } });
      expect(store.db.inTransaction).toBe(true);
      return [a.status, bad.status, c.status];
    });
    expect(results).toEqual([201, 412, 201]);
    expect(store.db.inTransaction).toBe(false);
    expect(notified).toHaveLength(0);
    await new Promise((r) => setImmediate(r));
    expect(notified.map((n) => (n.event as { item_key: string; id: number }).item_key)).toEqual([
      'a',
      'c',
    ]);
    expect(notified.map((n) => (n.event as { id: number }).id)).toEqual([1, 2]);
    const keys = (call('GET', '/v3/Maps/m/Items').body.items as Array<{ key: string }>).map(
      (i) => i.key,
    );
    expect(keys).toEqual(['a', 'c']);
  });

  it('refuses names and keys that are not well-formed Unicode, instead of mangling them', () => {
    expect(call('POST', '/v3/Documents', { unique_name: 'u-\ud800' })).toMatchObject({
      status: 400,
      body: { code: 54302 },
    });
    call('POST', '/v3/Maps', { unique_name: 'm' });
    expect(call('POST', '/v3/Maps/m/Items', { key: 'a\udfffb', data: {} })).toMatchObject({
      status: 400,
      body: { code: 54209 },
    });
    expect(call('PUT', '/v3/Maps/m/Items/ok-\u{1F511}', { data: {} }).status).toBe(201);
  });

  it('answers unexpected paths and methods with Twilio-shaped 404 and 405', () => {
    expect(call('GET', '/v3/Whatever')).toMatchObject({
      status: 404,
      body: { code: 20404, status: 404 },
    });
    expect(call('PATCH', '/v3/Lists')).toMatchObject({ status: 405, body: { code: 20004 } });
    expect(call('GET', '/v3/Lists/')).toMatchObject({
      status: 404,
      body: { message: 'Cannot get entity without id' },
    });
  });
});
