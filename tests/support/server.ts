import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configFromEnv } from '../../server/config';
import type { TwilioConfig } from '../../server/twilio/config';
import { freePort } from './ports';

export interface RunningServer {
  /** e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  dataDir: string;
  /** Everything the process printed so far (stdout and stderr). */
  output: () => string;
  /** Graceful stop (SIGTERM), waits for exit. */
  stop: () => Promise<void>;
  /** SIGKILL, waits for exit. The data dir is kept so a restart can reuse it. */
  kill: () => Promise<void>;
  /** Removes the data dir (after stop/kill). */
  cleanup: () => void;
  process: ChildProcess;
  /** SWITCHBOARD_BACKEND as the server was started with it. */
  backend: string;
  /**
   * The Twilio account the server runs on, read as it read it (on the twins, the made-up account
   * whose secrets it keeps in its data folder): what a test signs tokens or REST requests with.
   */
  account(): TwilioConfig;
}

export interface StartOptions {
  dataDir?: string;
  port?: number;
  env?: Record<string, string>;
}

const root = resolve(import.meta.dirname, '../..');

/**
 * The server as `npm start` runs it: `server/main.ts` bundled by `npm run build` (esbuild, the
 * packages left to node_modules), which the browser and integration projects' global setup builds
 * before their suites (tests/support/global-setup.ts). A bundle starts in about 1 CPU second where
 * tsx compiling the sources took about 2.5, and the suites start the server a few hundred times.
 */
export const serverEntry = join(root, 'build/server/main.mjs');

/** The command line that runs the built server: `[node, ...args]`. */
export function serverCommand(): [string, string[]] {
  if (!existsSync(serverEntry))
    throw new Error(`${serverEntry} is missing: run \`npm run build\` first`);
  return [process.execPath, ['--enable-source-maps', serverEntry]];
}

/**
 * The backend browser suites run on: SWITCHBOARD_E2E_BACKEND in the test runner's environment,
 * `embedded` (the default) or `twilio-twins` (Twilio mode against the server's own twins:
 * server/twins/account.ts). Every server `startServer` starts gets it, unless the test names a
 * backend itself.
 */
export function e2eBackend(): 'embedded' | 'twilio-twins' {
  const v = (process.env.SWITCHBOARD_E2E_BACKEND ?? '').trim();
  if (v === '' || v === 'embedded') return 'embedded';
  if (v === 'twilio-twins') return v;
  throw new Error(`SWITCHBOARD_E2E_BACKEND must be "embedded" or "twilio-twins", got "${v}"`);
}

/**
 * The twins' network seed of this test run (docs/twins-voice.md, "Twilio's timing"): with
 * SWITCHBOARD_TWINS_NETWORK=real and no SWITCHBOARD_TWINS_SEED, one is drawn per test process (a
 * vitest worker: one per file) and printed once, so a failure is replayed by running that file
 * again with it; every server that process starts gets it.
 */
let runSeed: string | null = null;
function twinsSeed(): Record<string, string> {
  if ((process.env.SWITCHBOARD_TWINS_NETWORK ?? '').trim() !== 'real') return {};
  const given = (process.env.SWITCHBOARD_TWINS_SEED ?? '').trim();
  if (given !== '') return {};
  if (runSeed === null) {
    runSeed = String(Math.floor(Math.random() * 2 ** 32));
    process.stderr.write(
      `twins: real network, seed ${runSeed} (replay: SWITCHBOARD_TWINS_NETWORK=real SWITCHBOARD_TWINS_SEED=${runSeed})\n`,
    );
  }
  return { SWITCHBOARD_TWINS_SEED: runSeed };
}

/** A test child process's environment: the runner's, on loopback `port` with its own data folder. */
export function childEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    SWITCHBOARD_DATA: dataDir,
  };
}

/**
 * Starts the real server (built: {@link serverEntry}) as a child process on a free loopback port
 * with its own data folder, and resolves once it prints its "listening" line.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const [node, args] = serverCommand();
  const backend = options.env?.SWITCHBOARD_BACKEND ?? e2eBackend();
  const child = spawn(node, args, {
    cwd: root,
    env: {
      ...childEnv(port, dataDir),
      SWITCHBOARD_BACKEND: backend,
      ...twinsSeed(),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // SWITCHBOARD_TEST_ECHO=1: the server's output is printed as it comes (debugging a suite).
  if (process.env.SWITCHBOARD_TEST_ECHO === '1') {
    child.stdout.on('data', (d: Buffer) => process.stderr.write(d));
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));

  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in time:\n${out}`)),
      60_000,
    );
    const onData = (): void => {
      if (out.includes('listening on')) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)} before listening:\n${out}`));
    });
  });

  const wait = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    output: () => out,
    stop: () => wait('SIGTERM'),
    kill: () => wait('SIGKILL'),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
    process: child,
    backend,
    account: () =>
      configFromEnv({ ...options.env, SWITCHBOARD_BACKEND: backend, SWITCHBOARD_DATA: dataDir })
        .twilio,
  };
}
