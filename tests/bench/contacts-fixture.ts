/** The contacts the /contacts benchmarks hold: the same 10,000 for (b), (c) and the heap breakdown. */
import type { CDPSession, Page } from 'playwright-core';
import type { SyncMap } from 'twilio-sync';
import { inBatches } from '../e2e/support/live';

export function contact(i: number) {
  const n = String(i).padStart(5, '0');
  return {
    name: `Person ${n}`,
    company: ['Globex', 'Initech', 'Umbrella', 'Hooli'][i % 4]!,
    phones: [
      { label: 'Work', number: `+1555${String(i).padStart(7, '0')}` },
      { label: 'Ext', number: String(200 + (i % 700)) },
    ],
    email: `person${n}@example.com`,
    note: i % 3 ? '' : 'Prefers a call in the morning.',
  };
}

/**
 * Writes contacts `from` to `count - 1` (keys k00000...) and returns the average JSON size in bytes
 * of contacts 0 to `count - 1`.
 */
export async function seedContacts(map: SyncMap, count: number, from = 0): Promise<number> {
  const keys = Array.from({ length: count }, (_, i) => i);
  await inBatches(keys.slice(from), 500, (i) =>
    map.set(`k${String(i).padStart(5, '0')}`, contact(i)),
  );
  return keys.reduce((n, i) => n + Buffer.byteLength(JSON.stringify(contact(i))), 0) / count;
}

/** Used JS heap after a forced GC, as the DevTools protocol reports it. */
export async function usedHeap(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  return (await cdp.send('Runtime.getHeapUsage')).usedSize;
}

/**
 * Has Playwright set up its own script in the page's main world (it does so on the first
 * `waitForFunction`), so a heap reading taken after this does not count the harness.
 */
export async function settleHarness(page: Page): Promise<void> {
  await page.waitForFunction(() => true);
}
