import { describe, expect, it } from 'vitest';
import { askList } from '../../../src/machines/syncAsk';
import { ask } from '../../../src/machines/syncCommand';
import type { ListCommandEvent, ListCommandResults } from '../../../src/machines/syncList.machine';
import {
  selectListHasMore,
  selectListItems,
  selectListLoadingPage,
  selectListConnection,
  selectListOffline,
  selectListStatus,
} from '../../../src/machines/syncList.selectors';
import { SyncFailure } from '../../../src/contracts/sync-errors';
import type { ListItem } from '../../../src/machines/syncPorts';
import { flush, serverError } from './syncFakes';
import { listItem, seededList, startList } from './syncHarness';

const indexes = (items: readonly ListItem[]) => items.map((i) => i.index);

describe('syncList machine: opening and paging', () => {
  it('opens an existing list and loads the first page: 50 items, ascending', async () => {
    const { actor, list } = await startList({ existing: seededList(120) });
    const snapshot = actor.getSnapshot();
    expect(selectListStatus(snapshot)).toBe('ready');
    expect(list().calls).toEqual([{ method: 'getItems', args: [{ pageSize: 50, order: 'asc' }] }]);
    expect(indexes(selectListItems(snapshot))).toEqual([...Array(50).keys()]);
    expect(selectListHasMore(snapshot)).toBe(true);
    expect(snapshot.context.meta?.sid).toBe('ES-calls');
  });

  it('loads further pages on demand, from the last index, until there are no more', async () => {
    const { actor, list } = await startList({ existing: seededList(120) });
    actor.send({ type: 'list.loadMore' });
    expect(selectListLoadingPage(actor.getSnapshot())).toBe(true);
    await flush();
    expect(list().calls[1]).toEqual({
      method: 'getItems',
      args: [{ from: 49, pageSize: 51, order: 'asc' }],
    });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([...Array(100).keys()]);
    actor.send({ type: 'list.loadMore' });
    await flush();
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([...Array(120).keys()]);
    expect(selectListHasMore(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'list.loadMore' });
    await flush();
    expect(list().calls).toHaveLength(3);
  });

  it('pages newest first when asked for descending order', async () => {
    const { actor, list } = await startList({
      existing: seededList(5),
      input: { id: 'calls', order: 'desc', pageSize: 2 },
    });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([4, 3]);
    actor.send({ type: 'list.loadMore' });
    await flush();
    expect(list().calls[1]?.args).toEqual([{ from: 3, pageSize: 3, order: 'desc' }]);
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([4, 3, 2, 1]);
  });

  it('rejects a bad page size or order before opening anything', async () => {
    const { actor, directory } = await startList({ input: { id: 'calls', pageSize: 0 } });
    expect(selectListStatus(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toMatch(
      /pageSize must be a positive integer/,
    );
    expect(directory.opens).toHaveLength(0);
    const other = await startList({ input: { id: 'calls', order: 'up' as 'asc' } });
    expect(other.actor.getSnapshot().context.error?.message).toMatch(
      /order must be "asc" or "desc"/,
    );
  });

  it('creates the list when open_or_create finds none', async () => {
    const { actor, directory } = await startList();
    expect(directory.opens).toHaveLength(1);
    expect(directory.creates).toHaveLength(1);
    expect(selectListStatus(actor.getSnapshot())).toBe('ready');
    expect(selectListItems(actor.getSnapshot())).toEqual([]);
  });

  it('fails when open_existing finds no list, and opens again on retry', async () => {
    const { actor, directory } = await startList({ input: { id: 'calls', mode: 'open_existing' } });
    expect(selectListStatus(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toBe('No list named "calls" exists');
    directory.entities.set('calls', seededList(1));
    actor.send({ type: 'list.retry' });
    await flush();
    expect(selectListStatus(actor.getSnapshot())).toBe('ready');
    expect(selectListItems(actor.getSnapshot())).toHaveLength(1);
  });

  it('shows a page that failed to load, and loads it on retry', async () => {
    const list = seededList(60);
    list.failNext('getItems', serverError());
    const { actor } = await startList({ existing: list });
    expect(actor.getSnapshot().matches({ ready: 'pageFailed' })).toBe(true);
    expect(actor.getSnapshot().context.error?.status).toBe(503);
    actor.send({ type: 'list.retry' });
    await flush();
    expect(actor.getSnapshot().matches({ ready: 'idle' })).toBe(true);
    expect(selectListItems(actor.getSnapshot())).toHaveLength(50);
  });

  it('answers a command sent while opening with a clear error and sends nothing', async () => {
    const { actor, directory } = await startList({ input: { id: 'calls', mode: 'open_existing' } });
    await expect(
      ask<never, unknown>(actor as never, { type: 'list.push', data: { a: 1 } } as never, 'list'),
    ).rejects.toThrow('No list named "calls" exists');
    expect(directory.entities.size).toBe(0);
  });
});

describe('syncList machine: pushed events', () => {
  it('applies itemAdded once', async () => {
    const { actor, events, applied } = await startList({ existing: seededList(2) });
    events.push({ type: 'list.itemAdded', item: listItem(2, 3), isLocal: false });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([0, 1, 2]);
    expect(actor.getSnapshot().context.items.get(2)).toEqual(listItem(2, 3));
    expect(applied()).toBe(1);
  });

  it('ignores an item event whose id is not newer than the one known for that index', async () => {
    const { actor, events, applied } = await startList({ existing: seededList(2) });
    events.push({ type: 'list.itemUpdated', item: listItem(1, 5, { v: 'new' }), isLocal: false });
    const before = actor.getSnapshot().context.items;
    events.push({ type: 'list.itemUpdated', item: listItem(1, 5, { v: 'dup' }), isLocal: false });
    events.push({ type: 'list.itemUpdated', item: listItem(1, 4, { v: 'old' }), isLocal: false });
    expect(actor.getSnapshot().context.items).toBe(before);
    expect(actor.getSnapshot().context.items.get(1)?.data).toEqual({ v: 'new' });
    expect(applied()).toBe(1);
  });

  it('keeps a removed index removed against older events (tombstones)', async () => {
    const { actor, events, applied } = await startList({ existing: seededList(2) });
    events.push({
      type: 'list.itemRemoved',
      index: 1,
      lastEventId: 7,
      dateUpdated: 1_007,
      isLocal: true,
    });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([0]);
    events.push({ type: 'list.itemUpdated', item: listItem(1, 6), isLocal: false });
    events.push({ type: 'list.itemAdded', item: listItem(1, 7), isLocal: false });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([0]);
    events.push({
      type: 'list.itemRemoved',
      index: 1,
      lastEventId: 8,
      dateUpdated: 1_008,
      isLocal: false,
    });
    expect(applied()).toBe(1);
  });

  it('applies a removal whose id the SDK did not report, once', async () => {
    const { actor, events, applied } = await startList({ existing: seededList(2) });
    events.push({
      type: 'list.itemRemoved',
      index: 0,
      lastEventId: null,
      dateUpdated: null,
      isLocal: false,
    });
    events.push({
      type: 'list.itemRemoved',
      index: 0,
      lastEventId: null,
      dateUpdated: null,
      isLocal: false,
    });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([1]);
    expect(applied()).toBe(1);
    // The tombstone keeps the removed item's own id: an older add stays ignored.
    events.push({ type: 'list.itemAdded', item: listItem(0, 1), isLocal: false });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([1]);
  });

  it('moves the list revision and last event id only forward, and date_updated only later', async () => {
    const { actor, events } = await startList({ existing: seededList(2) });
    const meta = () => actor.getSnapshot().context.meta!;
    expect(meta()).toMatchObject({ lastEventId: 2, revision: '2' });
    events.push({
      type: 'list.itemAdded',
      item: listItem(2, 9),
      isLocal: false,
      container: { lastEventId: 9, revision: 'r9', dateUpdated: 5_000 },
    });
    expect(meta()).toMatchObject({ lastEventId: 9, revision: 'r9', dateUpdated: 5_000 });
    events.push({
      type: 'list.itemAdded',
      item: listItem(3, 4),
      isLocal: false,
      container: { lastEventId: 4, revision: 'r4', dateUpdated: 4_000 },
    });
    expect(meta()).toMatchObject({ lastEventId: 9, revision: 'r9', dateUpdated: 5_000 });
    events.push({
      type: 'list.itemRemoved',
      index: 3,
      lastEventId: 10,
      dateUpdated: 6_000,
      isLocal: false,
    });
    expect(meta()).toMatchObject({ lastEventId: 10, revision: 'r9', dateUpdated: 6_000 });
  });

  it('applies a context update only when its id is newer', async () => {
    const { actor, events, emitted } = await startList({ existing: seededList(0) });
    events.push({ type: 'list.contextUpdated', context: { a: 1 }, lastEventId: 3, isLocal: false });
    events.push({ type: 'list.contextUpdated', context: { a: 0 }, lastEventId: 2, isLocal: false });
    expect(actor.getSnapshot().context.listContext).toEqual({ data: { a: 1 }, eventId: 3 });
    expect(emitted.filter((e) => e.type === 'list.contextUpdated')).toHaveLength(1);
  });

  it('reads connection loss from the mirrored connection state and recovers', async () => {
    const { actor } = await startList({ existing: seededList(0) });
    actor.send({ type: 'sync.connectionChanged', state: 'disconnected' });
    expect(selectListOffline(actor.getSnapshot())).toBe(true);
    expect(selectListConnection(actor.getSnapshot())).toBe('disconnected');
    actor.send({ type: 'sync.connectionChanged', state: 'connected' });
    expect(selectListOffline(actor.getSnapshot())).toBe(false);
  });
});

describe('syncList machine: removal', () => {
  it('answers removeList when the SDK announces the removal before the call returns', async () => {
    const existing = seededList(1);
    const { actor, events, emitted } = await startList({ existing });
    existing.removeList = async () => {
      await Promise.resolve();
      events.push({ type: 'list.removed', isLocal: true });
    };
    await expect(ask(actor, { type: 'list.removeList' }, 'list')).resolves.toBeUndefined();
    expect(emitted).toContainEqual({ type: 'list.removed', isLocal: true });
  });

  it('does not treat a missing item (54151) on setItemTtl as a removed list', async () => {
    const existing = seededList(1);
    existing.failNext(
      'setItemTtl',
      new SyncFailure('No item with index 9 found', 404, 54151, 'notFound'),
    );
    const { actor } = await startList({ existing });
    await expect(ask(actor, { type: 'list.setItemTtl', index: 9, ttl: 5 }, 'list')).rejects.toThrow(
      'No item with index 9 found',
    );
    expect(selectListStatus(actor.getSnapshot())).toBe('ready');
  });
});

describe('syncList machine: commands', () => {
  it('pushes an item, answers with it and shows it in the view', async () => {
    const { actor, list } = await startList({ existing: seededList(1) });
    const item: ListItem = await askList(actor, {
      type: 'list.push',
      data: { from: '+15550100' },
      ttl: 30,
    });
    expect(item).toMatchObject({ index: 1, data: { from: '+15550100' } });
    expect(list().calls.at(-1)).toEqual({
      method: 'push',
      args: [{ from: '+15550100' }, { ttl: 30 }],
    });
    expect(indexes(selectListItems(actor.getSnapshot()))).toEqual([0, 1]);
  });

  it('sets, updates and mutates items, each result applied once', async () => {
    const { actor } = await startList({ existing: seededList(2) });
    await ask(actor, { type: 'list.set', index: 0, data: { a: 1 } }, 'list');
    await ask(actor, { type: 'list.update', index: 0, data: { b: 2 } }, 'list');
    await ask(
      actor,
      { type: 'list.mutate', index: 1, mutator: (current) => ({ ...current, c: 3 }) },
      'list',
    );
    const items = selectListItems(actor.getSnapshot());
    expect(items.map((i) => i.data)).toEqual([
      { a: 1, b: 2 },
      { n: 1, c: 3 },
    ]);
  });

  it('reports a missing item with the seed message', async () => {
    const { actor } = await startList({ existing: seededList(1) });
    await expect(ask(actor, { type: 'list.get', index: 4 }, 'list')).rejects.toThrow(
      'No item with index 4 found',
    );
    expect(selectListStatus(actor.getSnapshot())).toBe('ready');
  });

  it('returns a page for getItems with the defaults filled in', async () => {
    const { actor, list } = await startList({ existing: seededList(3) });
    const page = await ask<typeof actor.logic, ListCommandResults['list.getItems']>(
      actor,
      { type: 'list.getItems', from: 1 },
      'list',
    );
    expect(page.items.map((i) => i.index)).toEqual([1, 2]);
    expect(list().calls.at(-1)?.args).toEqual([{ pageSize: 50, from: 1, order: 'asc' }]);
  });

  it('runs concurrent commands and answers each caller with its own result', async () => {
    const { actor } = await startList({ existing: seededList(0) });
    const results = await Promise.all([
      ask<typeof actor.logic, ListItem>(actor, { type: 'list.push', data: { k: 'a' } }, 'list'),
      ask<typeof actor.logic, ListItem>(actor, { type: 'list.push', data: { k: 'b' } }, 'list'),
    ]);
    expect(results.map((r) => r.data)).toEqual([{ k: 'a' }, { k: 'b' }]);
    expect(selectListItems(actor.getSnapshot())).toHaveLength(2);
  });

  const invalid: Array<[string, ListCommandEvent, RegExp]> = [
    [
      'push data that is an array',
      { type: 'list.push', data: [] as never },
      /data must be a plain object/,
    ],
    [
      'push data that is null',
      { type: 'list.push', data: null as never },
      /data must be a plain object/,
    ],
    [
      'push data that is a class instance',
      { type: 'list.push', data: new Map() as never },
      /plain object/,
    ],
    [
      'push with a negative ttl',
      { type: 'list.push', data: {}, ttl: -1 },
      /ttl must be a non-negative integer or absent/,
    ],
    [
      'push with a fractional ttl',
      { type: 'list.push', data: {}, ttl: 1.5 },
      /ttl must be a non-negative integer/,
    ],
    [
      'set at a negative index',
      { type: 'list.set', index: -1, data: {} },
      /index must be a non-negative integer, got -1/,
    ],
    [
      'set at a fractional index',
      { type: 'list.set', index: 1.5, data: {} },
      /index must be a non-negative integer/,
    ],
    [
      'update at a string index',
      { type: 'list.update', index: '0' as never, data: {} },
      /index must be a non-negative integer, got "0"/,
    ],
    [
      'update with data that is a string',
      { type: 'list.update', index: 0, data: 'x' as never },
      /data must be a plain object/,
    ],
    [
      'mutate without a function',
      { type: 'list.mutate', index: 0, mutator: {} as never },
      /mutate callback must be a function/,
    ],
    [
      'remove at NaN',
      { type: 'list.remove', index: Number.NaN },
      /index must be a non-negative integer/,
    ],
    [
      'getItems from -1',
      { type: 'list.getItems', from: -1 },
      /from must be a non-negative integer or absent/,
    ],
    [
      'getItems pageSize 0',
      { type: 'list.getItems', pageSize: 0 },
      /pageSize must be a positive integer or absent/,
    ],
    [
      'getItems pageSize 2.5',
      { type: 'list.getItems', pageSize: 2.5 },
      /pageSize must be a positive integer/,
    ],
    [
      'getItems order "up"',
      { type: 'list.getItems', order: 'up' as never },
      /order must be "asc" or "desc" or absent/,
    ],
    ['setTtl -5', { type: 'list.setTtl', ttl: -5 }, /ttl must be a non-negative integer/],
    [
      'setTtl absent',
      { type: 'list.setTtl' } as never,
      /ttl must be a non-negative integer, got undefined/,
    ],
    [
      'setItemTtl at index -1',
      { type: 'list.setItemTtl', index: -1, ttl: 5 },
      /index must be a non-negative integer/,
    ],
  ];
  it.each(invalid)(
    'rejects %s with a clear error and sends nothing',
    async (_, command, message) => {
      const { actor, list, emitted } = await startList({ existing: seededList(1) });
      await expect(ask(actor, command, 'list')).rejects.toThrow(message);
      expect(list().calls.map((c) => c.method)).toEqual(['getItems']);
      expect(emitted.at(-1)).toMatchObject({ type: 'command.failed', command: command.type });
      expect(selectListStatus(actor.getSnapshot())).toBe('ready');
    },
  );
});
