/** Every event type of seed section 4 reaches a second SDK client, with `isLocal` right on both sides. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../../support/server';
import { accountToken, aclOff, client, RawTwilsock, shutdownClients, waitFor } from './support';

type Seen = Array<[string, Record<string, unknown>]>;

function record(
  emitter: { on(event: string, fn: (e: unknown) => void): unknown },
  names: string[],
): Seen {
  const seen: Seen = [];
  // The SDK mutates item objects in place: snapshot what the event said when it fired.
  const snap = (e: Record<string, unknown>): Record<string, unknown> => {
    const item = e.item as { index?: number; key?: string; data?: unknown } | undefined;
    const copy = {
      ...e,
      ...(item ? { item: { index: item.index, key: item.key, data: item.data } } : {}),
    };
    return JSON.parse(JSON.stringify(copy)) as Record<string, unknown>;
  };
  for (const n of names) emitter.on(n, (e) => seen.push([n, snap(e as Record<string, unknown>)]));
  return seen;
}

const settle = (ms = 400): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('events between two SDK clients', () => {
  let server: RunningServer;
  let alice: SyncClient;
  let bob: SyncClient;

  beforeAll(async () => {
    server = await startServer();
    await aclOff(server);
    alice = await client(server.url, 'alice@example.com');
    bob = await client(server.url, 'bob@example.com');
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('delivers list item added, updated and removed, local to the writer and remote to the other', async () => {
    const la = await alice.list('events-list');
    const lb = await bob.list('events-list');
    const names = ['itemAdded', 'itemUpdated', 'itemRemoved'];
    const a = record(la, names);
    const b = record(lb, names);
    await settle();
    const item = await la.push({ n: 1 });
    await la.set(item.index, { n: 2 });
    await la.remove(item.index);
    await waitFor(() => b.length === 3 && a.length === 3, 5000, 'three list events on both');
    expect(a.map(([n, e]) => [n, e.isLocal])).toEqual([
      ['itemAdded', true],
      ['itemUpdated', true],
      ['itemRemoved', true],
    ]);
    expect(b.map(([n, e]) => [n, e.isLocal])).toEqual([
      ['itemAdded', false],
      ['itemUpdated', false],
      ['itemRemoved', false],
    ]);
    const added = b[0]![1] as { item: { index: number; data: unknown } };
    expect(added.item.index).toBe(item.index);
    expect(added.item.data).toEqual({ n: 1 });
    expect((b[1]![1] as { previousItemData: unknown }).previousItemData).toEqual({ n: 1 });
    expect((b[2]![1] as { previousItemData: unknown }).previousItemData).toEqual({ n: 2 });
    // The writer's own echo never arrives as a second, remote event.
    await settle();
    expect(a).toHaveLength(3);
  });

  it('delivers list_context_updated to subscribed clients', async () => {
    const lb = await bob.list('context-list');
    const seen = record(lb, ['contextUpdated']);
    await settle();
    const raw = await RawTwilsock.open(server.url);
    await raw.init(accountToken(server, 'carol@example.com', 600));
    const reply = await raw.request('POST', `/v3/Lists/${lb.sid}/Context`, {
      data: { stage: 'wrap-up' },
    });
    expect((reply.header.http_status as { code: number }).code).toBe(200);
    await waitFor(() => seen.length === 1, 5000, 'contextUpdated');
    expect(seen[0]![1]).toEqual({ context: { stage: 'wrap-up' }, isLocal: false });
    raw.close();
  });

  it('delivers map item added, updated and removed with isLocal', async () => {
    const ma = await alice.map('events-map');
    const mb = await bob.map('events-map');
    const names = ['itemAdded', 'itemUpdated', 'itemRemoved'];
    const a = record(ma, names);
    const b = record(mb, names);
    await settle();
    await ma.set('theme', { color: 'dark' });
    await ma.set('theme', { color: 'light' });
    await ma.remove('theme');
    await waitFor(() => a.length === 3 && b.length === 3, 5000, 'three map events on both');
    expect(a.map(([n, e]) => [n, e.isLocal])).toEqual([
      ['itemAdded', true],
      ['itemUpdated', true],
      ['itemRemoved', true],
    ]);
    expect(b.map(([n, e]) => [n, e.isLocal])).toEqual([
      ['itemAdded', false],
      ['itemUpdated', false],
      ['itemRemoved', false],
    ]);
    expect((b[1]![1] as { item: { data: unknown } }).item.data).toEqual({ color: 'light' });
    expect((b[2]![1] as { key: string }).key).toBe('theme');
  });

  it('delivers document updates with data and previous data', async () => {
    const da = await alice.document('events-doc');
    const db = await bob.document('events-doc');
    const a = record(da, ['updated']);
    const b = record(db, ['updated']);
    await settle();
    await da.set({ status: 'busy' });
    await waitFor(() => a.length === 1 && b.length === 1, 5000, 'document updated');
    expect(a[0]![1].isLocal).toBe(true);
    expect(b[0]![1]).toMatchObject({ data: { status: 'busy' }, isLocal: false });
    expect(db.data).toEqual({ status: 'busy' });
    expect(db.revision).toBe(da.revision);
  });

  it('publishes stream messages to others, and once (locally) to the publisher', async () => {
    const sa = await alice.stream('events-stream');
    const sb = await bob.stream('events-stream');
    const a = record(sa, ['messagePublished']);
    const b = record(sb, ['messagePublished']);
    await settle();
    await sa.publishMessage({ text: 'hi' });
    await waitFor(() => b.length === 1, 5000, 'stream message');
    await settle();
    expect(a.map(([, e]) => e.isLocal)).toEqual([true]);
    expect(b[0]![1]).toMatchObject({ message: { data: { text: 'hi' } }, isLocal: false });
  });

  it('delivers removal of every kind of object, local to the remover and remote to the other', async () => {
    const pairs = await Promise.all(
      (['document', 'list', 'map', 'stream'] as const).map(async (kind) => {
        const name = `removed-${kind}`;
        const x = await alice[kind](name);
        const y = await bob[kind](name);
        return { kind, x, y, a: record(x, ['removed']), b: record(y, ['removed']) };
      }),
    );
    await settle();
    for (const p of pairs) {
      if (p.kind === 'document')
        await (p.x as Awaited<ReturnType<SyncClient['document']>>).removeDocument();
      if (p.kind === 'list') await (p.x as Awaited<ReturnType<SyncClient['list']>>).removeList();
      if (p.kind === 'map') await (p.x as Awaited<ReturnType<SyncClient['map']>>).removeMap();
      if (p.kind === 'stream')
        await (p.x as Awaited<ReturnType<SyncClient['stream']>>).removeStream();
    }
    await waitFor(() => pairs.every((p) => p.b.length === 1), 5000, 'remote removed events');
    for (const p of pairs) {
      expect(
        p.a.map(([, e]) => e.isLocal),
        p.kind,
      ).toEqual([true]);
      expect(
        p.b.map(([, e]) => e.isLocal),
        p.kind,
      ).toEqual([false]);
    }
  });

  it('keeps event ids and revisions growing and date_updated moving forward', async () => {
    const la = await alice.list('monotonic-list');
    let lastId = la.lastEventId;
    let lastDate = la.dateUpdated.getTime();
    const revisions = new Set<string>([la.revision]);
    for (let i = 0; i < 5; i++) {
      await la.push({ i });
      // The SDK advances a list's last event id from the event, which follows the reply.
      await waitFor(() => la.lastEventId > lastId, 5000, 'event id to grow');
      expect(la.dateUpdated.getTime()).toBeGreaterThanOrEqual(lastDate);
      expect(revisions.has(la.revision)).toBe(false);
      revisions.add(la.revision);
      lastId = la.lastEventId;
      lastDate = la.dateUpdated.getTime();
    }
  });

  it('sends a burst of writes as few notifications that the SDK applies in order, each reply first', async () => {
    const mb = await bob.map('burst-map');
    const seen = record(mb, ['itemAdded']);
    await settle();
    const raw = await RawTwilsock.open(server.url);
    await raw.init(accountToken(server, 'dave@example.com', 600));
    const established = await raw.request('POST', '/v4/Subscriptions', {
      event_protocol_version: 4,
      action: 'establish',
      correlation_id: 1,
      requests: [{ object_sid: mb.sid, object_type: 'map', last_event_id: mb.lastEventId }],
    });
    expect((established.header.http_status as { code: number }).code).toBe(202);
    const isEstablished = (f: (typeof raw.frames)[number]): boolean =>
      (f.body as { event_type?: string } | undefined)?.event_type === 'subscription_established';
    await waitFor(() => raw.frames.some(isEstablished), 5000, 'subscription_established');
    const start = raw.frames.length;
    // Pipelined on one socket, so the server reads them in one turn: one group commit, one delivery round.
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        raw.request('PUT', `/v3/Maps/${mb.sid}/Items/k${String(i).padStart(2, '0')}`, {
          data: { i },
        }),
      ),
    );
    expect(replies.map((r) => (r.header.http_status as { code: number }).code)).toEqual(
      Array.from({ length: 40 }, () => 201),
    );
    await waitFor(() => seen.length === 40, 5000, 'forty itemAdded on the SDK client');
    expect(seen.map(([, e]) => [(e.item as { key: string }).key, e.isLocal])).toEqual(
      Array.from({ length: 40 }, (_, i) => [`k${String(i).padStart(2, '0')}`, false]),
    );
    expect(seen.map(([, e]) => (e.item as { data: { i: number } }).data.i)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    // On the writer's own connection each write's reply precedes the notification carrying its event.
    const frames = raw.frames.slice(start);
    const replyAt = new Map<string, number>();
    frames.forEach((f, k) => {
      if (f.header.method === 'reply') replyAt.set((f.body as { key: string }).key, k);
    });
    const events = frames.flatMap((f, k) => {
      if (f.header.method !== 'notification') return [];
      const b = f.body as { event_type: string; event?: unknown; events?: unknown[] };
      expect(b.event_type).toBe('map_item_added');
      const list = (b.events ?? [b.event]) as Array<{
        id: number;
        item_key: string;
        item_url: string;
      }>;
      return list.map((e) => ({ ...e, at: k }));
    });
    expect(events.map((e) => e.item_key)).toEqual(
      seen.map(([, e]) => (e.item as { key: string }).key),
    );
    expect(events.every((e) => replyAt.get(e.item_key)! < e.at)).toBe(true);
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((x, y) => x - y));
    expect(events.every((e) => e.item_url.startsWith(server.url + '/v3/Maps/'))).toBe(true);
    const notes = new Set(events.map((e) => e.at));
    expect(notes.size).toBeLessThan(events.length);
    raw.close();
  });
});
