/**
 * Immutable item store for container machines: live items plus tombstones, each with the last event
 * id known for its key (seed 3: "an item cache tracks known, deleted ... and ignores events older
 * than the last it has seen").
 *
 * Context must stay immutable (graph traversal and time travel reuse old snapshots), yet copying a
 * 10,000-item map per pushed event would be quadratic. So writes go to a small overlay that is
 * copied, and the overlay is folded into a fresh base once it grows past about sqrt(n): a write
 * costs O(sqrt n) amortised and every version stays valid.
 */

interface Entry<V> {
  /** null for a tombstone: the item was removed by event `eventId`. */
  readonly value: V | null;
  /** The newest event id applied to this key; -1 when unknown. */
  readonly eventId: number;
}

export class ItemStore<K, V> {
  private constructor(
    private readonly base: ReadonlyMap<K, Entry<V>>,
    private readonly overlay: ReadonlyMap<K, Entry<V>>,
    /** Number of live (non-tombstone) items. */
    readonly size: number,
  ) {}

  static empty<K, V>(): ItemStore<K, V> {
    return new ItemStore<K, V>(new Map(), new Map(), 0);
  }

  private entry(key: K): Entry<V> | undefined {
    return this.overlay.get(key) ?? this.base.get(key);
  }

  get(key: K): V | undefined {
    return this.entry(key)?.value ?? undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** The newest event id seen for this key, live or removed; undefined if the key was never seen. */
  knownEventId(key: K): number | undefined {
    return this.entry(key)?.eventId;
  }

  /** True when an event with this id for this key is new (seed 4: equal or older ids are ignored). */
  isNewer(key: K, eventId: number): boolean {
    const known = this.knownEventId(key);
    return known === undefined || eventId > known;
  }

  set(key: K, value: V, eventId: number): ItemStore<K, V> {
    return this.write(key, { value, eventId });
  }

  /** Tombstones `key`; with an unknown event id the tombstone keeps the id already known. */
  remove(key: K, eventId: number | null): ItemStore<K, V> {
    const known = this.knownEventId(key) ?? -1;
    return this.write(key, { value: null, eventId: Math.max(known, eventId ?? -1) });
  }

  /** Live items in insertion-independent order; callers sort. */
  values(): V[] {
    const out: V[] = [];
    for (const [key, entry] of this.base) {
      if (this.overlay.has(key)) continue;
      if (entry.value !== null) out.push(entry.value);
    }
    for (const entry of this.overlay.values()) {
      if (entry.value !== null) out.push(entry.value);
    }
    return out;
  }

  private write(key: K, entry: Entry<V>): ItemStore<K, V> {
    const wasLive = this.get(key) !== undefined;
    const size = this.size + (entry.value !== null ? 1 : 0) - (wasLive ? 1 : 0);
    const overlay = new Map(this.overlay);
    overlay.set(key, entry);
    if (overlay.size <= 32 + Math.sqrt(this.base.size)) {
      return new ItemStore(this.base, overlay, size);
    }
    const base = new Map(this.base);
    for (const [k, e] of overlay) base.set(k, e);
    return new ItemStore(base, new Map<K, Entry<V>>(), size);
  }
}
