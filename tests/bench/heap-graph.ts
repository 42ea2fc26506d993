/**
 * A V8 heap snapshot (the DevTools `.heapsnapshot` JSON) as flat typed arrays, with the few queries
 * the heap breakdown needs: reachability from the GC roots with some nodes taken out (what those
 * nodes alone keep alive), retainer paths, and object shapes.
 */

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export class HeapGraph {
  readonly count: number;
  readonly type: Uint8Array;
  readonly name: Uint32Array;
  readonly id: Uint32Array;
  readonly size: Uint32Array;
  /** Edges of node i are edgeStart[i] .. edgeStart[i + 1] - 1. */
  readonly edgeStart: Uint32Array;
  readonly edgeType: Uint8Array;
  /** A string index for named edges, the element index for element and hidden edges. */
  readonly edgeName: Uint32Array;
  readonly edgeTo: Uint32Array;
  readonly strings: string[];
  readonly nodeTypes: string[];
  readonly edgeTypes: string[];
  private readonly weak: number;
  private readonly element: number;
  private readonly hidden: number;
  private parentCache: { parent: Int32Array; via: Int32Array } | null = null;

  constructor(json: string) {
    const raw = JSON.parse(json) as RawSnapshot;
    const { meta } = raw.snapshot;
    const nf = meta.node_fields.length;
    const ef = meta.edge_fields.length;
    const at = (fields: string[], f: string) => {
      const i = fields.indexOf(f);
      if (i < 0) throw new Error(`heap snapshot without the ${f} field`);
      return i;
    };
    const [nType, nName, nId, nSize, nEdges] = [
      'type',
      'name',
      'id',
      'self_size',
      'edge_count',
    ].map((f) => at(meta.node_fields, f)) as [number, number, number, number, number];
    const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) =>
      at(meta.edge_fields, f),
    ) as [number, number, number];
    this.nodeTypes = meta.node_types[0];
    this.edgeTypes = meta.edge_types[0];
    this.strings = raw.strings;
    this.weak = this.edgeTypes.indexOf('weak');
    this.element = this.edgeTypes.indexOf('element');
    this.hidden = this.edgeTypes.indexOf('hidden');
    const n = raw.nodes.length / nf;
    this.count = n;
    this.type = new Uint8Array(n);
    this.name = new Uint32Array(n);
    this.id = new Uint32Array(n);
    this.size = new Uint32Array(n);
    this.edgeStart = new Uint32Array(n + 1);
    const edges = raw.edges.length / ef;
    this.edgeType = new Uint8Array(edges);
    this.edgeName = new Uint32Array(edges);
    this.edgeTo = new Uint32Array(edges);
    let e = 0;
    for (let i = 0; i < n; i++) {
      const b = i * nf;
      this.type[i] = raw.nodes[b + nType]!;
      this.name[i] = raw.nodes[b + nName]!;
      this.id[i] = raw.nodes[b + nId]!;
      this.size[i] = raw.nodes[b + nSize]!;
      this.edgeStart[i] = e;
      e += raw.nodes[b + nEdges]!;
    }
    this.edgeStart[n] = e;
    for (let k = 0; k < edges; k++) {
      const b = k * ef;
      this.edgeType[k] = raw.edges[b + eType]!;
      this.edgeName[k] = raw.edges[b + eName]!;
      this.edgeTo[k] = raw.edges[b + eTo]! / nf;
    }
  }

  nodeType(i: number): string {
    return this.nodeTypes[this.type[i]!]!;
  }

  nodeName(i: number): string {
    return this.strings[this.name[i]!]!;
  }

  edgeLabel(k: number): string {
    const t = this.edgeType[k]!;
    return t === this.element || t === this.hidden
      ? `[${this.edgeName[k]}]`
      : (this.strings[this.edgeName[k]!] ?? '?');
  }

  /**
   * Whether an edge keeps its target alive. Weak edges do not. A WeakMap value is listed twice,
   * from its table and from its key; only the table's edge counts here (the keys of the maps this
   * breakdown looks at are alive anyway), so taking a WeakMap out frees its values.
   */
  private strong(from: number, k: number): boolean {
    const t = this.edgeType[k]!;
    if (t === this.weak) return false;
    if (t === this.element || t === this.hidden) return true;
    // Labelled "N / part of key (…) -> value (…) pair in WeakMap (table @…)"; the table is an array.
    const label = this.strings[this.edgeName[k]!];
    return !(label?.includes('part of key') && this.nodeType(from) !== 'array');
  }

  /** Nodes reachable from the snapshot's root without passing through `removed`. */
  reachable(removed?: Uint8Array): Uint8Array {
    const seen = new Uint8Array(this.count);
    const stack = new Uint32Array(this.count);
    let top = 0;
    seen[0] = 1;
    stack[top++] = 0;
    while (top > 0) {
      const i = stack[--top]!;
      for (let k = this.edgeStart[i]!; k < this.edgeStart[i + 1]!; k++) {
        const to = this.edgeTo[k]!;
        if (seen[to] || removed?.[to] || !this.strong(i, k)) continue;
        seen[to] = 1;
        stack[top++] = to;
      }
    }
    return seen;
  }

  /** A shortest path from the root to `node`, as edge labels and node names. */
  pathTo(node: number, hops = 10): string {
    if (!this.parentCache) {
      const parent = new Int32Array(this.count).fill(-1);
      const via = new Int32Array(this.count).fill(-1);
      const queue = new Uint32Array(this.count);
      let head = 0;
      let tail = 0;
      parent[0] = 0;
      queue[tail++] = 0;
      while (head < tail) {
        const i = queue[head++]!;
        for (let k = this.edgeStart[i]!; k < this.edgeStart[i + 1]!; k++) {
          const to = this.edgeTo[k]!;
          if (parent[to] !== -1 || !this.strong(i, k)) continue;
          parent[to] = i;
          via[to] = k;
          queue[tail++] = to;
        }
      }
      this.parentCache = { parent, via };
    }
    const { parent, via } = this.parentCache;
    const parts: string[] = [];
    let i = node;
    while (i !== 0 && parent[i] !== -1 && parts.length < hops) {
      parts.unshift(`${this.edgeLabel(via[i]!)}→${this.nodeName(i).slice(0, 30)}`);
      i = parent[i]!;
    }
    return (i === 0 ? '' : '… ') + parts.join(' / ');
  }

  /** Targets of the node's edges of the given kinds. */
  children(i: number, kinds?: string[]): number[] {
    const out: number[] = [];
    for (let k = this.edgeStart[i]!; k < this.edgeStart[i + 1]!; k++) {
      if (kinds && !kinds.includes(this.edgeTypes[this.edgeType[k]!]!)) continue;
      out.push(this.edgeTo[k]!);
    }
    return out;
  }

  /** The node named by an own property, or undefined. */
  property(i: number, prop: string): number | undefined {
    for (let k = this.edgeStart[i]!; k < this.edgeStart[i + 1]!; k++) {
      if (this.edgeTypes[this.edgeType[k]!] === 'property' && this.edgeLabel(k) === prop) {
        return this.edgeTo[k];
      }
    }
    return undefined;
  }

  /**
   * What kind of thing a node is, to group the per-contact ones: objects by constructor and
   * property names, strings by their text with digits as # (so "k00042" and "k00043" group).
   */
  shape(i: number): string {
    const type = this.nodeType(i);
    const name = this.nodeName(i);
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      const text = name.replace(/\d/g, '#');
      return `${type} "${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
    }
    if (type === 'object') {
      const props = new Set<string>();
      for (let k = this.edgeStart[i]!; k < this.edgeStart[i + 1]!; k++) {
        if (this.edgeTypes[this.edgeType[k]!] === 'property') props.add(this.edgeLabel(k));
      }
      const list = [...props].filter((p) => !p.startsWith('__')).sort();
      return `${name}{${list.slice(0, 7).join(',')}${list.length > 7 ? ',…' : ''}}`;
    }
    return `${type} ${name.slice(0, 40)}`;
  }
}

/** Total self size of the nodes set in `inA` and not in `inB`. */
export function sizeOfDifference(graph: HeapGraph, inA: Uint8Array, inB: Uint8Array): number {
  let total = 0;
  for (let i = 0; i < graph.count; i++) if (inA[i] && !inB[i]) total += graph.size[i]!;
  return total;
}
