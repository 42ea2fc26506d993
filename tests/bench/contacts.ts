/**
 * Issue 4 benchmark, three figures side by side in one run:
 * (a) 100,000 pushed map events through the real twilio-sync SDK into the syncMap machine and a
 *     narrow view, against the same events through the bare SDK and a plain listener: pushed by
 *     the real server over real sockets, each side's client CPU per event (contacts-pushed.ts);
 *     injected where the SDK takes notifications off the socket, without its socket handling;
 *     and the machine alone against a plain Map with the SDK left out (contacts-events.ts);
 * (b) /contacts in Chromium with 10,000 contacts: time to first rows, time until all are held,
 *     and keystroke-to-results p95 for search;
 * (c) JS heap per contact held by the open /contacts screen, against the contact's JSON size.
 */
import type { Page } from 'playwright-core';
import { sdkClientFor, signedInPage, snapshotDist, type Person } from '../e2e/support/live';
import { client, shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer } from '../support/server';
import { EVENTS, bare, makeEvents, sdkEvents, throughMachine } from './contacts-events';
import { seedContacts, settleHarness, usedHeap } from './contacts-fixture';
import { pushedEvents, type PushedRun } from './contacts-pushed';
import { fmt, median, percentile, writeSection } from './report';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/**
 * `BENCH_CONTACTS_PART=a` runs only (a), `=c` only (c), `=bc` (b) and (c)...; a run of fewer than
 * all three prints its parts without touching docs/performance.md.
 */
const PARTS = process.env.BENCH_CONTACTS_PART ?? 'abc';
const want = (part: 'a' | 'b' | 'c') => PARTS.includes(part);
const ALL_PARTS = want('a') && want('b') && want('c');

async function events() {
  const list = makeEvents();
  const machine: number[] = [];
  const plain: number[] = [];
  await throughMachine(list); // warm-up
  bare(list);
  for (let i = 0; i < RUNS; i++) {
    machine.push(await throughMachine(list));
    plain.push(bare(list));
  }
  return { machine: median(machine), plain: median(plain) };
}

const countLabel = (n: number) => `${n.toLocaleString('en-US')} contacts`;

const countIs = (page: Page, text: string, timeout = 180_000) =>
  page.waitForFunction(
    (t) => document.querySelector('[data-testid="contact-count"]')?.textContent === t,
    text,
    { timeout },
  );

/**
 * Used heap (after a forced GC) with /contacts open and every contact counted, minus the heap on
 * /history (app, sync client and a screen open, no contacts held) just before, in the same page.
 */
async function heapGrowth(person: Person, total: string): Promise<number> {
  const { page, context } = person;
  await page.getByRole('heading', { name: 'Call history' }).waitFor();
  await settleHarness(page);
  await page.waitForTimeout(1000);
  const cdp = await context.newCDPSession(page);
  const before = await usedHeap(cdp);
  await page.getByRole('link', { name: 'Contacts' }).click();
  await countIs(page, total);
  const after = await usedHeap(cdp);
  await cdp.detach();
  return after - before;
}

/** Navigation start → first contact row in the DOM, and → every contact held. */
async function openContacts(page: Page, url: string, total: string) {
  await page.addInitScript(`(() => {
    const tick = () => {
      if (!window.__firstRow && document.querySelector('[data-testid="contact-row"]')) window.__firstRow = performance.now();
      const c = document.querySelector('[data-testid="contact-count"]');
      if (c && c.textContent === ${JSON.stringify(total)}) { window.__allRows = performance.now(); return; }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })();`);
  await page.goto(url);
  await countIs(page, total);
  await page.waitForFunction(() => (window as unknown as { __allRows?: number }).__allRows);
  return page.evaluate(() => {
    const w = window as unknown as { __firstRow: number; __allRows: number };
    return { firstRow: w.__firstRow, allRows: w.__allRows };
  });
}

