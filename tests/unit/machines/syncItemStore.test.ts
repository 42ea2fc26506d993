import { describe, expect, it } from 'vitest';
import { advanceMeta, compareKeys } from '../../../src/machines/syncContainer';
import { ItemStore } from '../../../src/machines/syncItemStore';
import { orderedView } from '../../../src/machines/syncView';

describe('ItemStore', () => {
  it('keeps every older version intact, across overlay compactions', () => {
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
