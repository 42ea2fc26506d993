/**
 * Reaching another screen inside the running app, as a click on a link does: the router follows a
 * history change, so the app is not started again (a full load costs the page 2–4 CPU seconds).
 */
import type { Page } from 'playwright-core';

/**
 * Moves `page` (the app at `baseUrl`) to `path` and waits for the address (`landsOn`), then for the next
 * screen: the router keeps the screen before while the next one's chunk loads, so the next is shown
 * when the heading is another element or another text. A screen with the same heading under another
 * path (`/` then `/contacts`) keeps it, so that wait gives up after 3 s; the caller waits for what
 * the screen must show.
 */
export async function navigateInApp(
  page: Page,
  baseUrl: string,
  path: string,
  /** Where the app is to land when it sends the visitor on (a signed-in admin on /login: `/`). */
  landsOn = path,
): Promise<void> {
  await page.evaluate((to) => {
    const h1 = document.querySelector('h1');
    Object.assign(window, { navBefore: h1, navBeforeText: h1?.textContent });
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.waitForURL(`${baseUrl}${landsOn}`);
  await page
    .waitForFunction(
      () => {
        const { navBefore, navBeforeText } = window as unknown as {
          navBefore?: Element | null;
          navBeforeText?: string | null;
        };
        const now = document.querySelector('h1');
        return now !== null && (now !== navBefore || now.textContent !== navBeforeText);
      },
      undefined,
      { timeout: 3_000 },
    )
    .catch(() => undefined);
}
