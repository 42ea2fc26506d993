/**
 * Twilio mode on the twins (`SWITCHBOARD_BACKEND=twilio-twins`): the server runs exactly as on Twilio
 * (tokens minted for Twilio with the API key, ACL required, Sync written through the `twilio`
 * package) while "Twilio" is this process: the embedded Sync service plays the account's Sync
 * service, answering Twilio's Sync REST API at `<origin>/twilio/sync/v1` and the browsers' twilio-sync
 * SDK at `<origin>/v3/wsconnect`, taking the tokens Twilio would (signed by the account's API key).
 * It is how a team rehearses a Twilio setup before buying a number, and how CI runs every browser
 * suite on Twilio mode. Calls run on the voice twin as a TwiML application: the browsers' Voice SDK
 * signals to this origin, and each call asks the server's Twilio webhooks for its TwiML
 * (server/twins/voice/twiml/application.ts).
 *
 * The account is made up but well formed: fixed SIDs (each can be set with its usual variable) and
 * an API secret and auth token generated once in `<data>/twilio-twins/`. Its Sync data lives there
 * too, apart from the app's own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSyncService, type SyncService } from './sync/service';
import { syncReadDelayFromEnv } from './sync/twilio-api/config';
import { syncFaultsFromEnv } from './sync/twilio-api/faults';
import { DEFAULT_TWILIO_API_MOUNT } from './sync/twilio-api/http';
import { createTwilioClient, SwitchboardRequestClient } from '../twilio/client';
import type { TwilioConfig } from '../twilio/config';
import { twinFolder } from './account-env';
import type { OwnTls } from './own-tls';
import type { VoiceBackend } from '../voice/routes';
import { SIGNAL_PATH } from './voice/model';
import type { TwimlApplication } from './voice/twiml/application';
import { TWILIO_PATHS } from '../../src/contracts/api';

export interface TwinAccount {
  /** The Sync twin (its own SQLite file under `<data>/twilio-twins/`). */
  sync: SyncService;
  /**
   * The Twilio backend's HTTP client: its requests wait until the server listens, then go to the
   * twin (or to SWITCHBOARD_TWILIO_API_URL when set).
   */
  httpClient: SwitchboardRequestClient;
  /** The Twilio backend's Sync service, with the browsers sent to the twin instead of Twilio's cloud. */
  wrap(twilioSync: SyncService): SyncService;
  /**
   * The Twilio backend's Voice credentials, with the browsers' Voice SDK sent to the voice twin on
   * this origin (`chunderw`, the page's own signalling URL) and Insights off (no network here).
   */
  wrapVoice(voice: VoiceBackend): VoiceBackend;
  /**
   * The TwiML app as docs/operations.md's setup steps make it: Voice URL, fallback and status
   * callback on this server; for the voice twin once the server listens.
   */
  application(): TwimlApplication;
  /**
   * Once the server listens at `origin`: the REST API (and, unless set, the public URL) point there,
   * and the Sync service is set up as docs/operations.md's setup steps say (ACL on).
   */
  open(origin: string): Promise<void>;
  close(): Promise<void>;
}

