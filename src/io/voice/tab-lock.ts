/**
 * One tab per person holds the phone: a Web Lock named after the person. The first tab takes it;
 * another tab can take it over (`steal`), and the tab that loses it is told so it can let go of
 * its Device. Without Web Locks every tab holds the phone (the service then rings each one).
 */
export interface TabLock {
  /** Takes the lock if nobody holds it; true when this tab now holds it. */
  tryAcquire(): Promise<boolean>;
  /** Takes the lock from whichever tab holds it (at once when this tab already holds it). */
  takeOver(): Promise<void>;
  /**
   * Queues for the lock: when the tab holding it closes or lets go, this tab holds it and `onFree`
   * runs (the first tab in the queue wins; the others keep waiting). Cancelled by `release()`.
   */
  whenFree(onFree: () => void): void;
  /** Lets go of the lock (no-op when not held). */
  release(): void;
}

export function createTabLock(
  name: string,
  locks: LockManager | null,
  onLost: () => void,
): TabLock {
  let releaseHeld: (() => void) | null = null;
  let queued: AbortController | null = null;

  /** Holds the lock until `release()`; resolves true once held, false when not granted. */
  function hold(options: LockOptions): Promise<boolean> {
    if (!locks) return Promise.resolve(true);
    let mine: (() => void) | null = null;
    return new Promise<boolean>((resolveHeld) => {
      locks
        .request(name, options, (lock) => {
          if (lock === null) {
            resolveHeld(false);
            return undefined;
          }
          resolveHeld(true);
          return new Promise<void>((release) => {
            mine = release;
            releaseHeld = release;
          });
        })
        .catch(() => {
          // Another tab stole the lock this request held: this tab no longer holds the phone. (A
          // queued request that was cancelled held nothing.)
          if (mine !== null && releaseHeld === mine) {
            releaseHeld = null;
            onLost();
          }
          resolveHeld(false);
        });
    });
  }

  return {
    tryAcquire: () => hold({ ifAvailable: true }),
    async takeOver() {
      if (releaseHeld) return;
      queued?.abort();
      queued = null;
      const held = await hold({ steal: true });
      if (!held) throw new Error('The phone could not be taken over from the other tab.');
    },
    whenFree(onFree) {
      if (!locks || queued || releaseHeld) return;
      const controller = new AbortController();
      queued = controller;
      void hold({ signal: controller.signal }).then((held) => {
        if (queued === controller) queued = null;
        if (held) onFree();
      });
    },
    release() {
      queued?.abort();
      queued = null;
      const release = releaseHeld;
      releaseHeld = null;
      release?.();
    },
  };
}
