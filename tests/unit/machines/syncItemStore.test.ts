import { describe, expect, it } from 'vitest';
import { advanceMeta, compareKeys } from '../../../src/machines/syncContainer';
import { ItemStore } from '../../../src/machines/syncItemStore';
import { orderedView } from '../../../src/machines/syncView';

describe('ItemStore', () => {
  it('keeps every older version intact as later versions are written', () => {
    const versions: Array<ItemStore<number, string>> = [ItemStore.empty()];
    for (let i = 0; i < 500; i += 1) versions.push(versions.at(-1)!.set(i, `v${i}`, i + 1));
    expect(versions[10]!.size).toBe(10);
    expect(versions[10]!.get(11)).toBeUndefined();
    expect(versions[500]!.size).toBe(500);
    expect(versions[500]!.get(499)).toBe('v499');
  });

  it('tracks tombstones: removed keys stay known with their event id', () => {
    const store = ItemStore.empty<string, string>().set('a', 'A', 3).remove('a', 5);
    expect(store.has('a')).toBe(false);
    expect(store.size).toBe(0);
    expect(store.knownEventId('a')).toBe(5);
    expect(store.isNewer('a', 5)).toBe(false);
    expect(store.isNewer('a', 6)).toBe(true);
    expect(store.remove('a', null).knownEventId('a')).toBe(5);
  });

  it('sets only newer events with setIfNewer, returning the same store otherwise', () => {
    const store = ItemStore.empty<string, string>().set('a', 'A', 3).remove('b', 7);
    expect(store.setIfNewer('a', 'old', 3)).toBe(store);
    expect(store.setIfNewer('a', 'older', 2)).toBe(store);
    expect(store.setIfNewer('b', 'stale', 6)).toBe(store);
    const next = store.setIfNewer('a', 'A2', 4).setIfNewer('b', 'B', 8).setIfNewer('c', 'C', 1);
    expect([next.get('a'), next.get('b'), next.get('c'), next.size]).toEqual(['A2', 'B', 'C', 3]);
    expect([store.get('a'), store.has('b'), store.size]).toEqual(['A', false, 1]);
  });

  it('keeps thousands of keys sharing buckets apart, with removals counted once', () => {
    let store = ItemStore.empty<string, number>();
    for (let i = 0; i < 20_000; i += 1) store = store.set(`k${i}`, i, 1);
    for (let i = 0; i < 20_000; i += 2) store = store.remove(`k${i}`, 2).remove(`k${i}`, 1);
    expect(store.size).toBe(10_000);
    expect(store.get('k1')).toBe(1);
    expect(store.get('k2')).toBeUndefined();
    expect(store.knownEventId('k2')).toBe(2);
    expect(
      store
        .values()
        .sort((a, b) => a - b)
        .slice(0, 3),
    ).toEqual([1, 3, 5]);
  });

  it('gives sorted views, cached per store version', () => {
    const store = ItemStore.empty<string, { key: string }>()
      .set('b', { key: 'b' }, 1)
      .set('aa', { key: 'aa' }, 2)
      .set('B', { key: 'B' }, 3)
      .set('a', { key: 'a' }, 4);
    const cmp = (x: { key: string }, y: { key: string }) => compareKeys(x.key, y.key);
    const asc = orderedView(store, 'asc', cmp);
    expect(asc.map((i) => i.key)).toEqual(['B', 'a', 'aa', 'b']);
    expect(orderedView(store, 'asc', cmp)).toBe(asc);
    expect(orderedView(store, 'desc', cmp).map((i) => i.key)).toEqual(['b', 'aa', 'a', 'B']);
  });
});

describe('advanceMeta', () => {
  const meta = {
    sid: 'ES1',
    uniqueName: null,
    revision: 'r5',
    lastEventId: 5,
    dateUpdated: 100,
    dateExpires: null,
  };
  it('moves event id and revision forward only, date only later, and keeps the reference otherwise', () => {
    expect(advanceMeta(meta, { lastEventId: 4, revision: 'r4', dateUpdated: 50 })).toBe(meta);
    expect(advanceMeta(meta, { lastEventId: 6, revision: 'r6', dateUpdated: 90 })).toEqual({
      ...meta,
      lastEventId: 6,
      revision: 'r6',
    });
    expect(advanceMeta(meta, { lastEventId: 5, revision: 'rX', dateUpdated: 200 })).toEqual({
      ...meta,
      dateUpdated: 200,
    });
  });
});