/**
 * keydown → the list shows the results for the new text, painted (the next animation frame).
 * The check starts at the `input` event, when the box holds the new text.
 */
async function keystrokes(page: Page, text: string): Promise<number[]> {
  const input = page.locator('#contact-search');
  const times: number[] = [];
  // A string, not a function: tsx would wrap the inner helpers in names the page lacks.
  await page.evaluate(`window.__armKey = () => {
    const box = document.querySelector('#contact-search');
    window.__key = new Promise((resolve) => {
      let t0 = 0;
      const giveUp = setTimeout(() => resolve(Number.NaN), 10000);
      box.addEventListener('keydown', () => { t0 = performance.now(); }, { once: true, capture: true });
      box.addEventListener('input', () => {
        const check = () => {
          const list = document.querySelector('[data-testid="contact-scroller"]');
          if (list && list.getAttribute('data-query') === box.value) {
            requestAnimationFrame(() => { clearTimeout(giveUp); resolve(performance.now() - t0); });
          } else requestAnimationFrame(check);
        };
        check();
      }, { once: true });
    });
  }`);
  const type = async (key: string) => {
    await page.evaluate('window.__armKey()');
    await input.press(key);
    const ms = await page.evaluate<number>('window.__key');
    if (Number.isNaN(ms)) throw new Error(`no results rendered after pressing ${key}`);
    times.push(ms);
  };
  for (const ch of text) await type(ch === ' ' ? 'Space' : ch);
  for (let i = 0; i < text.length; i++) await type('Backspace');
  return times;
}

