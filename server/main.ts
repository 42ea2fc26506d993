import { mkdirSync } from 'node:fs';
import { createApp, type App } from './app';
import { configFromEnv, type AppConfig } from './config';

/**
 * `npm start` / `npm run serve`: the web app, its API and Twilio's webhooks in one process, with
 * Twilio's twins in it too unless SWITCHBOARD_BACKEND=twilio.
 * Configuration comes from the environment (docs/operations.md lists every variable).
 */
async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = configFromEnv(process.env);
    mkdirSync(config.dataDir, { recursive: true });
  } catch (err) {
    console.error(`switchboard: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }

  let app: App;
  let url: string;
  try {
    app = createApp(config);
    url = await app.listen();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === 'EADDRINUSE'
        ? ` (port ${config.port} is taken: set PORT to another port)`
        : code === 'EACCES'
          ? ` (no permission to listen on ${config.host}:${config.port})`
          : '';
    console.error(
      `switchboard: could not start: ${err instanceof Error ? err.message : String(err)}${hint}`,
    );
    process.exit(1);
  }

  console.log(`switchboard listening on ${url} (data in ${config.dataDir})`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`switchboard: ${signal} received, shutting down`);
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`switchboard: shutdown failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// A terminal or log reader that goes away (a closed pipe) must neither stop the server nor make
// every later line an error about the line before: what cannot be written is dropped.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

// One bad request or a stray socket error must not take every signed-in user offline.
process.on('uncaughtException', (err) => {
  console.error(`switchboard: uncaught exception: ${err.stack ?? err.message}`);
});
process.on('unhandledRejection', (reason) => {
  console.error(`switchboard: unhandled rejection: ${String(reason)}`);
});

void main();
