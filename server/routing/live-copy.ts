/**
 * A copy of some Sync data kept current by Sync's own events (the service's webhooks, sync-events.ts)
 * instead of being read for every call: read whole once, then changed by each event as it arrives,
 * and read whole again every `refreshMs` as a safety net (an event lost on the way). A call reads
 * nothing while the copy is there: a refresh runs in the background, and when it fails (Sync slow or
 * down) the copy, still kept current by the events, goes on answering.
 *
 * A read that fails is not tried again for {@link RETRY_MS} (Sync down: calls do not each wait for
 * one). Doubts are settled for Sync's side: an event older than the last one applied to its key (its
 * order, Sync's `EventId` or revision) is ignored, and an event that arrives while a read is under
 * way is applied to that read's result too (the read may have been answered before the change).
 */
import { settleWithin } from './cache';

/** How long after a failed read the copy is not read again (a call answers from it meanwhile). */
export const RETRY_MS = 5000;

export class LiveCopy<V> {
  private items: Map<string, V> | null = null;
  private readTime = 0;
  /** When the copy is next read again in the background (after a read, or a failed one). */
  private nextRead = 0;
  /** The last read failed, and it is not yet time to try again. */
  private failedUntil = 0;
  private loading: Promise<Map<string, V>> | null = null;
  /** What events changed while the read under way was in flight (null: removed). */
  private duringLoad: Map<string, V | null> | null = null;
  /** The order of the last event applied, per key. */
  private readonly lastOrder = new Map<string, number>();

  constructor(
    private readonly load: () => Promise<Map<string, V>>,
    private readonly refreshMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The copy: read first when there is none (a failure is thrown); read again in the background
   * when older than `refreshMs`, answering the copy meanwhile.
   */
  async get(): Promise<ReadonlyMap<string, V>> {
    if (this.items) {
      if (this.now() >= this.nextRead) this.reload().catch(() => undefined);
      return this.items;
    }
    return this.reload();
  }

  /**
   * The copy read again now (a read under way is shared); after `patienceMs` without an answer, or
   * when the read fails, the copy kept (a failure is thrown when there is none).
   */
  fresh(patienceMs: number): Promise<ReadonlyMap<string, V>> {
    const kept = this.items;
    // Sync failed a moment ago: the copy, at once.
    if (kept && this.now() < this.failedUntil) return Promise.resolve(kept);
    const read = this.reload();
    if (!kept) return read;
    return settleWithin<ReadonlyMap<string, V>>(read, patienceMs, () => kept);
  }

  /** When the copy was last read whole (epoch ms; 0: never). */
  readAt(): number {
    return this.readTime;
  }

  /** The value kept for `key`, without reading (undefined: none, or no copy yet). */
  peek(key: string): V | undefined {
    return this.items?.get(key);
  }

  /**
   * An event: `key` is now `value` (null: removed). `order` is its place among the key's events
   * (null when unknown: applied); `restart` says the key's order starts again (an object made anew).
   * Returns false when the event was older than one already applied.
   */
  apply(key: string, value: V | null, order: number | null, restart = false): boolean {
    if (order !== null) {
      const last = this.lastOrder.get(key);
      if (!restart && last !== undefined && order <= last) return false;
      this.lastOrder.set(key, order);
    }
    this.duringLoad?.set(key, value);
    if (this.items) {
      if (value === null) this.items.delete(key);
      else this.items.set(key, value);
    }
    return true;
  }

  /** Forgets the copy (the events stopped): the next {@link get} reads it whole. */
  clear(): void {
    this.items = null;
    this.lastOrder.clear();
  }

  private reload(): Promise<Map<string, V>> {
    this.loading ??= (async () => {
      const during = new Map<string, V | null>();
      this.duringLoad = during;
      try {
        const loaded = await this.load();
        for (const [key, value] of during)
          if (value === null) loaded.delete(key);
          else loaded.set(key, value);
        this.items = loaded;
        this.readTime = this.now();
        this.nextRead = this.readTime + this.refreshMs;
        return loaded;
      } catch (err) {
        this.failedUntil = this.nextRead = this.now() + Math.min(RETRY_MS, this.refreshMs);
        throw err;
      } finally {
        if (this.duringLoad === during) this.duringLoad = null;
        this.loading = null;
      }
    })();
    return this.loading;
  }
}
