/**
 * Bench (a), two rows. First (the one issue 4 sets the 1.3× target on): the same pushed
 * notifications through the real twilio-sync SDK, bare with a plain listener against SDK + bridge +
 * syncMap machine + selector view (`sdkEvents`, at the end of this file). Second: the machine alone
 * against a plain Map with the SDK left out: both sides receive identical SDK-shaped events from an
 * EventEmitter (as twilio-sync's SyncMap emits them) and end in a subscriber that reads the map's
 * size and the changed item, as a React view with narrow selectors would.
 */
import { EventEmitter } from 'node:events';
import type { SyncClient, SyncMap, SyncMapItem } from 'twilio-sync';
import { createActor, fromCallback, fromPromise } from 'xstate';
import { openEntityMachine } from '../../src/machines/openEntity.machine';
import { selectMapItem, selectMapSize } from '../../src/machines/syncMap.selectors';
import { syncMapMachine } from '../../src/machines/syncMap.machine';
import { bridgeMapEvents, type MapEventSource } from '../../src/io/sync/bridges/map';
import { toMapItem } from '../../src/io/sync/bridges/convert';
import { provideContainerMachines, type SyncClientLike } from '../../src/io/sync/client';
import type { MapItem, MapPort, Opened } from '../../src/machines/syncPorts';

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
      if (s.matches({ ready: 'idle' })) {
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

/*
 * Row 1 of (a), as issue 4 asks: the same pushed notifications through the real twilio-sync SDK
 * on both sides. Each side has its own SyncClient connected to the real server with the map open;
 * the notifications enter where the SDK takes them from the socket, the `message` event of its
 * Twilsock client (→ Client._routeMessage → subscriptions → SyncMapImpl._update → item cache →
 * itemAdded/itemUpdated), without the network so that only per-event work is timed.
 */

/** The map both sides open; created empty on the server, events are injected into the clients. */
export const SDK_MAP = 'bench-events';

interface Notification {
  event_type: 'map_item_added' | 'map_item_updated';
  event_protocol_version: 4;
  event: {
    id: number;
    map_sid: string;
    item_key: string;
    item_url: string;
    item_data: object;
    item_revision: string;
    date_created: string;
    map_revision: string;
  };
}

/**
 * The same 10,000 adds then round-robin updates as {@link makeEvents}, shaped as the server's
 * `twilio.sync.event` notifications (protocol §6.3); ids continue from `firstId`. Fresh objects on
 * every call: the SDK writes into the payloads it receives.
 */
export function makeNotifications(mapSid: string, firstId: number): Notification[] {
  const date = new Date(1_800_000_000_000).toISOString();
  return Array.from({ length: EVENTS }, (_, i) => {
    const n = i % KEYS;
    const id = firstId + i;
    return {
      event_type: i < KEYS ? 'map_item_added' : 'map_item_updated',
      event_protocol_version: 4,
      event: {
        id,
        map_sid: mapSid,
        item_key: `c-${n}`,
        item_url: `https://cds.invalid/v3/Services/default/Maps/${mapSid}/Items/c-${n}`,
        item_data: {
          name: `Person ${n}`,
          company: 'Globex',
          phones: [{ label: 'Work', number: `+1555${n}` }],
          email: '',
          note: `v${id}`,
        },
        item_revision: id.toString(16),
        date_created: date,
        map_revision: id.toString(16),
      },
    };
  });
}

/** The SDK's own Twilsock client: the object whose `message` event SyncClient listens to. */
function twilsockOf(client: SyncClient): EventEmitter {
  const twilsock = (client as unknown as { services?: { twilsock?: unknown } }).services?.twilsock;
  if (!(twilsock instanceof EventEmitter) || twilsock.listenerCount('message') < 1) {
    throw new Error('twilio-sync internals changed: no services.twilsock with a message listener');
  }
  return twilsock as EventEmitter;
}

/** Emits every notification into the SDK's socket path; returns the elapsed ms. */
function inject(client: SyncClient, notes: Notification[], onKey: (key: string) => void): number {
  const twilsock = twilsockOf(client);
  const started = performance.now();
  for (const note of notes) {
    onKey(note.event.item_key);
    twilsock.emit('message', 'twilio.sync.event', note);
  }
  return performance.now() - started;
}

export interface SdkRun {
  ms: number;
  /** Calls of the view subscriber (one per applied event is expected). */
  viewCalls: number;
  /** The last item as the SDK's own cache holds it after the run (proves the SDK applied them). */
  sdkLastNote: string;
}

const lastNote = (notes: Notification[]) => {
  const last = notes[notes.length - 1]!;
  return { key: last.event.item_key, note: (last.event.item_data as { note: string }).note };
};

async function sdkNoteOf(map: SyncMap, key: string): Promise<string> {
  const item = await map.get(key); // from the SDK cache: the server never saw these items
  return String((item.data as { note?: unknown }).note);
}

/** Side A: SDK → one plain itemAdded/itemUpdated listener → a plain Map → a subscriber. */
export async function sdkBare(client: SyncClient, firstId: number): Promise<SdkRun> {
  const map = await client.map({ id: SDK_MAP, mode: 'open_existing' });
  await settle();
  const items = new Map<string, SyncMapItem>();
  let lastKey = '';
  let size = 0;
  let seen: SyncMapItem | undefined;
  let viewCalls = 0;
  const view = () => {
    viewCalls++;
    size = items.size;
    seen = items.get(lastKey);
  };
  const onItem = (e: { item: SyncMapItem }) => {
    items.set(e.item.key, e.item);
    view();
  };
  map.on('itemAdded', onItem);
  map.on('itemUpdated', onItem);
  const notes = makeNotifications(map.sid, firstId);
  const ms = inject(client, notes, (key) => (lastKey = key));
  map.removeListener('itemAdded', onItem);
  map.removeListener('itemUpdated', onItem);
  const last = lastNote(notes);
  const sdkLastNote = await sdkNoteOf(map, last.key);
  map.close();
  const seenNote = (seen?.data as { note?: unknown } | undefined)?.note;
  if (
    size !== KEYS ||
    seenNote !== last.note ||
    viewCalls !== EVENTS ||
    sdkLastNote !== last.note
  ) {
    throw new Error(`bare SDK side is wrong: ${size} keys, ${viewCalls} calls, ${sdkLastNote}`);
  }
  return { ms, viewCalls, sdkLastNote };
}

/**
 * Side B: SDK → bridgeMapEvents → syncMap actor (as the app composes it, provideContainerMachines
 * over this client: opened through openEntity, first page fetched, subscribed) → a subscriber
 * reading selectMapSize and selectMapItem(key) as useSelector does.
 */
export async function sdkMachine(client: SyncClient, firstId: number): Promise<SdkRun> {
  const machines = provideContainerMachines(() =>
    Promise.resolve(client as unknown as SyncClientLike),
  );
  const actor = createActor(machines.map, { input: { id: SDK_MAP } }).start();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('syncMap never became ready')), 30_000);
    const sub = actor.subscribe((s) => {
      if (s.matches({ ready: 'idle' })) {
        clearTimeout(timer);
        sub.unsubscribe();
        resolve();
      } else if (s.matches('failed')) {
        clearTimeout(timer);
        reject(new Error(`syncMap failed: ${String(s.context.error?.message)}`));
      }
    });
  });
  await settle();
  const sid = actor.getSnapshot().context.meta?.sid;
  if (!sid) throw new Error('syncMap is ready without a sid');
  let lastKey = '';
  let size = 0;
  let seen: MapItem | undefined;
  let viewCalls = 0;
  const view = actor.subscribe((snapshot) => {
    viewCalls++;
    size = selectMapSize(snapshot);
    seen = selectMapItem(lastKey)(snapshot);
  });
  const notes = makeNotifications(sid, firstId);
  const ms = inject(client, notes, (key) => (lastKey = key));
  view.unsubscribe();
  const last = lastNote(notes);
  // A second handle on the same client shares the SDK's cached map while the actor holds it open.
  const probe = await client.map({ id: SDK_MAP, mode: 'open_existing' });
  const sdkLastNote = await sdkNoteOf(probe, last.key);
  probe.close();
  actor.stop();
  const seenNote = (seen?.data as { note?: unknown } | undefined)?.note;
  if (
    size !== KEYS ||
    seenNote !== last.note ||
    viewCalls !== EVENTS ||
    sdkLastNote !== last.note
  ) {
    throw new Error(`machine SDK side is wrong: ${size} keys, ${viewCalls} calls, ${sdkLastNote}`);
  }
  return { ms, viewCalls, sdkLastNote };
}

