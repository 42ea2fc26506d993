/**
 * A stand-in for the browser refusing or stalling a Web Lock: the app takes the phone over from
 * another tab with `navigator.locks.request(name, { steal: true }, …)`, which a real browser
 * grants at once. Installed before the app starts, this lets the test set, per page, whether such
 * a request is refused (after a moment, as an asynchronous refusal comes) or left waiting.
 * Every other lock request goes to the browser unchanged.
 */
import type { Page } from 'playwright-core';

export type LockGate = 'grant' | 'refuse' | 'hold';

const LOCK_GATE_SCRIPT = `(() => {
  const locks = navigator.locks;
  if (!locks) return;
  window.__lockGate = 'grant';
  const request = locks.request.bind(locks);
  locks.request = (name, options, callback) => {
    const stealing = typeof options === 'object' && options !== null && options.steal === true;
    if (stealing && window.__lockGate === 'refuse')
      return new Promise((_, reject) =>
        setTimeout(() => reject(new DOMException('The lock request was refused.', 'AbortError')), 50),
      );
    if (stealing && window.__lockGate === 'hold') return new Promise(() => {});
    return callback === undefined ? request(name, options) : request(name, options, callback);
  };
})();`;

export async function installLockGate(page: Page): Promise<void> {
  await page.addInitScript(LOCK_GATE_SCRIPT);
}

export async function setLockGate(page: Page, gate: LockGate): Promise<void> {
  await page.evaluate((g) => {
    (window as unknown as { __lockGate: string }).__lockGate = g;
  }, gate);
}
