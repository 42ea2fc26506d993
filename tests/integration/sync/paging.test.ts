/** Item queries through the SDK's paginator (defaults, both orders, From, 500 items) and raw page tokens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../../support/server';
import { accountToken, aclOff, client, RawTwilsock, shutdownClients } from './support';

type Page<T> = {
  items: T[];
  hasNextPage: boolean;
  hasPrevPage: boolean;
  nextPage(): Promise<Page<T>>;
  prevPage(): Promise<Page<T>>;
};

async function walk<T>(first: Page<T>): Promise<T[][]> {
  const pages = [first.items];
  let page = first;
  while (page.hasNextPage) {
    if (pages.length > 1000) throw new Error('the paginator never ends');
    page = await page.nextPage();
    pages.push(page.items);
  }
  return pages;
}

describe('paging', () => {
  let server: RunningServer;
  let writer: SyncClient;
  let n = 0;
  /** A fresh client has an empty item cache, so every page comes from the server. */
  const reader = (): Promise<SyncClient> => client(server.url, `reader${++n}@example.com`);

  beforeAll(async () => {
    server = await startServer();
    await aclOff(server);
    writer = await client(server.url, 'writer@example.com');
    const list = await writer.list('paging-60');
    for (let i = 0; i < 60; i += 20)
      await Promise.all(Array.from({ length: 20 }, (_, j) => list.push({ i: i + j })));
    const big = await writer.list('paging-500');
    for (let i = 0; i < 500; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => big.push({ i: i + j })));
  }, 120_000);
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('defaults to pages of 50 in ascending order', async () => {
    const list = await (await reader()).list('paging-60');
    const first = await list.getItems({});
    expect(first.items.map((x) => x.index)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect([first.hasPrevPage, first.hasNextPage]).toEqual([false, true]);
    const second = await first.nextPage();
    expect(second.items.map((x) => x.index)).toEqual(Array.from({ length: 10 }, (_, i) => 50 + i));
    expect([second.hasPrevPage, second.hasNextPage]).toEqual([true, false]);
  });

  it('pages in descending order', async () => {
    const list = await (await reader()).list('paging-60');
    const pages = await walk(await list.getItems({ order: 'desc', pageSize: 25 }));
    expect(pages.map((p) => p.length)).toEqual([25, 25, 10]);
    expect(pages.flat().map((x) => x.index)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
  });

  it('starts at From, inclusive, in both orders', async () => {
    const list = await (await reader()).list('paging-60');
    const up = await list.getItems({ from: 20, pageSize: 5 });
    expect(up.items.map((x) => x.index)).toEqual([20, 21, 22, 23, 24]);
    expect([up.hasPrevPage, up.hasNextPage]).toEqual([true, true]);
    const list2 = await (await reader()).list('paging-60');
    const down = await list2.getItems({ from: 20, pageSize: 5, order: 'desc' });
    expect(down.items.map((x) => x.index)).toEqual([20, 19, 18, 17, 16]);
    // Walking backwards to the very start is not checked: twilio-sync 4.0.1 marks the collection's beginning
    // from the wrong meta token when it pages backwards, so its hasPrevPage never turns false (docs/sync-service.md).
    const list3 = await (await reader()).list('paging-60');
    const from30 = await list3.getItems({ from: 30, pageSize: 10 });
    const before = await from30.prevPage();
    expect(before.items.map((x) => x.index)).toEqual([20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    expect((await before.prevPage()).items.map((x) => x.index)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
  });

  it('walks every page of 500 items in both orders without gaps or repeats', async () => {
    const list = await (await reader()).list('paging-500');
    const pages = await walk(await list.getItems({ pageSize: 100 }));
    expect(pages.flat().map((x) => x.index)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(
      pages
        .flat()
        .map((x) => (x.data as { i: number }).i)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 500 }, (_, i) => i));
    const list2 = await (await reader()).list('paging-500');
    const down = await walk(await list2.getItems({ pageSize: 30, order: 'desc' }));
    expect(down.flat().map((x) => x.index)).toEqual(Array.from({ length: 500 }, (_, i) => 499 - i));
  });

  it('orders map keys by code unit and pages with From', async () => {
    const map = await writer.map('paging-map');
    for (const k of ['b', 'aa', 'B', 'a', 'c']) await map.set(k, { k });
    const m = await (await reader()).map('paging-map');
    const pages = await walk(await m.getItems({ pageSize: 2 }));
    expect(pages.flat().map((x) => x.key)).toEqual(['B', 'a', 'aa', 'b', 'c']);
    const m2 = await (await reader()).map('paging-map');
    const from = await m2.getItems({ from: 'ab', order: 'desc' });
    expect(from.items.map((x) => x.key)).toEqual(['aa', 'a', 'B']);
  });

  it('serves real page tokens, clamps PageSize to 100 and refuses a PageSize above 1000', async () => {
    const raw = await RawTwilsock.open(server.url);
    await raw.init(accountToken(server, 'raw@example.com', 600));
    const path = '/v3/Lists/paging-500/Items';
    const first = await raw.request('GET', path, undefined, { PageSize: '500' });
    const body = first.body as {
      items: Array<{ index: number }>;
      meta: { next_token: string | null; previous_token: string | null };
    };
    expect(body.items).toHaveLength(100);
    expect(body.meta.previous_token).toBeNull();
    const seen = [...body.items.map((x) => x.index)];
    let next = body.meta.next_token;
    while (next) {
      const page = await raw.request('GET', path, undefined, {
        PageToken: encodeURIComponent(next),
      });
      const b = page.body as typeof body;
      expect(b.meta.previous_token).not.toBeNull();
      seen.push(...b.items.map((x) => x.index));
      next = b.meta.next_token;
    }
    expect(seen).toEqual(Array.from({ length: 500 }, (_, i) => i));
    const tooBig = await raw.request('GET', path, undefined, { PageSize: '1001' });
    expect(tooBig.header.http_status).toEqual({ code: 400, status: 'Bad Request' });
    expect(tooBig.body).toMatchObject({ code: 20007, status: 400 });
    const badToken = await raw.request('GET', path, undefined, { PageToken: 'nonsense' });
    expect(badToken.body).toMatchObject({ code: 20001, message: 'Invalid PageToken' });
    const badOrder = await raw.request('GET', path, undefined, { Order: 'sideways' });
    expect(badOrder.body).toMatchObject({ status: 400 });
    raw.close();
  });
});
