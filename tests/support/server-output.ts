import { afterEach, beforeEach } from 'vitest';
import type { RunningServer } from './server';

/**
 * In a suite: each test that fails is told with what the server printed during it (the last
 * `chars` characters), read from the server `current()` returns (a suite may restart it).
 */
export function tellServerOutputOnFailure(
  current: () => RunningServer | undefined,
  chars = 20_000,
): void {
  let mark = 0;
  beforeEach(() => {
    mark = current()?.output().length ?? 0;
  });
  afterEach((ctx) => {
    const server = current();
    if (ctx.task.result?.state !== 'fail' || !server) return;
    // A restarted server's output starts again: all of it.
    const out = server.output();
    console.error(
      `server output during the test:\n${out.slice(out.length >= mark ? mark : 0).slice(-chars)}`,
    );
  });
}
