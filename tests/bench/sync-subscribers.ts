/**
 * Child process of the Sync benchmark: N real twilio-sync clients subscribed to one map, each recording the delay
 * from the writer's timestamp (carried in the item data) to its own itemAdded/itemUpdated event. Talks to the parent
 * over IPC: `{ready}` once every client has seen a warm-up write, `{count}` of measured events on request, and
 * the latencies by phase on `{type:'stop'}`.
 * With `raw` as the fifth argument the clients are minimal Twilsock clients (tests/bench/raw-twilsock.ts) instead.
 * Run: node --import tsx tests/bench/sync-subscribers.ts <url> <count> <mapName> <emailPrefix> [raw]
 */
import { SyncClient } from 'twilio-sync';
import type { SyncMapItem } from 'twilio-sync';
import { RawClient } from './raw-twilsock';

const [url, countText, mapName, prefix, mode] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
const count = Number(countText);
const now = (): number => performance.timeOrigin + performance.now();

async function tokenFor(
  email: string,
): Promise<{ token: string; sync: { twilsock: { uri: string }; cdsUri: string } }> {
  const res = await fetch(`${url}/api/session/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: email.split('@')[0], email }),
  });
  const cookie = /sb_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (!res.ok || !cookie) throw new Error(`sign-in failed: ${res.status}`);
  const t = await fetch(`${url}/api/token`, { headers: { cookie } });
  return (await t.json()) as { token: string; sync: { twilsock: { uri: string }; cdsUri: string } };
}

/** Latencies (ms) by the `phase` the writer put in the item data. */
const latencies: Record<string, number[]> = {};
const warm = new Set<number>();
let received = 0;
const shutdowns: Array<() => Promise<unknown>> = [];

function record(i: number, item: unknown, at: number): void {
  const data = item as { t?: number; phase?: string } | undefined;
  if (data?.phase === 'warmup') warm.add(i);
  else if (typeof data?.phase === 'string' && typeof data.t === 'number') {
    (latencies[data.phase] ??= []).push(at - data.t);
    received += 1;
  }
}

await Promise.all(
  Array.from({ length: count }, async (_, i) => {
    const t = await tokenFor(`${prefix}${i}@example.com`);
    if (mode === 'raw') {
      const raw = await RawClient.connect(t.sync.twilsock.uri, t.token, `TMsub${i}-`);
      raw.onEvent = (type, event) => {
        if (type === 'map_item_added' || type === 'map_item_updated')
          record(i, event.item_data, now());
      };
      await raw.subscribeMap(mapName);
      shutdowns.push(() => Promise.resolve(raw.close()));
      return;
    }
    const client = new SyncClient(t.token, { ...t.sync, logLevel: 'silent' });
    shutdowns.push(() => client.shutdown());
    const map = await client.map(mapName);
    const onEvent = (e: { item: SyncMapItem }): void => record(i, e.item.data, now());
    map.on('itemAdded', onEvent);
    map.on('itemUpdated', onEvent);
  }),
);
process.send!({ type: 'opened' });

let cpuAtReady = process.cpuUsage();
const readyTimer = setInterval(() => {
  if (warm.size === count) {
    clearInterval(readyTimer);
    cpuAtReady = process.cpuUsage();
    process.send!({ type: 'ready' });
  }
}, 20);

process.on('message', (m: { type: string }) => {
  if (m.type === 'count') process.send!({ type: 'count', received });
  if (m.type === 'stop') {
    const cpu = process.cpuUsage(cpuAtReady);
    // CPU this process spent per measured event since the subscribers were ready (µs).
    const cpuPerEventUs = (cpu.user + cpu.system) / Math.max(1, received);
    process.send!({ type: 'latencies', latencies, cpuPerEventUs }, () => {
      void Promise.all(shutdowns.map((f) => f().catch(() => undefined))).then(() =>
        process.exit(0),
      );
    });
  }
});
