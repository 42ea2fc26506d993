/**
 * Bench (a): pushed map events through the container machine and a narrow view, against the same
 * events through a bare listener with no machine. Both sides receive identical SDK-shaped events
 * from an EventEmitter (as twilio-sync's SyncMap emits them) and both end in a subscriber that
 * reads the map's size and the changed item, as a React view with narrow selectors would.
 */
import { EventEmitter } from 'node:events';
import { createActor, fromCallback, fromPromise } from 'xstate';
import { openEntityMachine } from '../../src/machines/openEntity.machine';
import { selectMapItem, selectMapSize } from '../../src/machines/syncMap.selectors';
import { syncMapMachine } from '../../src/machines/syncMap.machine';
import { bridgeMapEvents, type MapEventSource } from '../../src/sync/bridges/map';
import { toMapItem } from '../../src/sync/bridges/convert';
import type { MapItem, MapPort, Opened } from '../../src/sync/ports';

export const EVENTS = 100_000;
const KEYS = 10_000;

class SdkMapLike extends EventEmitter {
  lastEventId = 0;
  revision = '0';
  dateUpdated: Date | null = null;
  syncMapImpl = { cache: { items: new Map<string, { lastEventId: number }>() } };
  close() {}
}

interface SdkEvent {
  name: 'itemAdded' | 'itemUpdated';
  payload: { item: object; isLocal: boolean };
  eventId: number;
}

/** 10,000 contacts added, then updated round-robin, up to `EVENTS` events in all. */
export function makeEvents(): SdkEvent[] {
  const date = new Date(1_800_000_000_000);
  return Array.from({ length: EVENTS }, (_, i) => {
    const n = i % KEYS;
    return {
      name: i < KEYS ? 'itemAdded' : 'itemUpdated',
      eventId: i + 1,
      payload: {
        isLocal: false,
        item: {
          key: `c-${n}`,
          data: {
            name: `Person ${n}`,
            company: 'Globex',
            phones: [{ label: 'Work', number: `+1555${n}` }],
            email: '',
            note: `v${i}`,
          },
          revision: String(i + 1),
          lastEventId: i + 1,
          dateUpdated: date,
          dateExpires: null,
        },
      },
    };
  });
}

function emitAll(source: SdkMapLike, events: SdkEvent[]) {
  for (const event of events) {
    source.lastEventId = event.eventId;
    source.revision = String(event.eventId);
    source.emit(event.name, event.payload);
  }
}

/** Machine path: SDK events → bridge → syncMap actor → subscriber with narrow selectors. */
export async function throughMachine(events: SdkEvent[]): Promise<number> {
  const source = new SdkMapLike();
  const port = {
    kind: 'map',
    describe: () => ({
      sid: 'MP1',
      uniqueName: 'contacts',
      revision: '0',
      lastEventId: 0,
      dateUpdated: null,
      dateExpires: null,
    }),
    getItems: () => Promise.resolve({ items: [], hasMore: false }),
  } as unknown as MapPort;
  const machine = syncMapMachine.provide({
    actors: {
      openEntity: openEntityMachine.provide({
        actors: { open: fromPromise(() => Promise.resolve<Opened>({ port, source })) },
      }),
      connection: fromCallback(() => () => {}),
      events: fromCallback(({ sendBack }) =>
        bridgeMapEvents(source as unknown as MapEventSource, sendBack),
      ),
    },
  });
  const actor = createActor(machine, { input: { id: 'contacts' } }).start();
  await new Promise<void>((resolve) => {
    const sub = actor.subscribe((s) => {
      if (s.matches({ ready: { view: 'idle' } })) {
        sub.unsubscribe();
        resolve();
      }
    });
  });
  let size = 0;
  let seen: MapItem | undefined;
  let lastKey = '';
  const view = actor.subscribe((snapshot) => {
    size = selectMapSize(snapshot);
    seen = selectMapItem(lastKey)(snapshot);
  });
  const started = performance.now();
  for (const event of events) {
    lastKey = (event.payload.item as { key: string }).key;
    source.lastEventId = event.eventId;
    source.revision = String(event.eventId);
    source.emit(event.name, event.payload);
  }
  const elapsed = performance.now() - started;
  view.unsubscribe();
  actor.stop();
  if (size !== KEYS || seen === undefined) throw new Error(`machine view is wrong: ${size}`);
  return elapsed;
}

/**
 * Bare path: the same SDK events → one listener that converts the item exactly as the bridge does,
 * applies the seed-4 rule (ignore an event not newer than the one known for the key) to a plain
 * Map, and notifies the same kind of subscriber.
 */
export function bare(events: SdkEvent[]): number {
  const source = new SdkMapLike();
  const items = new Map<string, MapItem>();
  let size = 0;
  let seen: MapItem | undefined;
  const view = (key: string) => {
    size = items.size;
    seen = items.get(key);
  };
  const apply = (e: { item: Parameters<typeof toMapItem>[0] }) => {
    const item = toMapItem(e.item);
    const known = items.get(item.key);
    if (known && known.lastEventId >= item.lastEventId) return;
    items.set(item.key, item);
    view(item.key);
  };
  source.on('itemAdded', apply);
  source.on('itemUpdated', apply);
  const started = performance.now();
  emitAll(source, events);
  const elapsed = performance.now() - started;
  if (size !== KEYS || seen === undefined) throw new Error(`bare view is wrong: ${size}`);
  return elapsed;
}
