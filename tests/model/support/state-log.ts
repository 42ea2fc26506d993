/**
 * Every value the page's `data-state` attributes take, in order, per element (a call card by its
 * `data-call-id`, the phone status by its test id), recorded in the page by a MutationObserver from
 * before the app starts. The app renders each machine state change (React flushes external-store
 * updates before the next task), so a state that lasts past one task is in the log even when the
 * test could not have polled it in time.
 */
import type { Page } from 'playwright-core';

export interface StateEntry {
  key: string;
  state: string;
}

export const STATE_LOG_SCRIPT = `(() => {
  const log = [];
  window.__states = log;
  const keyOf = (el) => el.getAttribute('data-call-id') || el.getAttribute('data-testid') || '?';
  const push = (el, state) => {
    const key = keyOf(el);
    for (let i = log.length - 1; i >= 0; i -= 1) {
      if (log[i].key === key) {
        if (log[i].state === state) return;
        break;
      }
    }
    log.push({ key, state });
  };
  new MutationObserver((records) => {
    const touched = new Set();
    for (const r of records) {
      if (r.type === 'childList') {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          if (n.hasAttribute('data-state')) touched.add(n);
          for (const el of n.querySelectorAll('[data-state]')) touched.add(el);
        }
      } else if (r.attributeName === 'data-state') {
        if (r.oldValue !== null) push(r.target, r.oldValue);
        touched.add(r.target);
      }
    }
    for (const el of touched) {
      const s = el.getAttribute('data-state');
      if (s !== null) push(el, s);
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-state'],
    attributeOldValue: true,
  });
})();`;

export async function installStateLog(page: Page): Promise<void> {
  await page.addInitScript(STATE_LOG_SCRIPT);
}

export async function readStateLog(page: Page): Promise<StateEntry[]> {
  return page.evaluate(() => (window as unknown as { __states: StateEntry[] }).__states.slice());
}
