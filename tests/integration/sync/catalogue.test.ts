/** The seed's error catalogue (section 8) as the SDK reports it, and the three open modes (section 4). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients, waitFor } from './support';

interface SyncErrorLike {
  message: string;
  status: number;
  code: number;
}

async function failure(p: Promise<unknown>): Promise<SyncErrorLike> {
  try {
    await p;
  } catch (e) {
    return e as SyncErrorLike;
  }
  throw new Error('expected the call to fail');
}

/** SyncError appends "(status: …, code: …)" to the message; compare the message itself. */
const text = (e: SyncErrorLike): string => e.message.replace(/ \(status: \d+, code: \d+\)$/, '');

describe('error catalogue and open modes', () => {
  let server: RunningServer;
  let alice: SyncClient;
  let bob: SyncClient;

  beforeAll(async () => {
    server = await startServer({ env: { SWITCHBOARD_SYNC_LOG_REQUESTS: '1' } });
    await aclOff(server);
    alice = await client(server.url, 'alice@example.com');
    bob = await client(server.url, 'bob@example.com');
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('reports a missing list item as 404/54151 "No item with index {n} found"', async () => {
    const list = await alice.list('catalogue-list');
    await list.push({ a: 1 });
    const e = await failure(list.get(99));
    expect([e.status, e.code, text(e)]).toEqual([404, 54151, 'No item with index 99 found']);
    const e2 = await failure(list.set(42, { a: 2 }));
    expect([e2.status, e2.code, text(e2)]).toEqual([404, 54151, 'No item with index 42 found']);
  });

  it('reports a missing map item as 404/54201 "The specified Map Item does not exist"', async () => {
    const map = await alice.map('catalogue-map');
    const e = await failure(map.get('nope'));
    expect([e.status, e.code, text(e)]).toEqual([
      404,
      54201,
      'The specified Map Item does not exist',
    ]);
    const e2 = await failure(map.remove('nope'));
    expect([e2.status, e2.code]).toEqual([404, 54201]);
  });

  it('refuses an empty map item key with 400/54209 from the server, for set and get', async () => {
    const map = await alice.map('catalogue-map');
    const e = await failure(map.set('', { a: 1 }));
    expect([e.status, e.code, text(e)]).toEqual([400, 54209, 'SyncMapItem key may not be empty']);
    const e2 = await failure(map.get(''));
    expect([e2.status, e2.code, text(e2)]).toEqual([
      400,
      54209,
      'SyncMapItem key may not be empty',
    ]);
    expect(server.output()).toMatch(/PUT \/v3\/Maps\/MP[0-9a-f]{32}\/Items\/ -> 400/);
    const page = await map.getItems();
    expect(page.items).toHaveLength(0);
  });

  it('re-fetches and retries conditional updates that meet 412, losing nothing', async () => {
    const da = await alice.document('catalogue-counter');
    const db = await bob.document('catalogue-counter');
    const bump = (d: typeof da): Promise<unknown> =>
      d.mutate((v) => ({ n: ((v as { n?: number }).n ?? 0) + 1 }));
    await Promise.all(Array.from({ length: 8 }, (_, i) => bump(i % 2 ? da : db)));
    await waitFor(() => (db.data as { n?: number }).n === 8 || undefined, 5000, 'counter at 8');
    expect(server.output()).toMatch(/POST \/v3\/Documents\/ET[0-9a-f]{32} -> 412/);
    const la = await alice.list('catalogue-mutate-list');
    const lb = await bob.list('catalogue-mutate-list');
    const item = await la.push({ n: 0 });
    const inc = (l: typeof la): Promise<unknown> =>
      l.mutate(item.index, (v) => ({ n: ((v as { n: number }).n ?? 0) + 1 }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => inc(i % 2 ? la : lb)));
    const fresh = await (
      await client(server.url, 'carol@example.com')
    ).list('catalogue-mutate-list');
    expect((await fresh.get(item.index)).data).toEqual({ n: 6 });
  });

  it('treats a container as removed when ttl or a map put meets 404, and re-throws', async () => {
    const ma = await alice.map('catalogue-doomed');
    const removed: unknown[] = [];
    ma.on('removed', (e) => removed.push(e));
    await (await bob.map('catalogue-doomed')).removeMap();
    const put = await failure(ma.set('k', { a: 1 }));
    expect([put.status, put.code]).toEqual([404, 54200]);
    const ttl = await failure(ma.setTtl(60));
    expect([ttl.status, ttl.code]).toEqual([404, 54200]);
    expect(removed.length).toBeGreaterThanOrEqual(1);
    const la = await alice.list('catalogue-doomed-list');
    await (await bob.list('catalogue-doomed-list')).removeList();
    const lttl = await failure(la.setTtl(60));
    expect([lttl.status, lttl.code]).toEqual([404, 54150]);
  });

  it('answers a bad Insights query with 400/54507 "Invalid query"', async () => {
    const map = await alice.map('catalogue-index');
    await map.set('a', { status: 'ready', n: 1 });
    await map.set('b', { status: 'busy', n: 2 });
    const q = await alice.instantQuery('catalogue-index');
    const e = await failure(q.search('data.status == '));
    expect([e.status, e.code, text(e)]).toEqual([400, 54507, 'Invalid query']);
    await q.search('data.status == "ready" or key == "b"');
    expect(Object.keys(q.getItems()).sort()).toEqual(['a', 'b']);
    await q.search('data.n > 1 and data.status != "ready"');
    expect(q.getItems()).toEqual({ b: { status: 'busy', n: 2 } });
  });

  it('reports an open without id as 404 "Cannot get entity without id"', async () => {
    const e = await failure(alice.list({ mode: 'open_existing' }));
    expect([e.status, text(e)]).toEqual([404, 'Cannot get entity without id']);
  });

  it('refuses oversized data with 413/54006 and stores nothing', async () => {
    const map = await alice.map('catalogue-limits');
    const big = { blob: 'x'.repeat(17 * 1024) };
    const e = await failure(map.set('big', big));
    expect([e.status, e.code]).toEqual([413, 54006]);
    expect(text(e)).toBe('Map Item data exceeds the maximum size of 16384 bytes');
    expect((await failure(map.get('big'))).code).toBe(54201);
    const stream = await alice.stream('catalogue-stream');
    const e2 = await failure(stream.publishMessage({ blob: 'x'.repeat(4 * 1024) }));
    expect([e2.status, e2.code]).toEqual([413, 54006]);
    const doc = await alice.document('catalogue-doc');
    expect((await failure(doc.set(big))).status).toBe(413);
    expect(doc.data).toEqual({});
  });

  describe('open modes', () => {
    it('open_or_create creates a missing object on 404', async () => {
      const list = await alice.list({ id: 'mode-fresh', mode: 'open_or_create' });
      expect(list.sid).toMatch(/^ES[0-9a-f]{32}$/);
      expect(server.output()).toMatch(/GET \/v3\/Lists\/mode-fresh -> 404/);
      const again = await bob.list({ id: 'mode-fresh', mode: 'open_existing' });
      expect(again.sid).toBe(list.sid);
    });

    it('open_or_create re-opens after the 409 when a concurrent creator wins', async () => {
      const racers = await Promise.all(
        ['r1@example.com', 'r2@example.com', 'r3@example.com', 'r4@example.com'].map((e) =>
          client(server.url, e),
        ),
      );
      for (let round = 0; round < 5; round++) {
        const name = `race-${round}`;
        const maps = await Promise.all(
          racers.map((c) => c.map({ id: name, mode: 'open_or_create' })),
        );
        expect(new Set(maps.map((m) => m.sid)).size).toBe(1);
      }
      // At least one racer lost a create and re-opened the winner's object.
      expect(server.output()).toMatch(/POST \/v3\/Maps -> 409/);
    });

    it('create_new on a taken unique name fails with 409/54301', async () => {
      await alice.document('mode-taken');
      const e = await failure(bob.document({ id: 'mode-taken', mode: 'create_new' }));
      expect([e.status, e.code]).toEqual([409, 54301]);
    });

    it('open_existing on a missing unique name fails with 404/54300 for every kind, as the cloud does', async () => {
      const codes = await Promise.all([
        failure(alice.document({ id: 'mode-missing', mode: 'open_existing' })),
        failure(alice.list({ id: 'mode-missing', mode: 'open_existing' })),
        failure(alice.map({ id: 'mode-missing', mode: 'open_existing' })),
        failure(alice.stream({ id: 'mode-missing', mode: 'open_existing' })),
      ]);
      expect(codes.map((e) => [e.status, e.code])).toEqual([
        [404, 54300],
        [404, 54300],
        [404, 54300],
        [404, 54300],
      ]);
    });
  });
});
