import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { rtpPortsFromEnv } from './calls/settings';
import { createSpeech } from './guidance/speech';
import { httpUrl, nonEmpty, parsePort, type Env } from './platform/config';
import { listenAt, selfAddress } from './platform/http/hosts';
import { twilioConfigFromEnv } from './twilio/config';
import { twinEnvironment, TWIN_PHONE_NUMBER } from './twins/account';
import { createTwins, type Twins } from './twins';

/**
 * `npm run twins`: Twilio's twins (server/twins) in a process of their own, on their own port, as
 * Twilio is to the app: app servers reach them over the network (SWITCHBOARD_BACKEND=twilio-twins
 * with SWITCHBOARD_TWILIO_API_URL, docs/operations.md "Twilio's twins in a process of their own"),
 * so any number of them can share one Twilio, and the calls go on while an app server restarts.
 *
 * Its environment: HOST and PORT (where the twins listen: 127.0.0.1 and 8081), SWITCHBOARD_DATA (the
 * twins' data: the Sync twin's database, recordings, the made-up account's secrets; `./twins-data`),
 * SWITCHBOARD_PUBLIC_URL (where the app answers Twilio's webhooks: one app server, or the load
 * balancer in front of several; `http://127.0.0.1:8080`, `npm start`'s address), the account's
 * TWILIO_* values when not the made-up ones, VOICE_RTP_PORTS, and the twins' own settings and test
 * hooks (SWITCHBOARD_SYNC_*, SWITCHBOARD_TWINS_NETWORK, …). At start it prints the line the app
 * servers' environment needs.
 */
interface TwinsProcessConfig {
  host: string;
  port: number;
  dataDir: string;
  publicUrl: string;
}

/** The twins' process settings and the made-up account; throws a readable error. */
function twinsConfigFromEnv(env: Env, cwd = process.cwd()) {
  const dataDir = resolve(cwd, nonEmpty(env.SWITCHBOARD_DATA) ?? 'twins-data');
  const publicUrl = new URL(httpUrl(env, 'SWITCHBOARD_PUBLIC_URL', 'http://127.0.0.1:8080')).origin;
  const account = twilioConfigFromEnv(
    { ...twinEnvironment(env, dataDir, [TWIN_PHONE_NUMBER]), SWITCHBOARD_PUBLIC_URL: publicUrl },
    { label: 'npm run twins', onTwins: true, noNumbers: false },
  );
  const config: TwinsProcessConfig = {
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    port: parsePort(env.PORT, 8081),
    dataDir,
    publicUrl,
  };
  return { config, account, rtpPorts: rtpPortsFromEnv(nonEmpty(env.VOICE_RTP_PORTS)) };
}

interface TwinsProcess {
  /** Where the twins answer (`http://host:port`). */
  url: string;
  /** What an app server's environment needs to reach them. */
  appEnv: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the twins on their own HTTP server. */
async function startTwinsProcess(env: Env, log: (message: string) => void): Promise<TwinsProcess> {
  const { config, account, rtpPorts } = twinsConfigFromEnv(env);
  mkdirSync(config.dataDir, { recursive: true });
  const speech = createSpeech({ dataDir: config.dataDir });
  const twins: Twins = createTwins({
    account,
    dataDir: config.dataDir,
    env,
    log,
    speak: (text, language) => speech.render(text, language),
    rtpPorts,
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (twins.handleHttp(req, res)) return;
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        code: 20404,
        message: `The requested resource ${req.url ?? ''} was not found`,
        status: 404,
      }),
    );
  });
  server.on('upgrade', (req, socket, head) => {
    if (!twins.handleUpgrade(req, socket, head)) socket.destroy();
  });
  const url = selfAddress(await listenAt(server, config.port, config.host, 'http'));
  await twins.open(url, config.publicUrl);
  const appEnv = {
    SWITCHBOARD_BACKEND: 'twilio-twins',
    SWITCHBOARD_TWILIO_API_URL: await twins.restBase(),
    SWITCHBOARD_PUBLIC_URL: config.publicUrl,
    TWILIO_API_SECRET: account.apiSecret,
    TWILIO_AUTH_TOKEN: account.authToken,
  };
  return {
    url,
    appEnv,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await twins.close();
    },
  };
}

async function main(): Promise<void> {
  let twins: TwinsProcess;
  try {
    twins = await startTwinsProcess(process.env, (message) => console.error(message));
  } catch (err) {
    console.error(`switchboard twins: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  console.log(`switchboard twins listening on ${twins.url}`);
  console.log(
    `app servers reach them with: ${Object.entries(twins.appEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`switchboard twins: ${signal} received, shutting down`);
    twins.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`switchboard twins: shutdown failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
