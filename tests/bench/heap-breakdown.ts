/**
 * Who holds the bytes behind bench (c), contact by contact: `npx tsx tests/bench/heap-breakdown.ts`.
 *
 * Opens /history, then /contacts with 10,000 contacts held (as bench (c) does), takes a heap
 * snapshot at each through the DevTools protocol and prints, per contact:
 * - the used-heap growth (what (c) reports) and the snapshot's growth;
 * - each holder's exclusive share: what would be freed if only that holder let go (the SDK's item
 *   cache, the machine's item store, every array/map/WeakMap of about one entry per contact, with
 *   its path from the window so it can be told apart);
 * - the same holders peeled one after another (search and view first, SDK cache last), so shared
 *   objects (the item data both the SDK and the machine point at) land on the last holder;
 * - the new objects grouped by shape (constructor and property names; strings with digits as #).
 *
 * Class names are only readable in an unminified build:
 * `npx vite build --outDir /tmp/dist-plain --minify false` and `BENCH_DIST=/tmp/dist-plain`.
 * Without BENCH_DIST it uses a copy of ./dist.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { sdkClientFor, signedInPage, snapshotDist } from '../e2e/support/live';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer } from '../support/server';
import { seedContacts, settleHarness, usedHeap } from './contacts-fixture';
import { HeapGraph, sizeOfDifference } from './heap-graph';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);

/** With BENCH_SNAPSHOTS=dir, the two snapshots are also saved there (open them in DevTools). */
function keep(name: string, json: string): string {
  const dir = process.env.BENCH_SNAPSHOTS;
  if (dir) writeFileSync(join(dir, `contacts-${name}.heapsnapshot`), json);
  return json;
}

async function takeSnapshot(cdp: CDPSession): Promise<string> {
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  return chunks.join('');
}

const perContact = (bytes: number) => (bytes / CONTACTS).toFixed(1).padStart(8);

interface Holder {
  label: string;
  nodes: number[];
}

/** Nodes with about one edge per contact: the backing stores of per-contact arrays and maps. */
function bigContainers(g: HeapGraph, alive: Uint8Array): Holder[] {
  const holders: Holder[] = [];
  for (let i = 0; i < g.count; i++) {
    if (!alive[i] || g.nodeType(i) === 'synthetic') continue;
    const edges = g.edgeStart[i + 1]! - g.edgeStart[i]!;
    if (edges < CONTACTS * 0.9) continue;
    const name = g.nodeName(i);
    if (/Internalized|string table|\(GC roots\)|Strong roots/.test(name)) continue;
    const shapes = new Map<string, number>();
    for (const c of g.children(i).slice(0, 2000)) {
      const s = g.shape(c);
      shapes.set(s, (shapes.get(s) ?? 0) + 1);
    }
    const top = [...shapes].sort((a, b) => b[1] - a[1]).slice(0, 2);
    holders.push({
      label:
        `${g.nodeType(i)} ${name.slice(0, 30)} (${edges} edges) of ` +
        `${top.map(([s, n]) => `${s} ×${n}`).join('; ')}\n      path: ${g.pathTo(i, 7)}`,
      nodes: [i],
    });
  }
  return holders;
}

function namedObjects(g: HeapGraph, alive: Uint8Array, ctor: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < g.count; i++) {
    if (alive[i] && g.nodeType(i) === 'object' && g.nodeName(i) === ctor) out.push(i);
  }
  return out;
}

function mask(g: HeapGraph, nodes: number[]): Uint8Array {
  const m = new Uint8Array(g.count);
  for (const n of nodes) m[n] = 1;
  return m;
}

