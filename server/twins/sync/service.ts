/**
 * The embedded Sync service: a Twilsock v3 WebSocket endpoint at `/v3/wsconnect` speaking the Sync REST API that
 * the unmodified twilio-sync SDK uses, backed by SQLite in `<dataDir>/sync.db`. See docs/sync-service.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Connection } from './connection';
import type { ConnectionHost } from './connection-host';
import { RequestBatcher } from './batcher';
import { Core } from './core';
import { createInternalSync, type InternalSync } from './internal';
import { describeAccess, forbidden, type AccessAttempt, type AccessPolicy } from './policy';
import { errors, SyncRestError } from './errors';
import type { JsonObject } from '../../../src/contracts/record';
import { limits } from './limits';
import type { RestRequest } from './rest/context';
import { openStore } from './store';
import { loadOrCreateSecret, mintAccessToken, ownSigningKey, type SigningKey } from './token';
import { createTwilioApi, type TwilioApiOptions } from './twilio-api/http';

export interface SyncService {
  /** Takes a WebSocket upgrade on the service's path; false for any other path (the caller answers it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Answers a request of Twilio's Sync REST API (`<mount>/sync/v1/…`, twilio-api/http.ts); false for
   * any other path. Absent unless the service was made with `twilioApi`.
   */
  handleHttp?(req: IncomingMessage, res: ServerResponse): boolean;
  mintToken(identity: string, ttlSeconds?: number, sessionRef?: string): string;
  /**
   * Resolves once `identity` may use what a token opens (Twilio Sync: their permissions are granted);
   * rejects with an HttpError when not. Absent: nothing to wait for.
   */
  accessReady?(identity: string): Promise<void>;
  /** The twilio-sync SDK's client options (where it connects); `{}` keeps Twilio's defaults. */
  clientOptions(origin: string): Record<string, unknown>;
  close(): Promise<void>;
  /** Server-side writes through the same handlers as clients' (internal.ts); absent on stand-ins. */
  internal?: InternalSync;
  /** Withdraws an identity's access at once (a removed user): its sockets are closed and refused. */
  disconnect?(identity: string): void;
  /** Withdraws one app session's access at once (sign-out): the sockets opened with its tokens close. */
  revokeSession?(sessionRef: string): void;
  /**
   * Sets the Twilio service up as its owner would in Twilio's console (its name, ACL on or off).
   * Absent unless the service answers Twilio's REST API.
   */
  setUpService?(settings: { friendlyName: string; aclEnabled: boolean }): void;
}

export interface SyncServiceOptions {
  dataDir: string;
  now?: () => number;
  /** Expiry sweep period; default 1000 ms, or SWITCHBOARD_SYNC_SWEEP_MS. */
  sweepIntervalMs?: number;
  /** Enables `POST /test/drop {identity}` over the tunnel (drops that identity's sockets); or SWITCHBOARD_SYNC_TEST_HOOKS=1. */
  testHooks?: boolean;
  log?: (message: string, error?: unknown) => void;
  /** Inbound frame rate per connection; default from limits.ts or SWITCHBOARD_SYNC_RATE="perSecond,burst". */
  rate?: { perSecond: number; burst: number };
  /** Prints one line per tunnelled request to stdout; or SWITCHBOARD_SYNC_LOG_REQUESTS=1. */
  logRequests?: boolean;
  /** Who may read and write which objects (policy.ts); default: every signed-in identity, everything. */
  accessPolicy?: AccessPolicy;
  /**
   * The app's last word on the data of a map item a client writes (after the access policy allowed
   * it): returns the data to store. Presence uses it so `onCall` is what the voice service knows,
   * whatever the browser sent. Default: stored as sent.
   */
  shapeMapItem?: (attempt: AccessAttempt & { key: string }, data: JsonObject) => JsonObject;
  /**
   * The app's rules for the data a client writes (a map item's, a list item's, a document's; after
   * the access policy allowed it and `shapeMapItem` shaped it): null to accept, or why not, answered
   * 400 with the kind's invalid-data code (errors.ts) and that reason, nothing written. Runs in the
   * request's turn of the write batch, so what it reads is what the write would be checked against.
   * Default: all pass.
   */
  checkWrite?: (attempt: AccessAttempt, data: JsonObject) => string | null;
  /** Whether a token's app session is still live (checked on every init and update); default: all are. */
  tokenLive?: (identity: string, sessionRef: string | null) => boolean;
  /**
   * Also answer Twilio's Sync REST API with these credentials (twilio-api/http.ts); with the
   * service's ACL on (set through that API), clients' requests need the objects' permissions.
   */
  twilioApi?: TwilioApiOptions;
}

