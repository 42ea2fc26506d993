/** Time to live on items and whole objects: hidden once expired, swept, and the removal seen by other clients. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients, waitFor } from './support';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('ttl with the expiry sweep', () => {
  let server: RunningServer;
  let alice: SyncClient;
  let bob: SyncClient;

  beforeAll(async () => {
    server = await startServer({ env: { SWITCHBOARD_SYNC_SWEEP_MS: '200' } });
    await aclOff(server);
    alice = await client(server.url, 'alice@example.com');
    bob = await client(server.url, 'bob@example.com');
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('expires a list item and another client sees it removed', async () => {
    const la = await alice.list('ttl-list');
    const lb = await bob.list('ttl-list');
    const removed: Array<{ index: number; isLocal: boolean }> = [];
    lb.on('itemRemoved', (e: { index: number; isLocal: boolean }) => removed.push(e));
    await sleep(300);
    const keep = await la.push({ keep: true });
    const gone = await la.push({ keep: false }, { ttl: 1 });
    expect(new Date(gone.dateExpires).getTime()).toBeGreaterThan(Date.now());
    await waitFor(() => removed.length === 1, 5000, 'itemRemoved');
    expect(removed[0]).toMatchObject({ index: gone.index, isLocal: false });
    const fresh = await (await client(server.url, 'carol@example.com')).list('ttl-list');
    expect((await fresh.getItems({})).items.map((i) => i.index)).toEqual([keep.index]);
  });

  it('expires a map item set with a ttl and one whose ttl was set later', async () => {
    const ma = await alice.map('ttl-map');
    const mb = await bob.map('ttl-map');
    const removed: string[] = [];
    mb.on('itemRemoved', (e: { key: string }) => removed.push(e.key));
    await sleep(300);
    await ma.set('a', { v: 1 }, { ttl: 1 });
    await ma.set('b', { v: 2 });
    await ma.setItemTtl('b', 1);
    await ma.set('c', { v: 3 });
    await waitFor(() => removed.length === 2, 5000, 'two map items removed');
    expect(removed.sort()).toEqual(['a', 'b']);
    const fresh = await (await client(server.url, 'dave@example.com')).map('ttl-map');
    expect((await fresh.getItems({})).items.map((i) => i.key)).toEqual(['c']);
  });

  it('expires a whole list and every subscriber sees it removed', async () => {
    const la = await alice.list('ttl-whole-list');
    await la.push({ x: 1 });
    const lb = await bob.list('ttl-whole-list');
    const seen: boolean[] = [];
    lb.on('removed', (e: { isLocal: boolean }) => seen.push(e.isLocal));
    const seenA: boolean[] = [];
    la.on('removed', (e: { isLocal: boolean }) => seenA.push(e.isLocal));
    await sleep(300);
    await la.setTtl(1);
    await waitFor(() => seen.length === 1 && seenA.length === 1, 5000, 'list removed on both');
    expect(seen).toEqual([false]);
    const e = await (
      await client(server.url, 'erin@example.com')
    )
      .list({ id: 'ttl-whole-list', mode: 'open_existing' })
      .then(
        () => null,
        (err: { status: number; code: number }) => err,
      );
    expect(e).toMatchObject({ status: 404, code: 54300 });
  });

  it('expires documents and streams created with a ttl', async () => {
    const doc = await alice.document({ id: 'ttl-doc', ttl: 1, data: { a: 1 } });
    const stream = await alice.stream({ id: 'ttl-stream', ttl: 1 });
    const removed: string[] = [];
    (await bob.document('ttl-doc')).on('removed', () => removed.push('doc'));
    (await bob.stream('ttl-stream')).on('removed', () => removed.push('stream'));
    expect(doc.sid).toMatch(/^ET/);
    expect(stream.sid).toMatch(/^TO/);
    await waitFor(() => removed.length === 2, 5000, 'doc and stream removed');
    expect(removed.sort()).toEqual(['doc', 'stream']);
  });
});

describe('ttl before the sweep runs', () => {
  let server: RunningServer;
  let alice: SyncClient;

  beforeAll(async () => {
    server = await startServer({ env: { SWITCHBOARD_SYNC_SWEEP_MS: '600000' } });
    await aclOff(server);
    alice = await client(server.url, 'alice@example.com');
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('hides expired items and objects from reads even when no sweep has removed them yet', async () => {
    const map = await alice.map('lazy-map');
    await map.set('short', { v: 1 }, { ttl: 1 });
    await map.set('long', { v: 2 });
    const list = await alice.list({ id: 'lazy-list', ttl: 1 });
    expect(String(list.dateExpires)).toMatch(/^\d{4}-\d\d-\d\dT/);
    await sleep(1200);
    const other = await client(server.url, 'bob@example.com');
    const m = await other.map('lazy-map');
    expect((await m.getItems({})).items.map((i) => i.key)).toEqual(['long']);
    await expect(m.get('short')).rejects.toMatchObject({ status: 404, code: 54201 });
    await expect(other.list({ id: 'lazy-list', mode: 'open_existing' })).rejects.toMatchObject({
      status: 404,
      code: 54300,
    });
  });
});
