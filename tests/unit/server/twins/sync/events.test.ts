/** EventHub delivery rounds: runs of same-type events per subscriber, in queue order, with replays in between. */
import { describe, expect, it } from 'vitest';
import {
  EventHub,
  type Fanout,
  type Subscriber,
  type SyncEvent,
} from '../../../../../server/twins/sync/events';

type Sent = Array<[string, Array<number | string>]>;

/** A subscriber that records each notification as [event_type, ids of its events]. */
function recorder(batched = true): Subscriber & { sent: Sent; fanouts: Fanout[] } {
  const sent: Sent = [];
  const fanouts: Fanout[] = [];
  const sub: Subscriber & { sent: Sent; fanouts: Fanout[] } = {
    sent,
    fanouts,
    notify: (p) =>
      sent.push([
        p.event_type,
        [((p.event as Record<string, unknown> | undefined)?.id as number | undefined) ?? 'x'],
      ]),
  };
  if (batched)
    sub.notifyMany = (type, events, fanout) => {
      fanouts.push(fanout);
      sent.push([type, events.map((e) => e.event.id as number)]);
    };
  return sub;
}

const ev = (objectSid: string, eventType: string, id: number, skip?: Subscriber): SyncEvent => ({
  objectSid,
  eventType,
  event: { id },
  ...(skip ? { skip } : {}),
});
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('EventHub', () => {
  it('sends each subscriber one notification per run of one type, in order, nothing before the next tick', async () => {
    const hub = new EventHub();
    const a = recorder();
    const b = recorder();
    hub.subscribe('MP1', a);
    hub.subscribe('MP1', b);
    hub.subscribe('MP2', b);
    hub.publish([
      ev('MP1', 'map_item_added', 1),
      ev('MP1', 'map_item_updated', 2),
      ev('MP2', 'map_item_updated', 1),
      ev('MP1', 'map_item_updated', 3),
      ev('MP1', 'map_item_removed', 4),
    ]);
    expect(a.sent).toEqual([]);
    await tick();
    expect(a.sent).toEqual([
      ['map_item_added', [1]],
      ['map_item_updated', [2, 3]],
      ['map_item_removed', [4]],
    ]);
    expect(b.sent).toEqual([
      ['map_item_added', [1]],
      ['map_item_updated', [2, 1, 3]],
      ['map_item_removed', [4]],
    ]);
  });

  it('splits long runs at 100 events and shares one Fanout between subscribers of a round', async () => {
    const hub = new EventHub();
    const a = recorder();
    const b = recorder();
    hub.subscribe('MP1', a);
    hub.subscribe('MP1', b);
    hub.publish(Array.from({ length: 250 }, (_, i) => ev('MP1', 'map_item_updated', i + 1)));
    await tick();
    expect(a.sent.map(([, ids]) => ids.length)).toEqual([100, 100, 50]);
    expect(a.sent.flatMap(([, ids]) => ids)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(b.fanouts[0]).toBe(a.fanouts[0]);
  });

  it('sends what a round queued before a replay runs, and routes later events to a subscriber it added', async () => {
    const hub = new EventHub();
    const a = recorder();
    const late = recorder();
    hub.subscribe('MP1', a);
    hub.publish([ev('MP1', 'map_item_updated', 1)]);
    hub.after(() => {
      // What the replay sees already sent is exactly what was queued before it.
      expect(a.sent).toEqual([['map_item_updated', [1]]]);
      a.notify({ event_type: 'subscription_established' });
      hub.subscribe('MP1', late);
    });
    hub.publish([ev('MP1', 'map_item_updated', 2)]);
    await tick();
    expect(a.sent).toEqual([
      ['map_item_updated', [1]],
      ['subscription_established', ['x']],
      ['map_item_updated', [2]],
    ]);
    expect(late.sent).toEqual([['map_item_updated', [2]]]);
  });

  it('skips the publisher of a stream message, drops subscriptions after a removal, falls back to notify', async () => {
    const hub = new EventHub();
    const publisher = recorder();
    const plain = recorder(false);
    hub.subscribe('TO1', publisher);
    hub.subscribe('TO1', plain);
    hub.publish([
      ev('TO1', 'stream_message_published', 1, publisher),
      ev('TO1', 'stream_message_published', 2, publisher),
      ev('TO1', 'stream_removed', 3),
      ev('TO1', 'stream_message_published', 4),
    ]);
    await tick();
    expect(publisher.sent).toEqual([['stream_removed', [3]]]);
    expect(plain.sent).toEqual([
      ['stream_message_published', [1]],
      ['stream_message_published', [2]],
      ['stream_removed', [3]],
    ]);
    expect(hub.subscriberCount('TO1')).toBe(0);
  });

  it('keeps delivering to the others when one subscriber throws', async () => {
    const errors: unknown[] = [];
    const hub = new EventHub((e) => errors.push(e));
    const bad: Subscriber = {
      notify: () => undefined,
      notifyMany: () => {
        throw new Error('socket gone');
      },
    };
    const good = recorder();
    hub.subscribe('MP1', bad);
    hub.subscribe('MP1', good);
    hub.publish([ev('MP1', 'map_item_updated', 1)]);
    await tick();
    expect(good.sent).toEqual([['map_item_updated', [1]]]);
    expect(errors).toHaveLength(1);
  });
});
