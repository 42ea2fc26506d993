/**
 * The Sync twin: a Twilsock v3 WebSocket endpoint at `/v3/wsconnect` speaking the Sync REST API
 * that the unmodified twilio-sync SDK uses, and Twilio's Sync REST API (twilio-api/http.ts), backed
 * by SQLite in `<dataDir>/sync.db`. See docs/sync-service.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Connection } from './connection';
import type { ConnectionHost } from './connection';
import { RequestBatcher } from './batcher';
import { Core } from './core';
import { createAsServer } from './as-server';
import { describeAccess, forbidden, type AccessPolicy } from './policy';
import { limits } from './limits';
import type { RestRequest } from './rest/context';
import { openStore } from './store';
import type { SigningKey } from './token';
import { createTwilioApi, type TwilioApiOptions } from './twilio-api/http';

export interface SyncService {
  /** Takes a WebSocket upgrade on the service's path; false for any other path (the caller answers it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Answers a request of Twilio's Sync REST API (`<mount>/sync/v1/…`, twilio-api/http.ts); false for any other path. */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** Sets the Twilio service up as its owner would in Twilio's console (its name, ACL on or off). */
  setUpService(settings: { friendlyName: string; aclEnabled: boolean }): void;
  close(): Promise<void>;
}

export interface SyncServiceOptions {
  dataDir: string;
  now?: () => number;
  /** Expiry sweep period; default 1000 ms, or SWITCHBOARD_SYNC_SWEEP_MS. */
  sweepIntervalMs?: number;
  /**
   * Enables the test hooks over the tunnel (`POST /test/drop {identity}` drops that identity's
   * sockets; `/test/as-server` and `/test/sweep`); or SWITCHBOARD_SYNC_TEST_HOOKS=1.
   */
  testHooks?: boolean;
  log?: (message: string, error?: unknown) => void;
  /** Inbound frame rate per connection; default from limits.ts or SWITCHBOARD_SYNC_RATE="perSecond,burst". */
  rate?: { perSecond: number; burst: number };
  /** Prints one line per tunnelled request to stdout; or SWITCHBOARD_SYNC_LOG_REQUESTS=1. */
  logRequests?: boolean;
  /**
   * The account and service it plays: Twilio's Sync REST API answers with these credentials
   * (twilio-api/http.ts), the SDK's tokens are those its API keys sign, and with the service's ACL on
   * (set through that API, or {@link SyncService.setUpService}) clients' requests need the objects'
   * permissions.
   */
  twilioApi: TwilioApiOptions;
}

export const WS_PATH = '/v3/wsconnect';

