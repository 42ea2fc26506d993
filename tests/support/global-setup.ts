import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The short commit id the app under test was built from, read from git here. */
    builtRevision: string;
  }
}

/**
 * Browser tests drive the built app served by the real, built server (`npm run build`: the app by
 * Vite, the server bundled by esbuild). Building takes seconds, so it is done here: the code under
 * test (and the commit id the app shows) is this run's, never a stale build; under `npm test`, which
 * has just built both (SWITCHBOARD_TEST_BUILT=1), nothing is built again.
 */
export default function setup(project: TestProject): void {
  const root = resolve(import.meta.dirname, '../..');
  execFileSync('bash', ['scripts/ensure-chromium.sh'], { cwd: root, stdio: 'inherit' });
  let revision = 'dev';
  try {
    revision = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
  } catch {
    // Outside git the label says "dev".
  }
  // `npm test` builds once before its two lanes (scripts/test.sh): a lane's vitest building again
  // would empty dist/ under the other lane's open pages (the app then never starts there).
  if (process.env.SWITCHBOARD_TEST_BUILT === '1') {
    project.provide('builtRevision', process.env.SWITCHBOARD_TEST_REVISION ?? revision);
    return;
  }
  // What `npm run build` does, Vite told to print warnings only.
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production', SWITCHBOARD_REVISION: revision },
  });
  execFileSync('npm', ['run', '-s', 'build:server'], { cwd: root, stdio: 'inherit' });
  project.provide('builtRevision', revision);
}
