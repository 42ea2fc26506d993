/**
 * The copy Sync's events keep current (server/twilio/live-copy.ts): read once, changed by events,
 * read again in the background; an older event is ignored, an event during a read is applied to its
 * result, and a failing Sync is not asked again by every call.
 */
import { describe, expect, it } from 'vitest';
import { LiveCopy, RETRY_MS } from '../../../../server/routing/live-copy';

/** A copy whose reads the test answers, one at a time. */
function harness(refreshMs = 30_000) {
  const clock = { now: 1_000_000 };
  const reads: { resolve: (m: Map<string, string>) => void; reject: (e: Error) => void }[] = [];
  const copy = new LiveCopy<string>(
    () => new Promise<Map<string, string>>((resolve, reject) => reads.push({ resolve, reject })),
    refreshMs,
    () => clock.now,
  );
  const tick = () => new Promise((r) => setImmediate(r));
  return { clock, reads, copy, tick };
}

describe('the copy Sync’s events keep', () => {
  it('is read once, then answered from memory and changed by events', async () => {
    const { reads, copy } = harness();
    const first = copy.get();
    reads[0]!.resolve(new Map([['ann', 'available']]));
    expect([...(await first)]).toEqual([['ann', 'available']]);
    copy.apply('ann', 'away', 1);
    copy.apply('bob', 'available', 2);
    expect([...(await copy.get())]).toEqual([
      ['ann', 'away'],
      ['bob', 'available'],
    ]);
    copy.apply('bob', null, 3);
    expect((await copy.get()).has('bob')).toBe(false);
    expect(reads).toHaveLength(1);
  });

  it('ignores an event older than the last applied to its key, unless the object was made anew', async () => {
    const { reads, copy } = harness();
    const first = copy.get();
    reads[0]!.resolve(new Map());
    await first;
    expect(copy.apply('ann', 'away', 5)).toBe(true);
    expect(copy.apply('ann', 'available', 4)).toBe(false);
    expect(copy.peek('ann')).toBe('away');
    expect(copy.apply('ann', 'made again', 0, true)).toBe(true);
    expect(copy.peek('ann')).toBe('made again');
  });

  it('applies an event that arrives during a read to the read’s result', async () => {
    const { reads, copy } = harness();
    const first = copy.get();
    copy.apply('ann', 'away', 7);
    reads[0]!.resolve(new Map([['ann', 'available (read before the change)']]));
    expect((await first).get('ann')).toBe('away');
  });

  it('is read again in the background once older than its refresh, answering the copy meanwhile', async () => {
    const { clock, reads, copy } = harness(30_000);
    const first = copy.get();
    reads[0]!.resolve(new Map([['ann', 'available']]));
    await first;
    clock.now += 30_000;
    expect((await copy.get()).get('ann')).toBe('available');
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(new Map([['ann', 'away']]));
    await new Promise((r) => setImmediate(r));
    expect((await copy.get()).get('ann')).toBe('away');
    expect(reads).toHaveLength(2);
  });

  it('after a failed read, answers the copy without asking Sync again for a while', async () => {
    const { clock, reads, copy, tick } = harness(30_000);
    const first = copy.get();
    reads[0]!.resolve(new Map([['ann', 'available']]));
    await first;
    clock.now += 30_000;
    await copy.get();
    reads[1]!.reject(new Error('Sync is down'));
    await tick();
    expect((await copy.fresh(3000)).get('ann')).toBe('available');
    await copy.get();
    expect(reads).toHaveLength(2);
    clock.now += RETRY_MS;
    await copy.get();
    expect(reads).toHaveLength(3);
  });

  it('fresh: waits for a read at most its patience, then answers the copy', async () => {
    const { clock, reads, copy } = harness();
    const first = copy.get();
    reads[0]!.resolve(new Map([['ann', 'available']]));
    await first;
    clock.now += 1;
    const slow = copy.fresh(20);
    expect((await slow).get('ann')).toBe('available');
    reads[1]!.resolve(new Map([['ann', 'away']]));
    expect((await copy.fresh(1000)).get('ann')).toBe('away');
  });
});