export function createSyncService(options: SyncServiceOptions): SyncService {
  mkdirSync(options.dataDir, { recursive: true });
  const now = options.now ?? Date.now;
  const store = openStore(options.dataDir);
  const log =
    options.log ??
    ((message: string, error?: unknown): void => {
      console.error(`[sync] ${message}`, error ?? '');
    });
  const core = new Core(store, now, (e) => log('event delivery failed', e));
  const batcher = new RequestBatcher(core, log);
  const byIdentity = new Map<string, Set<Connection>>();
  const connections = new Set<Connection>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxSocketMessageBytes,
    perMessageDeflate: false,
  });
  const testHooks = options.testHooks ?? process.env.SWITCHBOARD_SYNC_TEST_HOOKS === '1';
  const asServer = createAsServer(core);
  const logRequests =
    options.logRequests === true || process.env.SWITCHBOARD_SYNC_LOG_REQUESTS === '1';
  const twilioApi = createTwilioApi(core, {
    log: (message) => log(message),
    ...(logRequests
      ? {
          onRequest: (method: string, path: string, status: number) =>
            console.log(`[sync] system ${method} ${path} -> ${status}`),
        }
      : {}),
    ...options.twilioApi,
  });

  // Twilio's per-object permissions, when the service's ACL is on.
  const policy: AccessPolicy = (attempt) => twilioApi.state.aclRefusal(attempt);
  // The account's API keys: the tokens they sign (the `twilio` package's AccessToken) are taken.
  const keys = new Map<string, SigningKey>();
  for (const [sid, keySecret] of Object.entries(options.twilioApi.apiKeys ?? {}))
    keys.set(sid, {
      secret: Buffer.from(keySecret),
      accountSid: options.twilioApi.accountSid,
      serviceSids: [options.twilioApi.serviceSid],
    });
  const host: ConnectionHost = {
    core,
    keys,
    storageId: 'sb-' + randomBytes(8).toString('hex'),
    rate: options.rate ?? rateFromEnv(process.env.SWITCHBOARD_SYNC_RATE),
    register(conn, identity) {
      let set = byIdentity.get(identity);
      if (!set) byIdentity.set(identity, (set = new Set()));
      if (set.size >= limits.maxConnectionsPerIdentity) return false;
      set.add(conn);
      return true;
    },
    unregister(conn) {
      connections.delete(conn);
      if (conn.identity === null) return;
      const set = byIdentity.get(conn.identity);
      set?.delete(conn);
      if (set?.size === 0) byIdentity.delete(conn.identity);
    },
    log,
    submit: (run, done) => batcher.submit(run, done),
    onRequest: logRequests
      ? (identity, method, path, status) =>
          console.log(`[sync] ${identity} ${method} ${path} -> ${status}`)
      : undefined,
    testHooks: testHooks ? (conn: Connection, req: RestRequest) => testHook(conn, req) : undefined,
    authorize(identity, req) {
      const attempt = describeAccess(core, identity, req);
      const reason = attempt ? policy(attempt) : null;
      return reason ? forbidden(reason) : null;
    },
    accessVersion: () => twilioApi.state.accessVersion(),
    mayRead(identity, kind, name) {
      const reason = policy({ identity, op: 'read', kind, name, target: 'object', method: 'GET' });
      return reason ? forbidden(reason) : null;
    },
  };

  function testHook(
    _conn: Connection,
    req: RestRequest,
  ): { status: number; body?: unknown } | undefined {
    if (req.segments[0] !== 'test') return undefined;
    if (req.segments[1] === 'drop' && req.method === 'POST') {
      const identity = (req.body as { identity?: unknown } | undefined)?.identity;
      const victims = [...(byIdentity.get(String(identity)) ?? [])];
      setImmediate(() => victims.forEach((c) => c.drop()));
      return { status: 200, body: { dropped: victims.length } };
    }
    if (req.segments[1] === 'as-server' && req.method === 'POST') {
      // Writes what only the server may write (the calls list), for tests that need such data.
      const b = (req.body ?? {}) as { method?: unknown; path?: unknown; body?: unknown };
      if (typeof b.method !== 'string' || typeof b.path !== 'string')
        return {
          status: 400,
          body: { code: 20001, message: 'method and path are required', status: 400 },
        };
      return asServer(b.method, b.path, b.body);
    }
    if (req.segments[1] === 'sweep' && req.method === 'POST')
      return { status: 200, body: { removed: core.sweep() } };
    return { status: 404, body: { code: 20404, message: 'unknown test hook', status: 404 } };
  }

  const sweepMs =
    options.sweepIntervalMs ?? (Number(process.env.SWITCHBOARD_SYNC_SWEEP_MS) || 1000);
  const sweeper = setInterval(() => {
    try {
      core.sweep();
    } catch (e) {
      log('expiry sweep failed', e);
    }
  }, sweepMs);
  sweeper.unref();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH || closed) return false;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const hostHeader = req.headers.host ?? 'localhost';
      const conn = new Connection(
        ws,
        host,
        `http://${/^[A-Za-z0-9.\-[\]:]{1,255}$/.test(hostHeader) ? hostHeader : 'localhost'}`,
      );
      connections.add(conn);
    });
    return true;
  };
  let closed = false;

  return {
    handleUpgrade: onUpgrade,
    handleHttp: (req, res) => !closed && twilioApi.handle(req, res),
    setUpService({ friendlyName, aclEnabled }) {
      twilioApi.state.saveService({
        ...twilioApi.state.service(),
        friendly_name: friendlyName,
        acl_enabled: aclEnabled ? 1 : 0,
        date_updated: now(),
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      twilioApi.webhooks.stop();
      for (const c of connections) c.drop();
      await new Promise<void>((r) => wss.close(() => r()));
      store.close();
    },
  };
}

function rateFromEnv(value: string | undefined): { perSecond: number; burst: number } {
  const [perSecond, burst] = (value ?? '').split(',').map(Number);
  if (perSecond && burst && perSecond > 0 && burst >= 1) return { perSecond, burst };
  return { perSecond: limits.ratePerSecond, burst: limits.rateBurst };
}