export function createTwinAccount(
  config: TwilioConfig,
  deps: {
    dataDir: string;
    log: (message: string) => void;
    env?: Readonly<Record<string, string | undefined>>;
    /** With TLS_CERT: this server's own certificate trusted by the clients that reach the twins. */
    ownTls?: OwnTls | null;
  },
): TwinAccount {
  // Tests only: a slow Sync (SWITCHBOARD_TEST_SYNC_DELAY_MS).
  const readDelayMs = syncReadDelayFromEnv(deps.env ?? process.env);
  if (readDelayMs > 0)
    deps.log(`[twins: sync] TEST HOOK: every Sync REST read is answered ${readDelayMs} ms late`);
  // Tests only: a Sync in trouble (SWITCHBOARD_TEST_SYNC_FAULTS).
  const faults = syncFaultsFromEnv(deps.env ?? process.env);
  if (faults)
    deps.log(`[twins: sync] TEST HOOK: Sync REST requests are refused as ${faults.file} says`);
  const sync = createSyncService({
    dataDir: twinFolder(deps.dataDir),
    log: (message, error) =>
      deps.log(
        `[twins: sync] ${message}${error instanceof Error ? `: ${error.message}` : error === undefined ? '' : `: ${JSON.stringify(error)}`}`,
      ),
    twilioApi: {
      accountSid: config.accountSid,
      authToken: config.authToken,
      apiKeys: { [config.apiKey]: config.apiSecret },
      serviceSid: config.syncServiceSid,
      readDelayMs,
      faults,
      // Sync webhooks reach this server as Twilio would: at its public URL (over its own TLS).
      ...(deps.ownTls ? { webhookFetch: deps.ownTls.fetch } : {}),
    },
  });
  const voice = createTwinVoiceAccount(config, deps.ownTls ?? null);
  return {
    sync,
    httpClient: voice.httpClient,
    wrap(twilioSync) {
      return {
        ...twilioSync,
        // The browsers connect where the token says: this origin, as on the embedded backend.
        clientOptions: (origin) => sync.clientOptions(origin),
        handleUpgrade: (req, socket, head) => sync.handleUpgrade(req, socket, head),
        handleHttp: (req: IncomingMessage, res: ServerResponse) =>
          sync.handleHttp?.(req, res) ?? false,
      };
    },
    wrapVoice(voice) {
      return {
        ...voice,
        credentials(identity, ttlSeconds, origin) {
          const given = voice.credentials(identity, ttlSeconds, origin);
          const page = new URL(origin);
          const ws = page.protocol === 'https:' ? 'wss' : 'ws';
          return {
            ...given,
            device: { ...given.device, chunderw: page.host, publishEvents: false },
            signalling: { url: `${ws}://${page.host}${SIGNAL_PATH}` },
          };
        },
      };
    },
    application: () => voice.application(),
    async open(origin) {
      await voice.open(origin);
      // Setup step 3: the team's Sync service, with ACL on.
      await createTwilioClient(config, voice.httpClient)
        .sync.v1.services(config.syncServiceSid)
        .update({ friendlyName: 'Switchboard (twins)', aclEnabled: true });
    },
    close: () => sync.close(),
  };
}

/**
 * The voice half of a twin account, for either backend: the app's REST client (its requests wait
 * until the server listens, then go to this process's twins, or SWITCHBOARD_TWILIO_API_URL when
 * set) and the TwiML app the voice twin runs.
 */
export interface TwinVoiceAccount {
  httpClient: SwitchboardRequestClient;
  /**
   * The TwiML app as docs/operations.md's setup steps make it: Voice URL, fallback and status
   * callback on this server; for the voice twin once the server listens.
   */
  application(): TwimlApplication;
  /** Once the server listens at `origin`: the REST API (and, unless set, the public URL) point there. */
  open(origin: string): Promise<void>;
}

export function createTwinVoiceAccount(
  config: TwilioConfig,
  /** With TLS_CERT: the REST client and the voice twin trust this server's own certificate. */
  own: OwnTls | null = null,
): TwinVoiceAccount {
  let listening!: (origin: string) => void;
  const base = new Promise<string>((resolve) => (listening = resolve));
  return {
    httpClient: new SwitchboardRequestClient(() => base, undefined, undefined, own?.agent),
    application: () => ({
      ...(own ? { fetch: own.fetch } : {}),
      accountSid: config.accountSid,
      applicationSid: config.twimlAppSid,
      apiKey: config.apiKey,
      apiSecret: config.apiSecret,
      authToken: config.authToken,
      voiceUrl: `${config.publicUrl}${TWILIO_PATHS.voice}`,
      voiceFallbackUrl: `${config.publicUrl}${TWILIO_PATHS.fallback}`,
      statusCallback: `${config.publicUrl}${TWILIO_PATHS.status}`,
    }),
    open(origin) {
      const url = new URL(origin);
      // The server reaches its own twin over loopback when it listens on every address.
      if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
      if (url.hostname === '[::]') url.hostname = '[::1]';
      config.apiBaseUrl ??= `${url.origin}${DEFAULT_TWILIO_API_MOUNT}`;
      if (config.publicUrl === '') config.publicUrl = url.origin;
      listening(config.apiBaseUrl);
      return Promise.resolve();
    },
  };
}
