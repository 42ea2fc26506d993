/**
 * "On a call" written into a person's presence item on Twilio (server/twilio/on-call.ts): a write
 * that fails is tried again later with the state as it is then, so a call that ended during a Sync
 * outage does not leave its people "on a call" (and never rung again).
 */
import { describe, expect, it } from 'vitest';
import { createOnCallWriter } from '../../../../server/calls/on-call';

function presenceStore() {
  let data: Record<string, unknown> = { status: 'available', onCall: true };
  let revision = 1;
  let failing = 0;
  const down = () => new Error('Service unavailable');
  return {
    data: () => data,
    failNext(n: number) {
      failing = n;
    },
    rest: {
      getMapItem() {
        if (failing > 0) {
          failing--;
          return Promise.reject(down());
        }
        return Promise.resolve({ data: { ...data }, revision: String(revision) } as never);
      },
      updateMapItemIf(_map: string, _key: string, next: Record<string, unknown>, rev: string) {
        if (failing > 0) {
          failing--;
          return Promise.reject(down());
        }
        if (rev !== String(revision)) return Promise.resolve('changed' as const);
        data = next;
        revision++;
        return Promise.resolve('written' as const);
      },
    },
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

/** A writer over a presence store whose first `failing` reads and writes fail; Ann's call is over. */
function writer(retryMs: number, failing: number) {
  const store = presenceStore();
  const logged: string[] = [];
  const changed = createOnCallWriter({
    rest: store.rest,
    isOnCall: () => false,
    log: (m) => logged.push(m),
    retryMs: () => retryMs,
  });
  store.failNext(failing);
  return { store, logged, changed };
}

/**
 * A writer whose server knows Ann `onCall` or not, asking a Twilio that says `live()`; `asked`
 * holds whom it asked about.
 */
function askingTwilio(onCall: boolean, live: () => boolean) {
  const store = presenceStore();
  const asked: string[] = [];
  const changed = createOnCallWriter({
    rest: store.rest,
    isOnCall: () => onCall,
    hasLiveCall: (identity) => (asked.push(identity), Promise.resolve(live())),
    log: () => {},
  });
  return { store, asked, changed };
}

describe('the on-a-call writer', () => {
  it('a write that failed is tried again later, with the state as it is then', async () => {
    const { store, logged, changed } = writer(20, 2);
    changed('ann@example.com');
    await until(() => logged.length === 1);
    expect(logged[0]).toMatch(/on a call not written, tried again later: Service unavailable/);
    expect(store.data().onCall).toBe(true);
    // Tried again later: the call is over, so she is no longer on a call.
    await until(() => store.data().onCall === false);
  });

  it('writes the state as it is once the item is read: a read Sync kept waiting may outlast the call', async () => {
    const store = presenceStore();
    const written: unknown[] = [];
    let onCall = true;
    const changed = createOnCallWriter({
      rest: {
        ...store.rest,
        // The read answered only after the call ended (Sync refused it twice, say).
        async getMapItem() {
          const item = await store.rest.getMapItem();
          onCall = false;
          return item;
        },
        updateMapItemIf(map: string, key: string, next: Record<string, unknown>, rev: string) {
          written.push(next.onCall);
          return store.rest.updateMapItemIf(map, key, next, rev);
        },
      },
      isOnCall: () => onCall,
      log: () => {},
    });
    changed('ann@example.com');
    await until(() => store.data().onCall === false);
    expect(written).toEqual([false]);
  });

  it('keeps "on a call" while Twilio lists a call of theirs this server does not follow, and clears it once there is none', async () => {
    let live = true;
    // This server knows no call of Ann's (another server carries it, or it restarted).
    const { store, asked, changed } = askingTwilio(false, () => live);
    changed('ann@example.com');
    await until(() => asked.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(store.data().onCall).toBe(true);
    // Twilio reports that call over: nothing of hers is in progress now.
    live = false;
    changed('ann@example.com');
    await until(() => store.data().onCall === false);
    expect(asked).toEqual(['ann@example.com', 'ann@example.com']);
  });

  it('does not ask Twilio when the item already says what this server knows', async () => {
    const { store, asked, changed } = askingTwilio(true, () => false);
    changed('ann@example.com');
    await new Promise((r) => setTimeout(r, 20));
    expect(store.data().onCall).toBe(true);
    expect(asked).toEqual([]);
  });

  it('gives up after its tries, and says so', async () => {
    const { store, logged, changed } = writer(1, 1000);
    changed('ann@example.com');
    await until(() => logged.some((m) => m.includes('given up')));
    expect(logged).toHaveLength(6);
    expect(store.data().onCall).toBe(true);
  });
});
