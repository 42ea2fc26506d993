/**
 * The service worker's notification buttons (public/phone-sw.js), run in Node against a fake
 * `self`: a click asks every tab whose call it is, the tab that says "mine" is focused (not on
 * Reject), and a click without a call id focuses a tab without asking.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Handler = (event: Record<string, unknown>) => void;

interface FakeClient {
  id: string;
  messages: unknown[];
  focused: number;
  postMessage(message: unknown, ports: MessagePort[]): void;
  focus(): Promise<void>;
}

function client(id: string, callIds: string[]): FakeClient {
  const c: FakeClient = {
    id,
    messages: [],
    focused: 0,
    postMessage(message, ports) {
      c.messages.push(message);
      const callId = (message as { callId?: string }).callId ?? '';
      ports[0]?.postMessage({ mine: callIds.includes(callId) });
      ports[0]?.close();
    },
    focus() {
      c.focused += 1;
      return Promise.resolve();
    },
  };
  return c;
}

function worker(clients: FakeClient[]) {
  const handlers = new Map<string, Handler>();
  const self = {
    addEventListener: (type: string, h: Handler) => handlers.set(type, h),
    skipWaiting: () => Promise.resolve(),
    clients: { matchAll: () => Promise.resolve(clients), claim: () => Promise.resolve() },
  };
  const source = readFileSync('public/phone-sw.js', 'utf8');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  new Function('self', source)(self);
  return async (action: string, data: unknown) => {
    let work: Promise<unknown> = Promise.resolve();
    let closed = false;
    handlers.get('notificationclick')!({
      action,
      notification: { data, close: () => (closed = true) },
      waitUntil: (p: Promise<unknown>) => (work = p),
    });
    await work;
    return closed;
  };
}

describe('phone service worker: notification buttons', () => {
  it('Accept asks every tab, and focuses the one whose call it is', async () => {
    const follower = client('a', []);
    const owner = client('b', ['CA1']);
    const click = worker([follower, owner]);
    expect(await click('accept', { callId: 'CA1' })).toBe(true);
    const asked = { kind: 'switchboard.notification', callId: 'CA1', action: 'accept' };
    expect(follower.messages).toEqual([asked]);
    expect(owner.messages).toEqual([asked]);
    expect(owner.focused).toBe(1);
    expect(follower.focused).toBe(0);
  });

  it('Reject is applied by the owner tab without bringing anything forward', async () => {
    const owner = client('b', ['CA1']);
    const click = worker([owner]);
    await click('reject', { callId: 'CA1' });
    expect(owner.messages).toEqual([
      { kind: 'switchboard.notification', callId: 'CA1', action: 'reject' },
    ]);
    expect(owner.focused).toBe(0);
  });

  it('a click on the body shows the tab; odd actions and data are not passed on as commands', async () => {
    const owner = client('b', ['CA1']);
    const click = worker([owner]);
    await click('explode', { callId: 'CA1' });
    expect(owner.messages).toEqual([
      { kind: 'switchboard.notification', callId: 'CA1', action: 'show' },
    ]);
    expect(owner.focused).toBe(1);
    await click('accept', { callId: 42 });
    expect(owner.messages).toHaveLength(1);
    expect(owner.focused).toBe(2);
  });
});
