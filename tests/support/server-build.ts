import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The integration project's global setup: the server its suites start is the built one
 * (tests/support/server.ts `serverEntry`), bundled here from this run's sources (under half a
 * second), unless `npm test` has just built it (SWITCHBOARD_TEST_BUILT=1).
 */
export default function setup(): void {
  if (process.env.SWITCHBOARD_TEST_BUILT === '1') return;
  execFileSync('npm', ['run', '-s', 'build:server'], {
    cwd: resolve(import.meta.dirname, '../..'),
    stdio: 'inherit',
  });
}
