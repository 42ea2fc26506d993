/**
 * Twilio's twins, as one outside service: the Sync twin (./sync: Twilsock for the browsers'
 * twilio-sync SDK, Twilio's Sync REST API, its ACL and webhooks) and the voice twin (./voice: the
 * Voice SDK's signalling and media, TwiML applications' calls, the Voice REST API, recordings). They
 * play the made-up account of server/twins/account.ts, which the app reads as its Twilio account,
 * and answer on whatever HTTP server carries them (the app's own, on its port, for SWITCHBOARD_BACKEND
 * `embedded` and `twilio-twins`: server/app.ts). The app never imports them: it reaches them as it
 * reaches Twilio, through the `twilio` package, access tokens and webhooks.
 *
 * At {@link Twins.open} the account is set up as docs/operations.md's steps set up a real one: the
 * Sync service with ACL on, and the TwiML app's Voice URL, fallback and status callback on the
 * server's public address.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OwnTls } from '../platform/http/own-tls';
import { keepAccountSecrets } from './account';
import { createSyncService, WS_PATH } from './sync/service';
import { syncReadDelayFromEnv } from './sync/twilio-api/config';
import { syncFaultsFromEnv } from './sync/twilio-api/faults';
import { DEFAULT_TWILIO_API_MOUNT } from './sync/twilio-api/http';
import { codecsFromEnv, fastPathFromEnv, testDropFromEnv } from './voice/media-options';
import { SIGNAL_PATH } from './voice/model';
import { networkFromEnv } from './voice/network';
import { createVoiceService } from './voice/service';
import { createVoicemailStore } from './voice/voicemail-store';
import { TWILIO_PATHS } from '../../src/contracts/api';

/** The account the twins play: what a real account's settings would say (server/twilio/config.ts). */
export interface TwinAccount {
  accountSid: string;
  apiKey: string;
  apiSecret: string;
  authToken: string;
  syncServiceSid: string;
  twimlAppSid: string;
  /** The TwiML app's Voice URL and callbacks are on this origin; '' for the server's own address. */
  publicUrl: string;
  /** The account's phone numbers (none on `embedded`): each runs the TwiML app's Voice URL. */
  phoneNumbers?: readonly string[];
}

/** How a page at some origin reaches the twins: the options each browser SDK is given. */
export interface TwinEndpoints {
  /** The twilio-sync SDK's client options (its Twilsock and Sync REST addresses). */
  sync: { twilsock: { uri: string }; cdsUri: string };
  /** The Voice SDK's signalling (`chunderw`, and the URL the page's SDK loader dials). */
  voice: { chunderw: string; signallingUrl: string };
}

export interface Twins {
  /** Answers the twins' REST APIs (`/twilio/…`); false for any other request. */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** Takes the twins' WebSocket upgrades (Twilsock, signalling); false for any other path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Where the `twilio` package's requests go (`<origin>/twilio`), once {@link open} has been called. */
  restBase(): Promise<string>;
  /** The twins' addresses as a page at `pageOrigin` reaches them (the same host and scheme). */
  endpoints(pageOrigin: string): TwinEndpoints;
  /**
   * The server carrying the twins listens at `origin`: the REST API answers there, and the account is
   * set up (ACL on; the TwiML app's URLs on `publicUrl`).
   */
  open(origin: string, publicUrl: string): Promise<void>;
  close(): Promise<void>;
}

export interface TwinsOptions {
  account: TwinAccount;
  /** Where the twins keep their data (Sync's SQLite file, recordings, the account's secrets). */
  dataDir: string;
  /** The environment the twins read their own settings and test hooks from. */
  env?: Readonly<Record<string, string | undefined>>;
  now?: () => number;
  log: (message: string) => void;
  /** With TLS_CERT: webhooks and `<Play>` fetches trust the server's own certificate. */
  ownTls?: OwnTls | null;
  /** `<Say>`: text spoken in a language (lower-case BCP 47) as 8 kHz μ-law. */
  speak: (text: string, language: string) => Promise<Buffer>;
  /** VOICE_RTP_PORTS: the UDP ports call audio may use. */
  rtpPorts?: [number, number] | null;
}

