/**
 * The check that Sync's webhooks arrive (server/routing/events-check.ts), over a fake Sync REST
 * whose writes either come back as the webhook's event, or do not (lost on the way), or fail.
 * The end-to-end case (the Sync twin losing its webhooks, routing reading per call) is
 * tests/integration/sync/twilio-twins-events.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../../../../src/contracts/record';
import { CHECK_MAP, createEventsCheck } from '../../../../server/routing/events-check';
import type { SyncEvent } from '../../../../server/routing/sync-events';

const WAIT = 1000;

function world() {
  let delivers: 'event' | 'nothing' | 'fail' = 'event';
  const follows: string[] = [];
  const logs: string[] = [];
  const check = createEventsCheck({
    rest: {
      ensureMap: () => Promise.resolve(),
      setMapItem(name: string, key: string, data: JsonObject) {
        if (delivers === 'fail') return Promise.reject(new Error('Sync is down'));
        // Sync answers the write, then sends its webhook a moment later.
        if (delivers === 'event') setTimeout(() => check.seen(itemEvent(name, key, data)), 50);
        return Promise.resolve();
      },
    },
    data: {
      followEvents: () => follows.push('follow'),
      stopFollowing: () => follows.push('stop'),
    },
    url: () => 'https://switchboard.example/api/twilio/sync-events',
    log: (m) => logs.push(m),
    waitMs: WAIT,
    everyMs: 10 * WAIT,
  });
  return {
    check,
    follows,
    logs,
    deliver: (what: typeof delivers) => (delivers = what),
  };
}

const itemEvent = (map: string, key: string, data: JsonObject): SyncEvent => ({
  type: 'map_item_updated',
  params: { EventType: 'map_item_updated', MapUniqueName: map, ItemKey: key },
  data,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the check that Sync’s webhooks arrive', () => {
  it('finds them arriving when its own write comes back as an event, and changes nothing', async () => {
    vi.useFakeTimers();
    const w = world();
    const found = w.check.check();
    await vi.advanceTimersByTimeAsync(100);
    expect(await found).toBe('arriving');
    expect(w.follows).toEqual([]);
    expect(w.logs).toEqual([]);
  });

  it('finds them lost when the event does not come: logs what to check and reads per call, then follows them again when they return', async () => {
    vi.useFakeTimers();
    const w = world();
    w.deliver('nothing');
    const first = w.check.check();
    await vi.advanceTimersByTimeAsync(WAIT + 10);
    expect(await first).toBe('lost');
    expect(w.follows).toEqual(['stop']);
    expect(w.logs).toHaveLength(1);
    expect(w.logs[0]).toContain(
      'did not arrive at https://switchboard.example/api/twilio/sync-events',
    );
    expect(w.logs[0]).toContain('read from Sync for every call');

    // Still lost: said once, not at every check.
    const again = w.check.check();
    await vi.advanceTimersByTimeAsync(WAIT + 10);
    expect(await again).toBe('lost');
    expect(w.logs).toHaveLength(1);

    w.deliver('event');
    const back = w.check.check();
    await vi.advanceTimersByTimeAsync(100);
    expect(await back).toBe('arriving');
    expect(w.follows).toEqual(['stop', 'stop', 'follow']);
    expect(w.logs[1]).toContain('arrive again');
  });

  it('takes only its own event: another item of the map, or an older check’s, is not it', async () => {
    vi.useFakeTimers();
    const w = world();
    w.deliver('nothing');
    const found = w.check.check();
    await vi.advanceTimersByTimeAsync(10);
    w.check.seen(itemEvent(CHECK_MAP, 'events', { nonce: 'an older check' }));
    w.check.seen(itemEvent('presence', 'events', {}));
    await vi.advanceTimersByTimeAsync(WAIT);
    expect(await found).toBe('lost');
  });

  it('concludes nothing when its write fails (Sync down), and says so once', async () => {
    vi.useFakeTimers();
    const w = world();
    w.deliver('fail');
    expect(await w.check.check()).toBe('unchecked');
    expect(await w.check.check()).toBe('unchecked');
    expect(w.follows).toEqual([]);
    expect(w.logs).toHaveLength(1);
    expect(w.logs[0]).toContain('could not write to Sync (Sync is down)');
  });

  it('checks at start and then every interval until closed', async () => {
    vi.useFakeTimers();
    const w = world();
    w.deliver('nothing');
    w.check.start();
    await vi.advanceTimersByTimeAsync(WAIT + 10);
    expect(w.follows).toEqual(['stop']);
    await vi.advanceTimersByTimeAsync(10 * WAIT);
    expect(w.follows).toEqual(['stop', 'stop']);
    w.check.close();
    await vi.advanceTimersByTimeAsync(30 * WAIT);
    expect(w.follows).toEqual(['stop', 'stop']);
  });
});