export const WS_PATH = '/v3/wsconnect';

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The body of a client request that writes data (a map or list item's, a document's) and the data
 * it would store, or null for one that writes none (a ttl, a removal, a list's context).
 */
function writtenData(
  attempt: AccessAttempt,
  req: RestRequest,
): { body: JsonObject; data: unknown } | null {
  if (attempt.op !== 'write' || req.method === 'DELETE') return null;
  // No body reads as an empty one (the handlers' `bodyObject`); any other non-object is theirs to refuse.
  const body = req.body === undefined || req.body === null ? {} : req.body;
  if (!isObject(body)) return null;
  const sub = req.segments[3];
  if (attempt.kind === 'document') {
    if (attempt.target === 'item' || body.data === undefined) return null;
    // The SDK creates every document empty (open_or_create, create_new): that holds no record yet.
    const empty = isObject(body.data) && Object.keys(body.data).length === 0;
    return attempt.target === 'create' && empty ? null : { body, data: body.data };
  }
  if ((attempt.kind !== 'map' && attempt.kind !== 'list') || sub !== 'Items') return null;
  // A map item without a key is the handler's to refuse (54209), whatever its data.
  if (attempt.kind === 'map' && !attempt.key) return null;
  // A list push without data stores an empty object.
  const pushed = attempt.kind === 'list' && req.segments.length === 4;
  if (body.data === undefined) return pushed ? { body, data: {} } : null;
  return { body, data: body.data };
}

/** Lets the app reshape, then check, the data of an allowed client write before any handler sees it. */
function checkWith(options: Pick<SyncServiceOptions, 'shapeMapItem' | 'checkWrite'>) {
  return (attempt: AccessAttempt, req: RestRequest): SyncRestError | null => {
    const written = writtenData(attempt, req);
    // Data of the wrong shape is left for the handler to refuse with the seed's error.
    if (!written || !isObject(written.data)) return null;
    let data = written.data;
    if (attempt.kind === 'map' && attempt.key && options.shapeMapItem) {
      data = options.shapeMapItem({ ...attempt, key: attempt.key }, data);
      written.body.data = data;
    }
    const reason = options.checkWrite?.(attempt, data);
    return reason ? errors.invalidData(attempt.kind, reason) : null;
  };
}

export function createSyncService(options: SyncServiceOptions): SyncService {
  mkdirSync(options.dataDir, { recursive: true });
  const now = options.now ?? Date.now;
  const store = openStore(options.dataDir);
  const checkData = checkWith(options);
  const log =
    options.log ??
    ((message: string, error?: unknown): void => {
      console.error(`[sync] ${message}`, error ?? '');
    });
  const core = new Core(store, now, (e) => log('event delivery failed', e));
  const batcher = new RequestBatcher(core, log);
  const secret = loadOrCreateSecret(options.dataDir);
  const byIdentity = new Map<string, Set<Connection>>();
  const connections = new Set<Connection>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxSocketMessageBytes,
    perMessageDeflate: false,
  });
  const testHooks = options.testHooks ?? process.env.SWITCHBOARD_SYNC_TEST_HOOKS === '1';
  const internal = createInternalSync(core);
  const logRequests =
    options.logRequests === true || process.env.SWITCHBOARD_SYNC_LOG_REQUESTS === '1';
  const twilioApi = options.twilioApi
    ? createTwilioApi(core, {
        log: (message) => log(message),
        ...(logRequests
          ? {
              onRequest: (method: string, path: string, status: number) =>
                console.log(`[sync] system ${method} ${path} -> ${status}`),
            }
          : {}),
        ...options.twilioApi,
      })
    : null;

  // Twilio's per-object permissions (when the service's ACL is on), then the app's own rules.
  const policy: AccessPolicy | undefined =
    twilioApi || options.accessPolicy
      ? (attempt) => twilioApi?.state.aclRefusal(attempt) ?? options.accessPolicy?.(attempt) ?? null
      : undefined;
  // Its own key, and the account's API keys when it plays Twilio (tokens minted by the `twilio` package).
  const keys = new Map<string, SigningKey>([ownSigningKey(secret)]);
  for (const [sid, keySecret] of Object.entries(options.twilioApi?.apiKeys ?? {}))
    keys.set(sid, {
      secret: Buffer.from(keySecret),
      accountSid: options.twilioApi!.accountSid,
      serviceSids: [options.twilioApi!.serviceSid],
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
    tokenLive: options.tokenLive,
    authorize:
      options.accessPolicy || options.shapeMapItem || options.checkWrite || twilioApi
        ? (identity, req) => {
            const attempt = describeAccess(core, identity, req);
            if (!attempt) return null;
            const reason = policy?.(attempt);
            return reason ? forbidden(reason) : checkData(attempt, req);
          }
        : undefined,
    mayRead: policy
      ? (identity, kind, name) => {
          const reason = policy({
            identity,
            op: 'read',
            kind,
            name,
            target: 'object',
            method: 'GET',
          });
          return reason ? forbidden(reason) : null;
        }
      : undefined,
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
      return internal.asServer(b.method, b.path, b.body);
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
    ...(twilioApi
      ? {
          handleHttp: (req: IncomingMessage, res: ServerResponse) =>
            !closed && twilioApi.handle(req, res),
        }
      : {}),
    mintToken(identity, ttlSeconds = 3600, sessionRef) {
      return mintAccessToken(secret, identity, Math.floor(now() / 1000), ttlSeconds, sessionRef);
    },
    clientOptions(origin) {
      const u = new URL(origin);
      const wsScheme = u.protocol === 'https:' ? 'wss:' : 'ws:';
      return {
        twilsock: { uri: `${wsScheme}//${u.host}${WS_PATH}` },
        cdsUri: `${u.protocol}//${u.host}`,
      };
    },
    internal,
    ...(twilioApi
      ? {
          setUpService({ friendlyName, aclEnabled }: { friendlyName: string; aclEnabled: boolean }) {
            twilioApi.state.saveService({
              ...twilioApi.state.service(),
              friendly_name: friendlyName,
              acl_enabled: aclEnabled ? 1 : 0,
              date_updated: now(),
            });
          },
        }
      : {}),
    disconnect(identity) {
      for (const c of [...(byIdentity.get(identity) ?? [])])
        c.revoke('Access revoked: this person was removed from the team');
    },
    revokeSession(sessionRef) {
      for (const c of connections)
        if (c.sessionRef === sessionRef) c.revoke('Access revoked: the session was signed out');
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      twilioApi?.webhooks.stop();
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
