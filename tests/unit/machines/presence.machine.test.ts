import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { presenceMachine, type PublishInput } from '../../../src/machines/presence.machine';
import {
  selectOwnStatus,
  selectPresenceError,
  selectPresenceFailing,
} from '../../../src/machines/presence.selectors';

const flush = () => new Promise((r) => setTimeout(r, 0));

/** A presence actor whose writes are recorded and settled by the test. */
function start(options: { fail?: () => boolean; refreshFails?: () => boolean } = {}) {
  const clock = new SimulatedClock();
  const writes: PublishInput[] = [];
  const refreshes: Array<{ identity: string; ttlSeconds: number }> = [];
  const withdrawn: string[] = [];
  const machine = presenceMachine.provide({
    actors: {
      publish: fromPromise<void, PublishInput>(({ input }) => {
        writes.push(input);
        return options.fail?.() ? Promise.reject(new Error('socket closed')) : Promise.resolve();
      }),
      refresh: fromPromise<void, { identity: string; ttlSeconds: number }>(({ input }) => {
        refreshes.push(input);
        return options.refreshFails?.()
          ? Promise.reject(new Error('The specified Map Item does not exist'))
          : Promise.resolve();
      }),
      withdraw: fromPromise<void, { identity: string }>(({ input }) => {
        withdrawn.push(input.identity);
        return Promise.resolve();
      }),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: { identity: 'ada@example.com', ttlSeconds: 30, heartbeatMs: 10_000, retryMs: 2000 },
  }).start();
  return { actor, clock, writes, refreshes, withdrawn };
}

describe('presence machine', () => {
  it('writes Available with the ttl at once, then only extends the ttl every heartbeat', async () => {
    const { actor, clock, writes, refreshes } = start();
    expect(writes).toEqual([
      {
        identity: 'ada@example.com',
        item: { status: 'available' },
        ttlSeconds: 30,
      },
    ]);
    await flush();
    expect(actor.getSnapshot().value).toBe('live');
    clock.increment(9_999);
    expect(refreshes).toHaveLength(0);
    clock.increment(1);
    expect(refreshes).toEqual([{ identity: 'ada@example.com', ttlSeconds: 30 }]);
    await flush();
    expect(actor.getSnapshot().value).toBe('live');
    clock.increment(10_000);
    expect(refreshes).toHaveLength(2);
    // No data was rewritten: colleagues get no event per heartbeat.
    expect(writes).toHaveLength(1);
  });

  it('writes the item again in full when a refresh fails (it lapsed meanwhile)', async () => {
    let lapsed = false;
    const { actor, clock, writes, refreshes } = start({ refreshFails: () => lapsed });
    await flush();
    actor.send({ type: 'presence.setStatus', status: 'away' });
    await flush();
    lapsed = true;
    clock.increment(10_000);
    expect(refreshes).toHaveLength(1);
    await flush();
    expect(writes).toHaveLength(3);
    expect(writes.at(-1)?.item).toEqual({ status: 'away' });
    await flush();
    expect(actor.getSnapshot().value).toBe('live');
  });

  it('rewrites at once when the status changes', async () => {
    const { actor, writes } = start();
    await flush();
    actor.send({ type: 'presence.setStatus', status: 'away' });
    expect(writes.at(-1)?.item).toEqual({ status: 'away' });
    expect(selectOwnStatus(actor.getSnapshot())).toBe('away');
    expect(writes).toHaveLength(2);
  });

  it('a status change restarts the heartbeat: no refresh right after a change', async () => {
    const { actor, clock, refreshes } = start();
    await flush();
    clock.increment(8_000);
    actor.send({ type: 'presence.setStatus', status: 'away' });
    await flush();
    clock.increment(2_000);
    expect(refreshes).toHaveLength(0);
    clock.increment(8_000);
    expect(refreshes).toHaveLength(1);
  });

  it('a change while refreshing wins: the new status is written', async () => {
    const { actor, clock, writes } = start();
    await flush();
    clock.increment(10_000);
    expect(actor.getSnapshot().value).toBe('refreshing');
    actor.send({ type: 'presence.setStatus', status: 'away' });
    expect(writes.at(-1)?.item.status).toBe('away');
    await flush();
    expect(actor.getSnapshot().value).toBe('live');
  });

  it('retries a failed write after the retry delay and reports it meanwhile', async () => {
    let failing = true;
    const { actor, clock, writes } = start({ fail: () => failing });
    await flush();
    expect(actor.getSnapshot().value).toBe('retrying');
    expect(selectPresenceFailing(actor.getSnapshot())).toBe(true);
    expect(selectPresenceError(actor.getSnapshot())).toBe('socket closed');
    expect(actor.getSnapshot().context.failures).toBe(1);
    failing = false;
    clock.increment(1_999);
    expect(writes).toHaveLength(1);
    clock.increment(1);
    expect(writes).toHaveLength(2);
    await flush();
    expect(actor.getSnapshot().value).toBe('live');
    expect(selectPresenceFailing(actor.getSnapshot())).toBe(false);
    expect(actor.getSnapshot().context).toMatchObject({ failures: 0, lastError: null });
  });

  it('withdraws the item on sign-out and stops: no more writes, changes ignored', async () => {
    const { actor, clock, writes, refreshes, withdrawn } = start();
    await flush();
    actor.send({ type: 'presence.withdraw' });
    actor.send({ type: 'presence.setStatus', status: 'away' });
    expect(withdrawn).toEqual(['ada@example.com']);
    await flush();
    expect(actor.getSnapshot().status).toBe('done');
    clock.increment(60_000);
    expect(writes).toHaveLength(1);
    expect(refreshes).toHaveLength(0);
  });

  it('withdrawing from a failing state still ends', async () => {
    const { actor, withdrawn } = start({ fail: () => true });
    await flush();
    actor.send({ type: 'presence.withdraw' });
    await flush();
    expect(withdrawn).toHaveLength(1);
    expect(actor.getSnapshot().status).toBe('done');
  });
});
