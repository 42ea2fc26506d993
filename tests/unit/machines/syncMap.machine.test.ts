import { describe, expect, it } from 'vitest';
import { askMap } from '../../../src/machines/syncAsk';
import { ask } from '../../../src/machines/syncCommand';
import type { MapCommandEvent } from '../../../src/machines/syncMap.machine';
import {
  selectMapHasMore,
  selectMapItems,
  selectMapOffline,
  selectMapStatus,
} from '../../../src/machines/syncMap.selectors';
import type { MapItem } from '../../../src/machines/syncPorts';
import { flush, notFound } from './syncFakes';
import { mapItem, seededMap, startMap } from './syncHarness';

const keys = (items: readonly MapItem[]) => items.map((i) => i.key);
const manyKeys = (n: number) =>
  Array.from({ length: n }, (_, i) => `k${String(i).padStart(3, '0')}`);

describe('syncMap machine: opening and paging', () => {
  it('holds items by key in code-unit order', async () => {
    const { actor } = await startMap({ existing: seededMap(['b', 'aa', 'B', 'a']) });
    expect(keys(selectMapItems(actor.getSnapshot()))).toEqual(['B', 'a', 'aa', 'b']);
  });

  it('loads 50 per page ascending, and further pages from the last key on demand', async () => {
    const { actor, map } = await startMap({ existing: seededMap(manyKeys(75)) });
    expect(map().calls[0]).toEqual({ method: 'getItems', args: [{ pageSize: 50, order: 'asc' }] });
    expect(selectMapItems(actor.getSnapshot())).toHaveLength(50);
    expect(selectMapHasMore(actor.getSnapshot())).toBe(true);
    actor.send({ type: 'map.loadMore' });
    await flush();
    expect(map().calls[1]?.args).toEqual([{ from: 'k049', pageSize: 51, order: 'asc' }]);
    expect(keys(selectMapItems(actor.getSnapshot()))).toEqual(manyKeys(75));
    expect(selectMapHasMore(actor.getSnapshot())).toBe(false);
  });

  it('creates the map under open_or_create when it is missing', async () => {
    const { actor, directory } = await startMap();
    expect(directory.creates).toEqual([{ kind: 'map', id: 'contacts', mode: 'open_or_create' }]);
    expect(selectMapStatus(actor.getSnapshot())).toBe('ready');
  });

  it('fails create_new on a taken name, saying so', async () => {
    const { actor } = await startMap({
      existing: seededMap([]),
      input: { id: 'contacts', mode: 'create_new' },
    });
    expect(selectMapStatus(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toBe(
      'A map named "contacts" already exists',
    );
  });
});

describe('syncMap machine: pushed events', () => {
  it('applies added, updated and removed items, each once', async () => {
    const { actor, events, applied } = await startMap({ existing: seededMap(['a']) });
    events.push({ type: 'map.itemAdded', item: mapItem('b', 2), isLocal: true });
    events.push({ type: 'map.itemUpdated', item: mapItem('a', 3, { name: 'A' }), isLocal: false });
    events.push({
      type: 'map.itemUpdated',
      item: mapItem('a', 3, { name: 'dup' }),
      isLocal: false,
    });
    events.push({
      type: 'map.itemRemoved',
      key: 'b',
      lastEventId: 4,
      dateUpdated: 1_004,
      isLocal: false,
    });
    const items = selectMapItems(actor.getSnapshot());
    expect(items.map((i) => [i.key, i.data])).toEqual([['a', { name: 'A' }]]);
    expect(applied()).toBe(3);
  });

  it('ignores events older than a removal, but shows a key re-added later', async () => {
    const { actor, events } = await startMap({ existing: seededMap(['a']) });
    events.push({
      type: 'map.itemRemoved',
      key: 'a',
      lastEventId: 5,
      dateUpdated: null,
      isLocal: false,
    });
    events.push({ type: 'map.itemUpdated', item: mapItem('a', 4), isLocal: false });
    expect(selectMapItems(actor.getSnapshot())).toEqual([]);
    events.push({
      type: 'map.itemAdded',
      item: mapItem('a', 6, { name: 'again' }),
      isLocal: false,
    });
    expect(selectMapItems(actor.getSnapshot()).map((i) => i.data)).toEqual([{ name: 'again' }]);
  });

  it('keeps the map revision, last event id and date_updated monotonic', async () => {
    const { actor, events } = await startMap({ existing: seededMap(['a', 'b']) });
    events.push({
      type: 'map.itemUpdated',
      item: mapItem('a', 8),
      isLocal: false,
      container: { lastEventId: 8, revision: 'r8', dateUpdated: 9_000 },
    });
    events.push({
      type: 'map.itemUpdated',
      item: mapItem('b', 7),
      isLocal: false,
      container: { lastEventId: 7, revision: 'r7', dateUpdated: 8_000 },
    });
    expect(actor.getSnapshot().context.meta).toMatchObject({
      lastEventId: 8,
      revision: 'r8',
      dateUpdated: 9_000,
    });
  });

  it('reads connection loss from the mirrored connection state', async () => {
    const { actor } = await startMap({ existing: seededMap([]) });
    expect(selectMapOffline(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'sync.connectionChanged', state: 'connecting' });
    expect(selectMapOffline(actor.getSnapshot())).toBe(true);
    actor.send({ type: 'sync.connectionChanged', state: 'connected' });
    expect(selectMapOffline(actor.getSnapshot())).toBe(false);
  });
});

describe('syncMap machine: commands', () => {
  it('sets an item and answers with it', async () => {
    const { actor, map } = await startMap({ existing: seededMap([]) });
    const item: MapItem = await askMap(actor, {
      type: 'map.set',
      key: 'ann',
      data: { name: 'Ann' },
    });
    expect(item).toMatchObject({ key: 'ann', data: { name: 'Ann' } });
    expect(map().calls.at(-1)).toEqual({
      method: 'set',
      args: ['ann', { name: 'Ann' }, undefined],
    });
    expect(keys(selectMapItems(actor.getSnapshot()))).toEqual(['ann']);
  });

  it('reports a missing item with the seed message and keeps the map', async () => {
    const { actor } = await startMap({ existing: seededMap([]) });
    await expect(ask(actor, { type: 'map.remove', key: 'ghost' }, 'map')).rejects.toThrow(
      'The specified Map Item does not exist',
    );
    expect(selectMapStatus(actor.getSnapshot())).toBe('ready');
  });

  it.each(['map.set', 'map.update', 'map.setTtl'] as const)(
    'treats a 404 on %s as the map removed locally and re-throws',
    async (type) => {
      const existing = seededMap([]);
      const method = type.slice(4);
      existing.failNext(method, notFound(54200));
      const { actor, events, onRemoved, emitted } = await startMap({ existing });
      const command: MapCommandEvent =
        type === 'map.setTtl' ? { type, ttl: 10 } : { type, key: 'a', data: { x: 1 } };
      await expect(ask(actor, command, 'map')).rejects.toMatchObject({ status: 404, code: 54200 });
      expect(selectMapStatus(actor.getSnapshot())).toBe('removed');
      expect(events.unsubscribed).toBe(1);
      expect(onRemoved).toHaveBeenCalledTimes(1);
      expect(emitted.at(-1)).toEqual({ type: 'map.removed', isLocal: true });
    },
  );

  const invalid: Array<[string, MapCommandEvent, RegExp]> = [
    [
      'set with an empty key',
      { type: 'map.set', key: '', data: {} },
      /^SyncMapItem key may not be empty$/,
    ],
    [
      'set with a numeric key',
      { type: 'map.set', key: 5 as never, data: {} },
      /key must be a string/,
    ],
    [
      'set with array data',
      { type: 'map.set', key: 'a', data: [] as never },
      /data must be a plain object/,
    ],
    [
      'set with a negative ttl',
      { type: 'map.set', key: 'a', data: {}, ttl: -1 },
      /ttl must be a non-negative integer/,
    ],
    ['update with an empty key', { type: 'map.update', key: '', data: {} }, /may not be empty/],
    [
      'mutate without a function',
      { type: 'map.mutate', key: 'a', mutator: 'x' as never },
      /must be a function/,
    ],
    ['remove with an empty key', { type: 'map.remove', key: '' }, /may not be empty/],
    [
      'get with an undefined key',
      { type: 'map.get', key: undefined as never },
      /key must be a string/,
    ],
    ['getItems from an empty key', { type: 'map.getItems', from: '' }, /may not be empty/],
    [
      'getItems pageSize -3',
      { type: 'map.getItems', pageSize: -3 },
      /pageSize must be a positive integer/,
    ],
    [
      'getItems order "random"',
      { type: 'map.getItems', order: 'random' as never },
      /order must be "asc" or "desc"/,
    ],
    ['setTtl 1.5', { type: 'map.setTtl', ttl: 1.5 }, /ttl must be a non-negative integer/],
    [
      'setItemTtl with an empty key',
      { type: 'map.setItemTtl', key: '', ttl: 3 },
      /may not be empty/,
    ],
  ];
  it.each(invalid)(
    'rejects %s with a clear error and sends nothing',
    async (_, command, message) => {
      const { actor, map } = await startMap({ existing: seededMap(['a']) });
      await expect(ask(actor, command, 'map')).rejects.toThrow(message);
      expect(map().calls.map((c) => c.method)).toEqual(['getItems']);
    },
  );

  it('gives the empty-key error the seed status and code', async () => {
    const { actor } = await startMap({ existing: seededMap([]) });
    await expect(ask(actor, { type: 'map.set', key: '', data: {} }, 'map')).rejects.toMatchObject({
      status: 400,
      code: 54209,
    });
  });
});
