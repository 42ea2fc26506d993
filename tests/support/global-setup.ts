import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Browser tests drive the built app served by the real server. Building takes seconds, so it is
 * always done here: the app under test is the code (and commit id) of this run, never a stale dist.
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '../..');
  execFileSync('bash', ['scripts/ensure-chromium.sh'], { cwd: root, stdio: 'inherit' });
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
