import { describe, expect, it, vi } from 'vitest';
import { renderWhenReady, SPLASH_DELAY_MS } from '../../../../src/ui/app/first-render';

/** The two things renderWhenReady reads from a data router. */
function fakeRouter(initialized: boolean) {
  const listeners = new Set<(s: { initialized: boolean }) => void>();
  const router = {
    state: { initialized },
    subscribe: (fn: (s: { initialized: boolean }) => void) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    initialize() {
      router.state = { initialized: true };
      for (const fn of [...listeners]) fn(router.state);
    },
    listeners,
  };
  return router;
}

type RouterArg = Parameters<typeof renderWhenReady>[0];

describe('renderWhenReady', () => {
  it('renders at once when the first screen is already there', () => {
    const render = vi.fn();
    const router = fakeRouter(true);
    renderWhenReady(router as unknown as RouterArg, render);
    expect(render).toHaveBeenCalledTimes(1);
    expect(router.listeners.size).toBe(0);
  });

  it('renders once, when the router has its first screen, before the splash delay', () => {
    vi.useFakeTimers();
    try {
      const render = vi.fn();
      const router = fakeRouter(false);
      renderWhenReady(router as unknown as RouterArg, render);
      expect(render).not.toHaveBeenCalled();
      router.initialize();
      expect(render).toHaveBeenCalledTimes(1);
      expect(router.listeners.size).toBe(0);
      vi.advanceTimersByTime(SPLASH_DELAY_MS * 2);
      expect(render).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('renders the splash after the delay when the first screen is slow, and only once', () => {
    vi.useFakeTimers();
    try {
      const render = vi.fn();
      const router = fakeRouter(false);
      renderWhenReady(router as unknown as RouterArg, render);
      vi.advanceTimersByTime(SPLASH_DELAY_MS - 1);
      expect(render).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(render).toHaveBeenCalledTimes(1);
      router.initialize();
      expect(render).toHaveBeenCalledTimes(1);
      expect(router.listeners.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