/** Lets the subscription handshake the open started finish before the timed loop. */
const settle = () => new Promise((r) => setTimeout(r, 400));

/**
 * One warm-up round each, then `runs` rounds alternating bare and machine, each side on its own
 * client; event ids continue across rounds so every round is new to each client's SDK cache.
 */
export async function sdkEvents(
  makeClient: (email: string) => Promise<SyncClient>,
  runs: number,
): Promise<{ bare: number[]; machine: number[] }> {
  const a = await makeClient('bench-bare@example.com');
  const b = await makeClient('bench-machine@example.com');
  const created = await a.map({ id: SDK_MAP, mode: 'open_or_create' });
  created.close();
  const bareMs: number[] = [];
  const machineMs: number[] = [];
  for (let round = 0; round <= runs; round++) {
    const firstId = 1_000 + round * EVENTS;
    const x = await sdkBare(a, firstId);
    const y = await sdkMachine(b, firstId);
    if (round > 0) {
      bareMs.push(x.ms);
      machineMs.push(y.ms);
    }
    console.log(
      `  (a) SDK round ${round ? round : 'warm-up'}: bare ${fmtMs(x.ms)} ms, machine ${fmtMs(y.ms)} ms;` +
        ` view calls ${x.viewCalls}/${y.viewCalls}, SDK cache last note ${x.sdkLastNote}/${y.sdkLastNote}`,
    );
  }
  return { bare: bareMs, machine: machineMs };
}

const fmtMs = (ms: number) => ms.toFixed(1);
