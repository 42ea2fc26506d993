/**
 * Twilio's twins in a process of their own, as `npm run twins` starts them (server/twins-main.ts,
 * bundled by `npm run build` beside the server): a child process on a free loopback port with its
 * own data folder. App servers reach them with {@link TwinsProcess.appEnv} (startServer's `env`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './ports';
import { childEnv } from './server';

export interface TwinsProcess {
  url: string;
  /** What an app server's environment needs to reach them, as the process printed it. */
  appEnv: Record<string, string>;
  /** Everything the process printed so far. */
  output: () => string;
  stop: () => Promise<void>;
  cleanup: () => void;
  process: ChildProcess;
}

const root = resolve(import.meta.dirname, '../..');
export const twinsEntry = join(root, 'build/server/twins-main.mjs');

/** Starts the twins; their webhooks go to `publicUrl` (an app server, or a load balancer). */
export async function startTwinsProcess(options: {
  publicUrl: string;
  env?: Record<string, string>;
}): Promise<TwinsProcess> {
  if (!existsSync(twinsEntry))
    throw new Error(`${twinsEntry} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-twins-'));
  const child = spawn(process.execPath, ['--enable-source-maps', twinsEntry], {
    cwd: root,
    env: {
      ...childEnv(port, dataDir),
      SWITCHBOARD_PUBLIC_URL: options.publicUrl,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  if (process.env.SWITCHBOARD_TEST_ECHO === '1')
    for (const s of [child.stdout, child.stderr])
      s.on('data', (d: Buffer) => process.stderr.write(d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const appEnv = await new Promise<Record<string, string>>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`twins did not start in time:\n${out}`)), 60_000);
    child.stdout.on('data', () => {
      const line = /app servers reach them with: (.*)\n/.exec(out)?.[1];
      if (line === undefined) return;
      clearTimeout(timer);
      done(Object.fromEntries(line.split(' ').map((kv) => kv.split('=') as [string, string])));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`twins exited with ${String(code)} before listening:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    appEnv,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
    process: child,
  };
}
