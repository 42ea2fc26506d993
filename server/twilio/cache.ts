/**
 * A small read-through cache with a lifetime per entry: webhooks under load read the same Sync
 * objects again and again, and Twilio's REST API is a network round trip away. Concurrent misses for
 * one key share one load; a failed load is not kept (the next read tries again).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 5000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.now()) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const promise = load().then(
      (value) => {
        this.loading.delete(key);
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(key, { value, until: this.now() + this.ttlMs });
        return value;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, promise);
    return promise;
  }

  /** Forgets a key (after this server wrote it). */
  delete(key: string): void {
    this.entries.delete(key);
  }
}
