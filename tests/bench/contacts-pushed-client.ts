/**
 * Child process of bench (a)'s socket row: one real twilio-sync client subscribed to the map the
 * parent writes to, either bare (a plain itemAdded/itemUpdated listener, a plain Map and a view) or
 * through the app's container machine (provideContainerMachines → syncMap actor → selector view).
 * Each side runs in a process of its own so that its CPU time is its own: everything a pushed event
 * costs in the client, from the frame off the socket (twilsock decode, ack, the SDK's cache) to the
 * view.
 *
 * IPC: sends `{type:'ready'}` once subscribed; on `{type:'round', events, lastKey}` it takes the
 * process CPU time, counts applied events until `events` have arrived, and answers
 * `{type:'round', cpuMs, viewCalls, viewSize, viewHasRow, lastNote}`: what its view read last (the
 * map size, whether the row it reads was there) and the note it holds for `lastKey`.
 * Run: node --import tsx tests/bench/contacts-pushed-client.ts <url> <bare|machine> <mapName>
 */
import { createActor } from 'xstate';
import { selectMapItem, selectMapSize } from '../../src/machines/syncMap.selectors';
import { provideContainerMachines, type SyncClientLike } from '../../src/io/sync/client';
import { client } from '../integration/sync/support';

const [url, side, mapName] = process.argv.slice(2) as [string, 'bare' | 'machine', string];

interface Round {
  events: number;
  lastKey: string;
  seen: number;
  cpu: NodeJS.CpuUsage;
}
let round: Round | null = null;
let viewCalls = 0;
/** The map size and the row item the side's view read last. */
let viewSize = 0;
let viewRow: unknown;
/** The note the side holds for a key (read once a round is complete). */
let noteFor: (key: string) => unknown = () => undefined;

/** Called once per applied event by either side's view. */
function applied(): void {
  viewCalls++;
  if (round === null) return;
  round.seen++;
  if (round.seen < round.events) return;
  const cpu = process.cpuUsage(round.cpu);
  const lastNote = String(noteFor(round.lastKey));
  round = null;
  process.send?.({
    type: 'round',
    cpuMs: (cpu.user + cpu.system) / 1000,
    viewCalls,
    viewSize,
    viewHasRow: viewRow !== undefined,
    lastNote,
  });
}

const noteOf = (data: unknown) => (data as { note?: unknown } | undefined)?.note;

async function openBare(): Promise<void> {
  const sdk = await client(url, `pushed-bare-${process.pid}@example.com`);
  const map = await sdk.map({ id: mapName, mode: 'open_existing' });
  const items = new Map<string, { data: unknown }>();
  const onItem = (e: { item: { key: string; data: unknown } }) => {
    items.set(e.item.key, e.item);
    // As a component without a machine would: the size and the item that changed.
    viewSize = items.size;
    viewRow = items.get(e.item.key);
    applied();
  };
  noteFor = (key) => noteOf(items.get(key)?.data);
  map.on('itemAdded', onItem);
  map.on('itemUpdated', onItem);
}

async function openMachine(): Promise<void> {
  const sdk = await client(url, `pushed-machine-${process.pid}@example.com`);
  const machines = provideContainerMachines(() =>
    Promise.resolve(sdk as unknown as SyncClientLike),
  );
  const actor = createActor(machines.map, { input: { id: mapName } }).start();
  await new Promise<void>((resolve, reject) => {
    const sub = actor.subscribe((s) => {
      if (s.matches({ ready: 'idle' })) {
        sub.unsubscribe();
        resolve();
      } else if (s.matches('failed')) reject(new Error(String(s.context.error?.message)));
    });
  });
  let store = actor.getSnapshot().context.items;
  const firstRow = selectMapItem('c-0');
  actor.subscribe((snapshot) => {
    if (snapshot.context.items === store) return;
    store = snapshot.context.items;
    // As a view with narrow selectors does (useSelector): the size, and one row's item.
    viewSize = selectMapSize(snapshot);
    viewRow = firstRow(snapshot);
    applied();
  });
  noteFor = (key) => noteOf(selectMapItem(key)(actor.getSnapshot())?.data);
}

process.on('message', (message: { type: string; events?: number; lastKey?: string }) => {
  if (message.type === 'round' && typeof message.events === 'number') {
    round = {
      events: message.events,
      lastKey: String(message.lastKey),
      seen: 0,
      cpu: process.cpuUsage(),
    };
  } else if (message.type === 'exit') {
    process.exit(0);
  }
});

await (side === 'bare' ? openBare() : openMachine());
// Let the subscription handshake finish before the parent starts writing.
await new Promise((r) => setTimeout(r, 400));
process.send?.({ type: 'ready' });
