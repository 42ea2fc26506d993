import type { DataRouter } from 'react-router-dom';

/** How long the first screen may take before the splash is shown instead of a blank page. */
export const SPLASH_DELAY_MS = 150;

/**
 * Renders the app once the router has its first screen (session restored, loaders done, lazy
 * screen loaded) or after {@link SPLASH_DELAY_MS}, whichever comes first. A fast start then paints
 * its first screen in one React pass instead of a splash and then the screen; a slow one still
 * shows the splash. Returns a function that cancels the wait (for tests).
 */
export function renderWhenReady(
  router: Pick<DataRouter, 'state' | 'subscribe'>,
  render: () => void,
  timers: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout } = globalThis,
): () => void {
  if (router.state.initialized) {
    render();
    return () => {};
  }
  let done = false;
  const renderOnce = (): void => {
    if (done) return;
    stop();
    render();
  };
  const unsubscribe = router.subscribe((state) => {
    if (state.initialized) renderOnce();
  });
  const timer = timers.setTimeout(renderOnce, SPLASH_DELAY_MS);
  function stop(): void {
    done = true;
    unsubscribe();
    timers.clearTimeout(timer);
  }
  return stop;
}