function partA(
  pushed: PushedRun,
  sdk: { bare: number[]; machine: number[] },
  alone: { machine: number; plain: number },
): string {
  const pushedBare = median(pushed.bare);
  const pushedMachine = median(pushed.machine);
  const ratioPushed = pushedMachine / pushedBare;
  const sdkBare = median(sdk.bare);
  const sdkMachine = median(sdk.machine);
  const ratio = sdkMachine / sdkBare;
  const ratioAlone = alone.machine / alone.plain;
  const perEvent = (ms: number) => fmt((ms * 1000) / EVENTS, 2);
  const us = (values: number[]) => values.map((n) => fmt(n, 1)).join(', ');
  return [
    `### (a) ${EVENTS.toLocaleString('en-US')} pushed map events`,
    '',
    `**Row 1: events pushed by the server over the socket.** The real server pushes ${pushed.events.toLocaleString('en-US')}`,
    'map events per round (a lightweight Twilsock writer, tests/bench/raw-twilsock.ts, sets 10,000',
    'contacts round-robin, after a warm-up round that adds them) to two real twilio-sync 4.0.1 clients',
    'subscribed to the map, each in a process of its own (tests/bench/contacts-pushed-client.ts), so',
    "each side's process CPU time is everything a pushed event costs that client, from the frame off",
    "the socket (Twilsock decode, ack, the SDK's cache) to the view. Both receive the same notifications",
    'at the same time. **Bare**: a plain `itemAdded`/`itemUpdated` listener, a plain `Map`, a view',
    'reading the size and the changed item. **Machine**: `provideContainerMachines` → `syncMap` actor →',
    'a view reading `selectMapSize` and a row through `selectMapItem`, as `useSelector` does. Every',
    "round checks that each side applied every event and its view holds the round's last write.",
    '',
    '| | SDK + machine + view | bare SDK + listener | ratio |',
    '| --- | --- | --- | --- |',
    `| client CPU per event (µs), median of ${pushed.bare.length} rounds | ${fmt(pushedMachine, 1)} | ${fmt(pushedBare, 1)} | ${fmt(ratioPushed, 2)}× |`,
    `| rounds (µs per event) | ${us(pushed.machine)} | ${us(pushed.bare)} | |`,
    '',
    `- Overhead on pushed events ${fmt(ratioPushed, 2)}× (target ≤ 1.3×): ${ratioPushed <= 1.3 ? 'met' : 'NOT met'}`,
    '',
    "**Row 2: the same, without the SDK's socket handling.** Stricter: it leaves out the work twilio-sync",
    'does for every frame before its map code runs (in row 1, most of the bare side), so our share shows',
    'larger.',
    '',
    'The same notifications (10,000 contacts added, then updated round-robin; shaped as the server sends',
    'them, `twilio.sync.event` with `map_item_added`/`map_item_updated`) go into two real twilio-sync 4.0.1',
    '`SyncClient`s, each connected to the real server with the map open and subscribed. They enter each',
    "client where it takes notifications off the socket: its Twilsock client's `message` event, which runs",
    "`_routeMessage` → subscriptions → `SyncMapImpl._update` → the SDK's item cache → `itemAdded` /",
    '`itemUpdated`. Only the network is skipped (frames are not encoded, sent or parsed), so the timed loop',
    'is per-event work only, and the same SDK work is on both sides.',
    '',
    '- **Bare SDK**: the SDK path above → one plain `itemAdded`/`itemUpdated` listener that sets the item in',
    '  a plain `Map` and calls a subscriber reading the size and the changed item (a component without a',
    '  machine).',
    '- **SDK + machine**: the same SDK path → `bridgeMapEvents` → the `syncMap` actor as the app composes it',
    '  (`provideContainerMachines`: opened through `openEntity`, first page fetched, subscribed; seed-4',
    '  guards, immutable item store) → a subscriber reading `selectMapSize` and `selectMapItem(key)` as',
    '  `useSelector` does.',
    `- ${RUNS} rounds each after one warm-up round each, alternating bare and machine; medians. Every round`,
    `  checks that the subscriber ran ${EVENTS.toLocaleString('en-US')} times, the view holds 10,000 keys with`,
    "  the last data, and the SDK's own cache (`map.get`, which the server cannot answer) holds the last data.",
    '',
    '| | SDK + machine + view | bare SDK + listener | ratio |',
    '| --- | --- | --- | --- |',
    `| total (ms) | ${fmt(sdkMachine)} | ${fmt(sdkBare)} | ${fmt(ratio, 2)}× |`,
    `| per event (µs) | ${perEvent(sdkMachine)} | ${perEvent(sdkBare)} | |`,
    `| rounds (ms) | ${sdk.machine.map((n) => fmt(n)).join(', ')} | ${sdk.bare.map((n) => fmt(n)).join(', ')} | |`,
    '',
    `- Overhead without the socket ${fmt(ratio, 2)}× (${ratio <= 1.3 ? 'also within' : 'above'} the 1.3× set for pushed events)`,
    '',
    '**Row 3: the machine alone against a plain `Map`, SDK excluded.** Both sides get SDK-shaped',
    'events from an EventEmitter standing in for a SyncMap, so none of the SDK work above is in either.',
    '**Machine**: `bridgeMapEvents` → `syncMap` actor → the same selector subscriber. **Plain Map**: one',
    'listener converts the item as the bridge does, ignores events not newer than the known one, sets a',
    'plain `Map` and notifies the same kind of subscriber. This isolates what our layer costs per event;',
    'it is not the comparison the target is set against.',
    '',
    '| | machine + view | plain Map | ratio |',
    '| --- | --- | --- | --- |',
    `| total (ms) | ${fmt(alone.machine)} | ${fmt(alone.plain)} | ${fmt(ratioAlone, 2)}× |`,
    `| per event (µs) | ${perEvent(alone.machine)} | ${perEvent(alone.plain)} | |`,
  ].join('\n');
}