export function createTwins(options: TwinsOptions): Twins {
  const { account, log } = options;
  const env = options.env ?? process.env;
  keepAccountSecrets(options.dataDir, account, env);
  const readDelayMs = syncReadDelayFromEnv(env);
  if (readDelayMs > 0)
    log(`[twins: sync] TEST HOOK: every Sync REST read is answered ${readDelayMs} ms late`);
  const faults = syncFaultsFromEnv(env);
  if (faults) log(`[twins: sync] TEST HOOK: Sync REST requests are refused as ${faults.file} says`);
  const sync = createSyncService({
    dataDir: options.dataDir,
    ...(options.now ? { now: options.now } : {}),
    log: (message, error) =>
      log(
        `[twins: sync] ${message}${error instanceof Error ? `: ${error.message}` : error === undefined ? '' : `: ${JSON.stringify(error)}`}`,
      ),
    twilioApi: {
      accountSid: account.accountSid,
      authToken: account.authToken,
      apiKeys: { [account.apiKey]: account.apiSecret },
      serviceSid: account.syncServiceSid,
      readDelayMs,
      faults,
      // Sync webhooks reach the app as Twilio's would: at its public URL (over its own TLS).
      ...(options.ownTls ? { webhookFetch: options.ownTls.fetch } : {}),
    },
  });

  // Tests only: the relay loses a share of one leg's audio (SWITCHBOARD_TEST_DROP_PERCENT).
  const testDrop = testDropFromEnv(env);
  if (testDrop)
    log(
      `voice: TEST HOOK: the relay drops ${testDrop.percent}% of the audio sent to each ${testDrop.leg}'s leg`,
    );
  // The codecs every leg offers or accepts (SWITCHBOARD_VOICE_CODECS): Opus, then PCMU.
  const codecs = codecsFromEnv(env);
  if (codecs) log(`voice: legs speak ${codecs.join(', ')} (SWITCHBOARD_VOICE_CODECS)`);
  const fastPath = fastPathFromEnv(env);
  if (!fastPath)
    log('voice: the bridge forwards through werift only (SWITCHBOARD_VOICE_FAST_PATH=0)');
  // Twilio's timing (SWITCHBOARD_TWINS_NETWORK, SWITCHBOARD_TWINS_SEED): the seed is printed so a
  // failure in the `real` network can be replayed with it (voice/network.ts).
  const network = networkFromEnv(env);
  if (network.mode === 'real')
    log(
      `[twins: voice] network: real, seed ${network.seed} (replay: SWITCHBOARD_TWINS_NETWORK=real SWITCHBOARD_TWINS_SEED=${network.seed})`,
    );
  const voice = createVoiceService({
    network,
    dataDir: options.dataDir,
    ...(options.now ? { now: options.now } : {}),
    log,
    voicemail: createVoicemailStore(options.dataDir),
    speak: options.speak,
    media: {
      ...(options.rtpPorts ? { portRange: options.rtpPorts } : {}),
      ...(testDrop ? { testDrop } : {}),
      ...(codecs ? { codecs } : {}),
      ...(fastPath ? {} : { fastPath }),
    },
  });

  let opened!: (base: string) => void;
  const base = new Promise<string>((resolve) => (opened = resolve));
  return {
    handleHttp: (req, res) => voice.handleRest(req, res) || (sync.handleHttp?.(req, res) ?? false),
    handleUpgrade: (req, socket, head) =>
      voice.handleUpgrade(req, socket, head) || sync.handleUpgrade(req, socket, head),
    restBase: () => base,
    endpoints(pageOrigin) {
      const page = new URL(pageOrigin);
      const ws = page.protocol === 'https:' ? 'wss' : 'ws';
      return {
        sync: {
          twilsock: { uri: `${ws}://${page.host}${WS_PATH}` },
          cdsUri: `${page.protocol}//${page.host}`,
        },
        voice: { chunderw: page.host, signallingUrl: `${ws}://${page.host}${SIGNAL_PATH}` },
      };
    },
    open(origin, publicUrl) {
      // Setup step 3 (docs/operations.md): the team's Sync service, with ACL on.
      sync.setUpService?.({ friendlyName: 'Switchboard (twins)', aclEnabled: true });
      // Setup step 5: the TwiML app, its Voice URL, fallback and status callback on the server.
      voice.useApplication({
        ...(options.ownTls ? { fetch: options.ownTls.fetch } : {}),
        accountSid: account.accountSid,
        applicationSid: account.twimlAppSid,
        apiKey: account.apiKey,
        apiSecret: account.apiSecret,
        authToken: account.authToken,
        voiceUrl: `${publicUrl}${TWILIO_PATHS.voice}`,
        voiceFallbackUrl: `${publicUrl}${TWILIO_PATHS.fallback}`,
        statusCallback: `${publicUrl}${TWILIO_PATHS.status}`,
        phoneNumbers: account.phoneNumbers ?? [],
      });
      opened(`${origin}${DEFAULT_TWILIO_API_MOUNT}`);
      return Promise.resolve();
    },
    async close() {
      try {
        await voice.close();
      } catch (err) {
        log(`closing the voice twin failed: ${String(err)}`);
      }
      try {
        await sync.close();
      } catch (err) {
        log(`closing the Sync twin failed: ${String(err)}`);
      }
    },
  };
}