function report(before: HeapGraph, after: HeapGraph, usedGrowth: number): string {
  const out: string[] = [];
  const g = after;
  const alive = g.reachable();
  const oldIds = new Set<number>();
  const aliveBefore = before.reachable();
  let totalBefore = 0;
  for (let i = 0; i < before.count; i++) {
    if (!aliveBefore[i]) continue;
    oldIds.add(before.id[i]!);
    totalBefore += before.size[i]!;
  }
  let totalAfter = 0;
  const fresh = new Uint8Array(g.count);
  for (let i = 0; i < g.count; i++) {
    if (!alive[i]) continue;
    totalAfter += g.size[i]!;
    if (!oldIds.has(g.id[i]!)) fresh[i] = 1;
  }
  out.push(`bytes per contact (${CONTACTS} contacts):`);
  out.push(`${perContact(usedGrowth)}  used heap growth /history → /contacts (what (c) reports)`);
  out.push(`${perContact(totalAfter - totalBefore)}  snapshot growth (reachable self sizes)`);
  out.push(`${perContact(sizeOfDifference(g, fresh, new Uint8Array(g.count)))}  new objects`);

  const named: Holder[] = [
    { label: 'twilio-sync item cache (ItemsCache)', nodes: namedObjects(g, alive, 'ItemsCache') },
    { label: 'machine item store (ItemStore)', nodes: namedObjects(g, alive, 'ItemStore') },
  ].filter((h) => h.nodes.length > 0);
  const containers = bigContainers(g, alive);
  const inNamed = (h: Holder) => {
    // A container inside a named holder (the SDK's tree, the store's buckets) is counted there.
    const without = g.reachable(
      mask(
        g,
        named.flatMap((n) => n.nodes),
      ),
    );
    return !without[h.nodes[0]!];
  };
  const loose = containers.filter((h) => !inNamed(h));

  out.push('', 'exclusive (freed if only this holder let go):');
  for (const h of [...named, ...loose]) {
    const freed = sizeOfDifference(g, alive, g.reachable(mask(g, h.nodes)));
    out.push(`${perContact(freed)}  ${h.label}`);
  }

  out.push('', 'peeled in this order (each line: freed on top of the lines above):');
  const removed: number[] = [];
  let previous = alive;
  // The SDK's cache goes last: what it shares with the machine (the item data) lands there.
  for (const h of [...loose, ...named.reverse()]) {
    removed.push(...h.nodes);
    const now = g.reachable(mask(g, removed));
    out.push(`${perContact(sizeOfDifference(g, previous, now))}  ${h.label.split('\n')[0]}`);
    previous = now;
  }
  const rest = new Uint8Array(g.count);
  for (let i = 0; i < g.count; i++) if (fresh[i] && previous[i]) rest[i] = 1;
  out.push(
    `${perContact(sizeOfDifference(g, rest, new Uint8Array(g.count)))}  new objects held by none of these`,
  );

  const groups = (set: Uint8Array, title: string) => {
    const byShape = new Map<string, { n: number; bytes: number }>();
    for (let i = 0; i < g.count; i++) {
      if (!set[i]) continue;
      const s = g.shape(i);
      const e = byShape.get(s) ?? { n: 0, bytes: 0 };
      e.n += 1;
      e.bytes += g.size[i]!;
      byShape.set(s, e);
    }
    out.push('', title);
    for (const [s, e] of [...byShape].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 30)) {
      if (e.bytes < CONTACTS * 2) break;
      out.push(
        `${perContact(e.bytes)}  ×${String(e.n).padEnd(6)} ${(e.bytes / e.n).toFixed(0).padStart(4)} B  ${s}`,
      );
    }
  };
  groups(fresh, 'new objects by shape (per contact, count, bytes each):');
  groups(rest, 'new objects held by none of the holders above, by shape:');
  return out.join('\n');
}

/** BENCH_FROM=dir: report on snapshots saved earlier with BENCH_SNAPSHOTS=dir, no browser. */
function fromSaved(dir: string) {
  const read = (name: string) => readFileSync(join(dir, `contacts-${name}.heapsnapshot`), 'utf8');
  const used = Number(readFileSync(join(dir, 'used-growth.txt'), 'utf8'));
  console.log(report(new HeapGraph(read('before')), new HeapGraph(read('after')), used));
}

async function main() {
  const own = process.env.BENCH_DIST ? null : snapshotDist();
  const dir = process.env.BENCH_DIST ?? own!.dir;
  const server = await startServer({ env: { SWITCHBOARD_DIST: dir } });
  const browser = await launchChromium();
  try {
    const writer = await sdkClientFor(server.url, 'Seed Writer', 'seed@example.com');
    const map = await writer.map({ id: 'contacts', mode: 'open_or_create' });
    const json = await seedContacts(map, CONTACTS);
    await shutdownClients();
    const { page, context } = await signedInPage(
      browser,
      server.url,
      'Bea Bench',
      'bea@example.com',
      '/history',
    );
    await page.getByRole('heading', { name: 'Call history' }).waitFor();
    await settleHarness(page);
    await page.waitForTimeout(1000);
    const cdp = await context.newCDPSession(page);
    const usedBefore = await usedHeap(cdp);
    const before = new HeapGraph(keep('before', await takeSnapshot(cdp)));
    await page.getByRole('link', { name: 'Contacts' }).click();
    await waitForCount(page, `${CONTACTS.toLocaleString('en-US')} contacts`);
    await page.waitForTimeout(500);
    const usedAfter = await usedHeap(cdp);
    const after = new HeapGraph(keep('after', await takeSnapshot(cdp)));
    console.log(`JSON of one contact: ${json.toFixed(1)} bytes`);
    if (process.env.BENCH_SNAPSHOTS) {
      writeFileSync(
        join(process.env.BENCH_SNAPSHOTS, 'used-growth.txt'),
        String(usedAfter - usedBefore),
      );
    }
    console.log(report(before, after, usedAfter - usedBefore));
    await context.close();
  } finally {
    await shutdownClients();
    await browser.close();
    await server.stop();
    server.cleanup();
    own?.remove();
  }
}

const waitForCount = (page: Page, text: string) =>
  page.waitForFunction(
    (t) => document.querySelector('[data-testid="contact-count"]')?.textContent === t,
    text,
    { timeout: 180_000 },
  );

if (process.env.BENCH_FROM) fromSaved(process.env.BENCH_FROM);
else await main();