function partB(loads: Array<{ firstRow: number; allRows: number }>, typing: number[]): string {
  const firstRow = median(loads.map((l) => l.firstRow));
  const allRows = median(loads.map((l) => l.allRows));
  const p95 = percentile(typing, 95);
  return [
    `### (b) /contacts with ${CONTACTS.toLocaleString('en-US')} contacts in Chromium`,
    '',
    'Times from navigation start. The screen pages the whole map in (100 per page) and shows rows from the',
    'first page. Keystroke-to-results: from `keydown` in the search box until the list renders the results',
    `for the new text and the next frame is painted; ${typing.length} keystrokes (typing and deleting`,
    '"person 0424" and "555 0000 99").',
    '',
    '| | value |',
    '| --- | --- |',
    `| time to first rows (ms) | ${fmt(firstRow)} |`,
    `| time until all ${CONTACTS.toLocaleString('en-US')} are held (ms) | ${fmt(allRows)} |`,
    `| keystroke to results, median (ms) | ${fmt(median(typing))} |`,
    `| keystroke to results, p95 (ms) | ${fmt(p95)} |`,
    '',
    `- Search p95 ${fmt(p95)} ms (target < 50 ms): ${p95 < 50 ? 'met' : 'NOT met'}`,
  ].join('\n');
}

function partC(heapPerContact: number, marginal: number, jsonBytes: number): string {
  const ratioC = heapPerContact / jsonBytes;
  const n = CONTACTS.toLocaleString('en-US');
  const half = Math.floor(CONTACTS / 2).toLocaleString('en-US');
  return [
    '### (c) Heap per contact held',
    '',
    'JS heap (after a forced GC, via the DevTools protocol) with /contacts open and every contact held,',
    'minus the heap on /history just before navigating there in the same page (Playwright has already',
    'set up its own page script by then, so the harness is not counted); divided by the number of',
    `contacts. Lowest of the runs (GC noise only adds). The same is measured with ${half} contacts`,
    'first: the growth from there to all of them, per contact, is what one more contact costs, without',
    'what opening the screen costs once (code compiled for it, the React tree).',
    '',
    '| | bytes | × JSON |',
    '| --- | --- | --- |',
    `| JSON of one contact (average) | ${fmt(jsonBytes, 0)} | |`,
    `| heap per contact held (${n} held) | ${fmt(heapPerContact, 0)} | ${fmt(ratioC, 2)}× |`,
    `| of which each contact (${half} → ${n}) | ${fmt(marginal, 0)} | ${fmt(marginal / jsonBytes, 2)}× |`,
    `| of which opening the screen, spread over ${n} | ${fmt(heapPerContact - marginal, 0)} | |`,
    '',
    `- Heap ${fmt(ratioC, 2)}× its JSON (target ≤ 3×): ${ratioC <= 3 ? 'met' : 'NOT met'}`,
    '',
    'What holds it, per contact (`npx tsx tests/bench/heap-breakdown.ts` on an unminified build takes',
    'heap snapshots and prints this; figures from 2026-11-22, 10,000 contacts):',
    '',
    "- **twilio-sync 4.0.1's own item cache, ≈ 488 B (2.7× the JSON)**: the item data as parsed from",
    '  the wire (≈ 224 B: the object, its phones array and objects, the strings) and, per item, a',
    '  `SyncMapItem`, its descriptor, a `Date` for `date_updated`, the item URL string (≈ 92 B), a cache',
    '  `Entry` and a tree node (≈ 264 B together). Any client of the real SDK holds this; it leaves',
    '  ≈ 50 B per contact of the 3× budget for everything else, so the target cannot be met while the',
    "  screen holds the SDK's items.",
    "- **The map machine's item store, ≈ 86 B**: a `MapItem` per contact (36 B, and 12 B for its",
    "  `dateUpdated` as a boxed number) pointing at the SDK's data object (shared, not copied), and the",
    '  immutable hash trie holding the items (≈ 38 B since its buckets are allocated at their exact',
    '  size; ≈ 53 B before). The store and the screen together: the per-contact growth less the',
    "  SDK's cache.",
    '- **The contacts screen, ≈ 12 B**: the name-sorted array of map items (twice while React keeps the',
    "  previous render) and the virtualiser's key list. The search index holds nothing for a contact",
    '  whose name and company are plain ASCII (matched and sorted case-insensitively in place, numbers',
    '  digit by digit); other contacts keep one folded copy of name and company. Rows read the map item',
    '  when they render, so only the rows in view hold a copy of a contact.',
    '- **Not per contact, ≈ 1.5 MB**: code V8 compiles while the screen loads (≈ 1 MB) and the rendered',
    '  screen; this is the difference between the two rows above.',
  ].join('\n');
}

