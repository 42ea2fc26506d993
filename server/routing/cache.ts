/**
 * A small read-through cache with a lifetime per entry: webhooks under load read the same Sync
 * objects again and again, and Twilio's REST API is a network round trip away. Concurrent misses for
 * one key share one load; a failed load is not kept (the next read tries again).
 *
 * An entry past its lifetime is kept as a stale copy: when the new load fails (Sync down, after the
 * client's retries) or has not answered within `staleAfterMs`, the stale copy is answered instead
 * and the load goes on in the background. A caller is routed on data a little old rather than not at
 * all (issue 24: "a caller must always be routed somewhere").
 */
/**
 * `promise`'s value when it comes within `ms`; otherwise, or when it fails, `fallback()`'s (the copy
 * kept), the promise going on in the background.
 */
export function settleWithin<T>(promise: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback()), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback());
      },
    );
  });
}

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  /** Keys whose load under way has already kept a reader waiting its full `staleAfterMs`. */
  private readonly overdue = new Set<string>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 5000,
    /** How long a read waits for a fresh load before it takes the stale copy. */
    private readonly staleAfterMs = 1000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    return this.read(key, load).then((r) => r.value);
  }

  /**
   * As {@link get}, also saying whether the value is the stale copy (the fresh load failed or was
   * slower than `staleAfterMs`, this cache's unless given).
   */
  read(
    key: string,
    load: () => Promise<V>,
    staleAfterMs = this.staleAfterMs,
  ): Promise<{ value: V; stale: boolean }> {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.now()) return Promise.resolve({ value: hit.value, stale: false });
    const fresh = this.load(key, load);
    if (!hit) return fresh.then((value) => ({ value, stale: false }));
    const stale = { value: hit.value, stale: true };
    // The load is known to be slow: later readers take the stale copy at once (unless they asked to
    // wait longer than the reader who found it slow).
    if (this.overdue.has(key) && staleAfterMs <= this.staleAfterMs) return Promise.resolve(stale);
    return settleWithin(
      fresh.then((value) => ({ value, stale: false })),
      staleAfterMs,
      () => {
        if (this.loading.has(key)) this.overdue.add(key);
        return stale;
      },
    );
  }

  /**
   * Loads `key` afresh whatever its age (a load under way is shared); a failure is thrown and leaves
   * the copy kept as it was, for the readers that may take it stale.
   */
  fresh(key: string, load: () => Promise<V>): Promise<V> {
    return this.load(key, load);
  }

  /** The value kept for `key`, fresh or stale, without loading; undefined when there is none. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  private load(key: string, load: () => Promise<V>): Promise<V> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const promise = load().then(
      (value) => {
        this.loading.delete(key);
        this.overdue.delete(key);
        if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.clear();
        this.entries.set(key, { value, until: this.now() + this.ttlMs });
        return value;
      },
      (err: unknown) => {
        this.loading.delete(key);
        this.overdue.delete(key);
        throw err;
      },
    );
    // Nobody may be waiting for it (a stale copy was answered): its failure is not unhandled.
    promise.catch(() => undefined);
    this.loading.set(key, promise);
    return promise;
  }

  /** Forgets a key (after this server wrote it). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every key (after this server wrote what they were read from). */
  clear(): void {
    this.entries.clear();
  }
}
