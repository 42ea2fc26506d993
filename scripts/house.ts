/**
 * `npm run house`: measures how the server is built, so a claim about its shape is a command and
 * not a belief. It reads the sources (no build), follows every relative import (static, `export
 * … from`, and `import()`), and prints:
 *
 * - the imports between Twilio's twins (server/twins/) and the app (every other folder of server/
 *   but server/platform/ and the composition roots: app.ts, main.ts, config.ts, twins-main.ts),
 *   each way;
 * - the import circles (strongly connected sets of files) in server/ and in src/;
 * - the backend conditionals outside the twins and the platform: lines that choose what to do by
 *   which backend runs. A line counts when it names the backend (`config.backend`, `config.twins`,
 *   `callsEndHere`, a `twins` handle, the old `sync.internal` / `twilioBackend` / `embedded…()`
 *   forks) and tests it (`?` here or opening the next line, `&&`, `||`, `===`, `!==`, `if (`).
 *   They are told apart in server/app.ts, in the configuration readers (each
 *   `config.ts` of server/, whose work is to read it) and in the features (everything else).
 *
 * `npm run house -- <folder>` measures another checkout (e.g. a worktree of an older commit);
 * `-- --check` exits 1 when a twin and the app import each other or a circle exists, which
 * tests/unit/scripts/house.test.ts also asserts. server/sync/ counts as a twin: the Sync twin
 * lived there before it moved beside the voice twin.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Room = 'root' | 'platform' | 'twins' | 'app' | 'src';
export interface Edge {
  from: string;
  to: string;
}
export interface House {
  edges: Edge[];
  /** Imports from a twin into the app, and from the app into a twin. */
  crossings: { twinsToApp: Edge[]; appToTwins: Edge[] };
  /** Each circle's files, sorted; in server/ and in src/. */
  circles: { server: string[][]; src: string[][] };
  /** Backend conditionals, each `file:line: text`. */
  conditionals: { app: string[]; config: string[]; features: string[] };
}

const ROOT_FILES = new Set([
  'server/app.ts',
  'server/main.ts',
  'server/config.ts',
  'server/twins-main.ts',
]);

export function roomOf(path: string): Room {
  if (!path.startsWith('server/')) return 'src';
  if (ROOT_FILES.has(path)) return 'root';
  if (path.startsWith('server/platform/')) return 'platform';
  if (path.startsWith('server/twins/') || path.startsWith('server/sync/')) return 'twins';
  return 'app';
}

function sources(root: string, dir: string): string[] {
  const at = join(root, dir);
  if (!existsSync(at)) return [];
  return readdirSync(at).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sources(root, path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?:[^;'"]*?\sfrom\s+)?'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;

function resolveImport(root: string, from: string, spec: string): string | null {
  const base = join(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    const at = join(root, candidate);
    if (/\.tsx?$/.test(candidate) && existsSync(at) && statSync(at).isFile()) return candidate;
  }
  return null;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circlesOf(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1 || (next.get(v) ?? []).includes(v)) found.push(set.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

const BACKEND =
  /\bconfig\.(backend|twins)\b|\bbackend\.(kind|twins)\b|\bsync\.internal\b|\btwilioBackend\b|\bembedded[A-Z]\w*\(|\bonTwins\b|\bbackend\s*[!=]==|\bcallsEndHere\b|\btwins\s*(\?|&&|\|\|)|if \(!?twins\)/;
const TESTED = /\?|&&|\|\||===|!==|\bif \(/;
const COMMENT = /^\s*(\/\/|\*|\/\*)/;

export function measureHouse(root: string): House {
  const server = sources(root, 'server');
  const src = sources(root, 'src');
  const edges: Edge[] = [];
  for (const from of [...server, ...src]) {
    const text = readFileSync(join(root, from), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const to = resolveImport(root, from, (match[1] ?? match[2])!);
      if (to !== null) edges.push({ from, to });
    }
  }
  const crossing = (a: Room, b: Room) =>
    edges.filter((e) => roomOf(e.from) === a && roomOf(e.to) === b);
  const within = (files: string[]) => {
    const set = new Set(files);
    return edges.filter((e) => set.has(e.from) && set.has(e.to));
  };
  const conditionals: House['conditionals'] = { app: [], config: [], features: [] };
  for (const file of server) {
    const room = roomOf(file);
    if (room === 'twins' || room === 'platform') continue;
    const kind =
      file === 'server/app.ts' ? 'app' : /(^|\/)config\.ts$/.test(file) ? 'config' : 'features';
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    let counted = false;
    lines.forEach((line, i) => {
      // A branch of the conditional just counted (`? …`, `: …` on lines of their own) is not another.
      const continues = counted && /^\s*[?:]/.test(line);
      counted =
        !COMMENT.test(line) &&
        BACKEND.test(line) &&
        (TESTED.test(line) || (lines[i + 1] ?? '').trim().startsWith('?'));
      if (counted && !continues) conditionals[kind].push(`${file}:${i + 1}: ${line.trim()}`);
      counted ||= continues;
    });
  }
  return {
    edges,
    crossings: { twinsToApp: crossing('twins', 'app'), appToTwins: crossing('app', 'twins') },
    circles: { server: circlesOf(server, within(server)), src: circlesOf(src, within(src)) },
    conditionals,
  };
}

function report(root: string, check: boolean): number {
  const house = measureHouse(root);
  const list = (title: string, lines: string[]) => {
    console.log(`${title}: ${lines.length}`);
    for (const line of lines) console.log(`  ${line}`);
  };
  const edge = (e: Edge) => `${e.from} -> ${e.to}`;
  console.log(`${relative(process.cwd(), root) || '.'}: ${house.edges.length} relative imports`);
  list('twins -> app imports', house.crossings.twinsToApp.map(edge));
  list('app -> twins imports', house.crossings.appToTwins.map(edge));
  list(
    'import circles in server/',
    house.circles.server.map((c) => c.join(', ')),
  );
  list(
    'import circles in src/',
    house.circles.src.map((c) => c.join(', ')),
  );
  list('backend conditionals in server/app.ts', house.conditionals.app);
  list('backend conditionals in the features', house.conditionals.features);
  list('backend conditionals in the configuration readers', house.conditionals.config);
  const broken =
    house.crossings.twinsToApp.length +
    house.crossings.appToTwins.length +
    house.circles.server.length +
    house.circles.src.length;
  return check && broken > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const args = process.argv.slice(2);
  const folder = args.find((a) => !a.startsWith('--'));
  process.exitCode = report(
    resolve(folder ?? join(import.meta.dirname, '..')),
    args.includes('--check'),
  );
}