export async function benchContacts(): Promise<string> {
  const alone = want('a') ? await events() : null;

  // BENCH_DIST=dir: a build of one's own (e.g. unminified) instead of a copy of ./dist.
  const given = process.env.BENCH_DIST;
  const dist = given ? { dir: given, remove: () => {} } : snapshotDist();
  const server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  const browser = want('b') || want('c') ? await launchChromium() : null;
  try {
    const pushed = alone && (await pushedEvents(server.url, RUNS, EVENTS));
    const sdk = alone && (await sdkEvents((email) => client(server.url, email), RUNS));
    await shutdownClients();
    const a = alone && sdk && pushed ? partA(pushed, sdk, alone) : '';
    if (!browser) return a;
    const writer = await sdkClientFor(server.url, 'Seed Writer', 'seed@example.com');
    const map = await writer.map({ id: 'contacts', mode: 'open_or_create' });
    // Half first, measured on its own: the growth from half to all is the cost of one more
    // contact, without what opening the screen costs once (compiled code, the React tree).
    const half = Math.floor(CONTACTS / 2);
    await seedContacts(map, half);
    let halfGrowth = Infinity;
    for (let run = 0; run < RUNS && want('c'); run++) {
      const person = await signedInPage(
        browser,
        server.url,
        'Bea Bench',
        'bea@example.com',
        '/history',
      );
      halfGrowth = Math.min(halfGrowth, await heapGrowth(person, countLabel(half)));
      await person.context.close();
    }
    const jsonBytes = await seedContacts(map, CONTACTS, half);
    const total = countLabel(CONTACTS);

    const loads: Array<{ firstRow: number; allRows: number }> = [];
    const typing: number[] = [];
    let heapPerContact = 0;
    for (let run = 0; run < RUNS; run++) {
      const person = await signedInPage(
        browser,
        server.url,
        'Bea Bench',
        'bea@example.com',
        '/history',
      );
      const { page, context } = person;
      const growth = (await heapGrowth(person, total)) / CONTACTS;
      heapPerContact = run === 0 ? growth : Math.min(heapPerContact, growth);
      if (!want('b')) {
        await context.close();
        continue;
      }

      typing.push(...(await keystrokes(page, 'person 0424')));
      typing.push(...(await keystrokes(page, '555 0000 99')));
      await context.close();

      const fresh = await signedInPage(browser, server.url, 'Bea Bench', 'bea@example.com', '/');
      loads.push(await openContacts(fresh.page, `${server.url}/contacts`, total));
      await fresh.context.close();
    }

    const b = want('b') ? partB(loads, typing) : null;
    const marginal = (heapPerContact * CONTACTS - halfGrowth) / (CONTACTS - half);
    const c = partC(heapPerContact, marginal, jsonBytes);
    if (!ALL_PARTS) {
      return [want('a') ? a : null, b, want('c') ? c : null].filter((p) => p !== null).join('\n\n');
    }
    const md = [
      '## Contacts: container machine overhead, /contacts with 10,000 contacts, heap per contact',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)}; median of ${RUNS} runs unless said otherwise.`,
      '',
      a,
      '',
      b,
      '',
      c,
    ].join('\n');
    writeSection('contacts', md);
    return md;
  } finally {
    await shutdownClients();
    await browser?.close();
    await server.stop();
    server.cleanup();
    dist.remove();
  }
}
