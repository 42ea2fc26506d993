/**
 * The code the one-definition tests read: every TypeScript file in src/ and server/ outside
 * src/contracts (where the definitions live).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '../../../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Paths relative to the repository, outside src/contracts. */
export const codeFiles: readonly string[] = [...sources('src'), ...sources('server')].filter(
  (f) => !f.startsWith(join('src', 'contracts')),
);

/** A file's text, by its path relative to the repository. */
export const readCode = (file: string): string => readFileSync(join(root, file), 'utf8');

/** A file's syntax tree. */
export const parseCode = (file: string): ts.SourceFile =>
  ts.createSourceFile(file, readCode(file), ts.ScriptTarget.Latest, true);
