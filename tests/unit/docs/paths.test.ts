/**
 * The map stays true: every path the README, docs/ and the CONTEXT.md files name exists. Three kinds
 * are read: a path from a root folder (`server/calls/twiml.ts`, `tests/e2e/`), a Markdown link
 * (`[text](../src/app)`, from the file's own folder), and a file named from somewhere inside the
 * tree (`calls/twiml.ts`: some file's path ends so). A path with `*`, `<name>` or `{a,b}` in it is a
 * pattern, not a path, and is not read.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const SKIP = new Set(['node_modules', 'build', 'dist', '.git', 'data', '.test-data', 'coverage']);

function walk(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = dir === '' ? name : `${dir}/${name}`;
    return statSync(join(root, path)).isDirectory() ? [`${path}/`, ...walk(path)] : [path];
  });
}

const tree = walk('');
const docs = tree.filter(
  (f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f) || f.endsWith('/CONTEXT.md'),
);

const FROM_ROOT = /(?<![\w./-])((?:src|server|tests|scripts|docs|\.ci)\/[\w./*<>{}-]*)/g;
const LINK = /\]\((?!https?:|mailto:|#)([^)\s]+)\)/g;
const INSIDE = /(?<![\w./-])((?:[\w-]+\/)+[\w.-]+\.(?:ts|tsx|md|css|sh|json))(?![\w/])/g;
const ROOTS = /^(src|server|tests|scripts|docs|\.ci)\//;

/** The paths `doc` names that do not exist, each with how it was written. */
function missingIn(doc: string): string[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const here = dirname(doc);
  const missing = new Set<string>();
  const exists = (path: string) => existsSync(join(root, path));
  for (const [, raw] of text.matchAll(FROM_ROOT)) {
    const path = raw!.replace(/\.+$/, '');
    if (!/[*<{]/.test(path) && !exists(path)) missing.add(path);
  }
  for (const [, raw] of text.matchAll(LINK)) {
    const path = raw!.split('#')[0]!;
    if (path === '' || /[*<{]/.test(path)) continue;
    if (!exists(normalize(join(here, path)))) missing.add(`(${path})`);
  }
  for (const [, path] of text.matchAll(INSIDE)) {
    if (ROOTS.test(path!)) continue;
    if (exists(join(here, path!)) || tree.some((f) => f === path || f.endsWith(`/${path!}`)))
      continue;
    missing.add(path!);
  }
  return [...missing];
}

describe('the paths the docs name', () => {
  it('reads the README, docs/ and every CONTEXT.md', () => {
    expect(docs).toContain('README.md');
    expect(docs).toContain('docs/architecture.md');
    expect(docs).toContain('server/CONTEXT.md');
    expect(docs.length).toBeGreaterThan(15);
  });

  it.each(docs)('%s names only paths that exist', (doc) => {
    expect(missingIn(doc)).toEqual([]);
  });
});
