import { defineConfig } from 'vitest/config';

/**
 * Test projects:
 * - unit: one layer at a time (machines with SimulatedClock, pure helpers, server modules in-process).
 * - integration: the real server as a process, driven by the real twilio-sync SDK in Node.
 * - model: @xstate/graph paths walked against the real built app in Debian's Chromium.
 * - e2e: user journeys in Chromium against the real server.
 * The groups run one after another (sequence.groupOrder), and process and browser tests one file
 * at a time: CI has two cores, and a starved browser test is a flaky one.
 */
export default defineConfig({
  define: { __REVISION__: JSON.stringify('test') },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
          environment: 'node',
          // No unit test is a speed test (speed is measured in `npm run bench`): on a busy machine,
          // with the checks and the integration suites beside it, the first test of a file that
          // loads a screen's chunk took over vitest's default 5 s (route guard, once).
          testTimeout: 20_000,
          // The files share a worker's modules instead of importing everything again per file
          // (React, XState, the SDKs): the project took 197 s and 220 CPU seconds alone, 92 s and 82
          // with this, every test passing, also with the files shuffled (seeds 1 and 2). A unit test
          // leaves no state behind in a module: each makes its own actors, stores and servers.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['tests/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          globalSetup: ['tests/support/server-build.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          sequence: { groupOrder: 2 },
          include: ['tests/model/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // expect.poll waits for what a page shows: a second (vitest's default) is less than a page
          // start takes on a loaded machine (calendar's rows after a reload were not in by then).
          expect: { poll: { timeout: 15_000, interval: 100 } },
          fileParallelism: false,
          globalSetup: ['tests/support/global-setup.ts'],
        },
      },
    ],
  },
});
