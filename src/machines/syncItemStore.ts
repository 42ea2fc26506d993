/**
 * Immutable item store for container machines: live items plus tombstones, each with the last event
 * id known for its key (seed 3: "an item cache tracks known, deleted ... and ignores events older
 * than the last it has seen").
 *
 * Context must stay immutable (graph traversal and time travel reuse old snapshots), yet copying a
 * 10,000-item map per pushed event would be quadratic. So entries live in a hash trie of LEVELS
 * levels, each node WIDTH wide; a bucket is a flat array of (key, value, event id) triples. A write
 * copies one node per level and one small bucket, and every older version stays valid. Narrow nodes
 * keep the garbage per write small (pushed events are the hot path).
 */

/** A bucket: key, value (null for a tombstone), newest event id; repeated. */
type Bucket = readonly unknown[];
/** A trie node: child nodes, or buckets at the last level. */
type Node = ReadonlyArray<Node | Bucket | undefined>;

const BITS = 4;
const LEVELS = 3;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
const EMPTY: ReadonlyArray<undefined> = new Array<undefined>(WIDTH).fill(undefined);
const enum Write {
  Always,
  IfNewer,
  /** Tombstones: the event id kept is the newer of the known one and the given one. */
  KeepNewest,
}

/** Returned by `slot` when a key was never seen. */
const MISSING = -1;

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

function bucketOf(root: Node, h: number): Bucket | undefined {
  let node: Node | Bucket | undefined = root;
  for (let level = 0; level < LEVELS && node !== undefined; level += 1) {
    node = (node as Node)[(h >>> (level * BITS)) & MASK];
  }
  return node;
}

/** Position of `key`'s triple in `bucket`, or MISSING. */
function slot(bucket: Bucket | undefined, key: unknown): number {
  if (bucket === undefined) return MISSING;
  for (let i = 0; i < bucket.length; i += 3) if (bucket[i] === key) return i;
  return MISSING;
}

export class ItemStore<K, V> {
  private constructor(
    private readonly root: Node,
    /** Number of live (non-tombstone) items. */
    readonly size: number,
  ) {}

  static empty<K, V>(): ItemStore<K, V> {
    return new ItemStore<K, V>(EMPTY, 0);
  }

  get(key: K): V | undefined {
    const bucket = bucketOf(this.root, hashOf(key));
    const at = slot(bucket, key);
    return at === MISSING ? undefined : ((bucket![at + 1] as V | null) ?? undefined);
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** The newest event id seen for this key, live or removed; undefined if the key was never seen. */
  knownEventId(key: K): number | undefined {
    const bucket = bucketOf(this.root, hashOf(key));
    const at = slot(bucket, key);
    return at === MISSING ? undefined : (bucket![at + 2] as number);
  }

  /** True when an event with this id for this key is new (seed 4: equal or older ids are ignored). */
  isNewer(key: K, eventId: number): boolean {
    const known = this.knownEventId(key);
    return known === undefined || eventId > known;
  }

  set(key: K, value: V, eventId: number): ItemStore<K, V> {
    return this.write(key, value, eventId, Write.Always);
  }

  /** {@link set} when `eventId` is newer than the one known for `key`; otherwise this same store. */
  setIfNewer(key: K, value: V, eventId: number): ItemStore<K, V> {
    return this.write(key, value, eventId, Write.IfNewer);
  }

  /** Tombstones `key`; with an unknown event id the tombstone keeps the id already known. */
  remove(key: K, eventId: number | null): ItemStore<K, V> {
    return this.write(key, null, eventId ?? -1, Write.KeepNewest);
  }

  /** Live items in no particular order; callers sort. */
  values(): V[] {
    const out: V[] = [];
    const walk = (node: Node | Bucket | undefined, level: number) => {
      if (node === undefined) return;
      if (level < LEVELS) {
        for (const child of node as Node) walk(child, level + 1);
        return;
      }
      for (let i = 1; i < node.length; i += 3) if (node[i] !== null) out.push(node[i] as V);
    };
    walk(this.root, 0);
    return out;
  }

  /** One walk down the trie for every kind of write (pushed events are the hot path). */
  private write(key: K, value: V | null, eventId: number, mode: Write): ItemStore<K, V> {
    const h = hashOf(key);
    const path: Node[] = [];
    let node: Node | Bucket | undefined = this.root;
    for (let level = 0; level < LEVELS; level += 1) {
      const parent: Node = (node as Node | undefined) ?? EMPTY;
      path.push(parent);
      node = parent[(h >>> (level * BITS)) & MASK];
    }
    const old = node as Bucket | undefined;
    const at = slot(old, key);
    const known = at === MISSING ? -1 : (old![at + 2] as number);
    if (mode === Write.IfNewer && at !== MISSING && eventId <= known) return this;
    const id = mode === Write.KeepNewest ? Math.max(known, eventId) : eventId;
    let bucket: unknown[];
    let wasLive = false;
    if (at === MISSING) {
      // concat and a literal allocate exactly the slots needed; push would grow the backing store
      // to about 20 slots, and buckets are held for as long as their items (heap per item counts).
      bucket = old === undefined ? [key, value, id] : old.concat([key, value, id]);
    } else {
      bucket = old!.slice();
      wasLive = bucket[at + 1] !== null;
      bucket[at + 1] = value;
      bucket[at + 2] = id;
    }
    let child: Node | Bucket = bucket;
    for (let level = LEVELS - 1; level >= 0; level -= 1) {
      const copy = path[level]!.slice();
      copy[(h >>> (level * BITS)) & MASK] = child;
      child = copy;
    }
    const nextRoot = child as Node;
    const size = this.size + (value !== null ? 1 : 0) - (wasLive ? 1 : 0);
    return new ItemStore(nextRoot, size);
  }
}
