/**
 * Immutable item store for container machines: live items plus tombstones, each with the last event
 * id known for its key (seed 3: "an item cache tracks known, deleted ... and ignores events older
 * than the last it has seen").
 *
 * Context must stay immutable (graph traversal and time travel reuse old snapshots), yet copying a
 * 10,000-item map per pushed event would be quadratic. So entries live in a two-level hash trie
 * (64 x 64 buckets): a write copies two 64-slot arrays and one small bucket, and every older
 * version stays valid.
 */

interface Entry<V> {
  /** null for a tombstone: the item was removed by event `eventId`. */
  readonly value: V | null;
  /** The newest event id applied to this key; -1 when unknown. */
  readonly eventId: number;
}

type Bucket<K, V> = ReadonlyMap<K, Entry<V>>;
type Branch<K, V> = ReadonlyArray<Bucket<K, V> | undefined>;
type Root<K, V> = ReadonlyArray<Branch<K, V> | undefined>;

const WIDTH = 64;
const EMPTY: ReadonlyArray<undefined> = new Array<undefined>(WIDTH).fill(undefined);

/** A cheap, well-spread 32-bit hash of a list index or map key. */
function hashOf(key: unknown): number {
  if (typeof key === 'number') {
    // Indexes are dense integers: spread neighbours over different buckets (Knuth's multiplier).
    return Math.imul(key | 0, 0x9e3779b1) >>> 0;
  }
  const text = String(key);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class ItemStore<K, V> {
  private constructor(
    private readonly root: Root<K, V>,
    /** Number of live (non-tombstone) items. */
    readonly size: number,
  ) {}

  static empty<K, V>(): ItemStore<K, V> {
    return new ItemStore<K, V>(EMPTY, 0);
  }

  private entry(key: K): Entry<V> | undefined {
    const h = hashOf(key);
    return this.root[h & (WIDTH - 1)]?.[(h >>> 6) & (WIDTH - 1)]?.get(key);
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

  /** Live items in no particular order; callers sort. */
  values(): V[] {
    const out: V[] = [];
    for (const branch of this.root) {
      if (!branch) continue;
      for (const bucket of branch) {
        if (!bucket) continue;
        for (const entry of bucket.values()) if (entry.value !== null) out.push(entry.value);
      }
    }
    return out;
  }

  private write(key: K, entry: Entry<V>): ItemStore<K, V> {
    const h = hashOf(key);
    const i = h & (WIDTH - 1);
    const j = (h >>> 6) & (WIDTH - 1);
    const branch = this.root[i] ?? EMPTY;
    const bucket = new Map(branch[j]);
    const wasLive = (bucket.get(key)?.value ?? null) !== null;
    bucket.set(key, entry);
    const nextBranch = branch.slice();
    nextBranch[j] = bucket;
    const nextRoot = this.root.slice();
    nextRoot[i] = nextBranch;
    const size = this.size + (entry.value !== null ? 1 : 0) - (wasLive ? 1 : 0);
    return new ItemStore(nextRoot, size);
  }
}
