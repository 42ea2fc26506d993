/**
 * Where Twilio is, as the app sees it: Twilio's own cloud, or Twilio's twins running in this process
 * (server/twins, made by the composition root, server/app.ts). Configuration, not a code path: the
 * app talks to either through the `twilio` package, the same access tokens and the same webhooks;
 * what differs is where the browsers' SDKs connect, where REST requests go, and what this server
 * carries besides the app (the twins' REST APIs and WebSockets).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OwnTls } from '../platform/http/own-tls';

export interface BrowserEndpoints {
  /** The twilio-sync SDK's client options; `{}` keeps Twilio's own addresses. */
  sync: Record<string, unknown>;
  voice: {
    /** The Voice SDK's `chunderw` (its signalling host), when not Twilio's own. */
    chunderw?: string;
    /** The signalling URL the page's SDK loader dials (src/io/voice/sdk.ts). */
    signallingUrl: string;
    /** Whether the SDK publishes its events to Voice Insights (Twilio's only). */
    insights: boolean;
  };
}

/** Where the Voice SDK signals by default; `wss://`, so the page leaves it alone (src/io/voice/sdk.ts). */
export const TWILIO_SIGNALLING_URL = 'wss://voice-js.roaming.twilio.com/signal';

/** Twilio's own endpoints, whatever the page's origin. */
export const TWILIO_ENDPOINTS: BrowserEndpoints = {
  sync: {},
  voice: { signallingUrl: TWILIO_SIGNALLING_URL, insights: true },
};

/** What a page must reach besides its own origin on Twilio (Sync, Voice signalling, Insights). */
export const TWILIO_CONNECT_SOURCES: readonly string[] = [
  'https://*.twilio.com',
  'wss://*.twilio.com',
];

export interface Cloud {
  /** Where the browsers' SDKs reach Twilio from a page at `pageOrigin`. */
  endpoints(pageOrigin: string): BrowserEndpoints;
  /** What a page must be allowed to reach besides its own origin (the CSP's connect-src). */
  connectSources: readonly string[];
  /**
   * Where the `twilio` package's requests go when not to Twilio's own hosts (null): the twins'
   * address, known once the server listens (until then the promise waits).
   * SWITCHBOARD_TWILIO_API_URL, when set, wins over it.
   */
  restBase(): Promise<string> | null;
  /**
   * The server's own certificate (TLS_CERT) trusted for requests to itself: the twins' webhooks,
   * REST requests and recordings reach this server; null when nothing is sent here.
   */
  ownTls: OwnTls | null;
  /** Requests this server answers for the cloud (the twins' REST APIs); false for any other. */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** WebSocket upgrades this server takes for the cloud (Twilsock, signalling); false otherwise. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * The server listens at `origin`: the cloud is reached there if it runs here, and the TwiML app's
   * webhooks go to `publicUrl` (made the server's own address when it was left unset).
   */
  open(origin: string): Promise<void>;
  /**
   * Whether the calls end with this server: the voice twin runs in it, so a crash drops them and
   * the app journals each live call until its row is written (calls/journal.ts).
   */
  callsEndHere: boolean;
  close(): Promise<void>;
}

/** Twilio's own cloud: nothing runs here; the browsers reach Twilio's addresses. */
export const TWILIO_CLOUD: Cloud = {
  endpoints: () => TWILIO_ENDPOINTS,
  connectSources: TWILIO_CONNECT_SOURCES,
  restBase: () => null,
  ownTls: null,
  handleHttp: () => false,
  handleUpgrade: () => false,
  open: () => Promise.resolve(),
  callsEndHere: false,
  close: () => Promise.resolve(),
};

/**
 * Where the browsers' SDKs find Twilio on its own hosts, kept when the twins stand in for it
 * elsewhere: the twilsock client's `wss://tsock.<region>.twilio.com/v3/wsconnect` and the Voice
 * SDK's `wss://<chunderw>/signal` (their sources: node_modules/twilsock, @twilio/voice-sdk).
 */
const TWILSOCK_PATH = '/v3/wsconnect';
const SIGNALLING_PATH = '/signal';

/**
 * Twilio's twins in a process of their own (`npm run twins`), at `apiUrl` (SWITCHBOARD_TWILIO_API_URL
 * on `twilio-twins`): one origin stands for all of Twilio's hosts, with Twilio's own paths, as
 * the REST client's `<url>/<product>/…` does (client.ts). Nothing of theirs runs here, and calls
 * go on without this server, as on Twilio.
 */
export function twinsElsewhere(apiUrl: string): Cloud {
  const origin = new URL(apiUrl).origin;
  const ws = origin.replace(/^http/, 'ws');
  const endpoints: BrowserEndpoints = {
    sync: { twilsock: { uri: `${ws}${TWILSOCK_PATH}` }, cdsUri: origin },
    voice: {
      chunderw: new URL(origin).host,
      signallingUrl: `${ws}${SIGNALLING_PATH}`,
      insights: false,
    },
  };
  return {
    ...TWILIO_CLOUD,
    endpoints: () => endpoints,
    connectSources: [origin, ws],
  };
}
