/**
 * The embedded Sync service: a Twilsock v3 WebSocket endpoint at `/v3/wsconnect` speaking the Sync REST API that
 * the unmodified twilio-sync SDK uses, backed by SQLite in `<dataDir>/sync.db`. See docs/sync-service.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Connection, type ConnectionHost } from './connection';
import { RequestBatcher } from './batcher';
import { Core } from './core';
import { createInternalSync, type InternalSync } from './internal';
import { describeAccess, forbidden, type AccessAttempt, type AccessPolicy } from './policy';
import { SyncRestError } from './errors';
import { limits } from './limits';
import type { RestRequest } from './rest/context';
import { openStore } from './store';
import { loadOrCreateSecret, mintAccessToken } from './token';

export interface SyncService {
  /** Takes a WebSocket upgrade on the service's path; false for any other path (the caller answers it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
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
  shapeMapItem?: (
    attempt: AccessAttempt & { key: string },
    data: Record<string, unknown>,
  ) => Record<string, unknown>;
  /**
   * The app's rules for the data of a map item a client writes (after the access policy allowed it and
   * `shapeMapItem` shaped it): null to accept, or why not, answered 400 / 20001 with that reason and
   * nothing written. Ring groups use it so a number is never taken twice. Runs in the request's turn of
   * the write batch, so what it reads is what the write would be checked against. Default: all pass.
   */
  checkMapItem?: (
    attempt: AccessAttempt & { key: string },
    data: Record<string, unknown>,
  ) => string | null;
  /** Whether a token's app session is still live (checked on every init and update); default: all are. */
  tokenLive?: (identity: string, sessionRef: string | null) => boolean;
}

export const WS_PATH = '/v3/wsconnect';

type ShapeMapItem = NonNullable<SyncServiceOptions['shapeMapItem']>;
type CheckMapItem = NonNullable<SyncServiceOptions['checkMapItem']>;

/**
 * Lets the app reshape, then check, the data of an allowed map item write before any handler sees it;
 * returns the refusal, or null.
 */
function shapeWith(shape: ShapeMapItem | undefined, check: CheckMapItem | undefined) {
  return (attempt: AccessAttempt, req: RestRequest): SyncRestError | null => {
    if (attempt.kind !== 'map' || attempt.target !== 'item') return null;
    if (attempt.op !== 'write' || attempt.key === undefined) return null;
    const body = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const data = (body as Record<string, unknown>).data;
    // Data of the wrong shape is left for the handler to refuse with the seed's error.
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
    const item = { ...attempt, key: attempt.key };
    const shaped = shape ? shape(item, data as Record<string, unknown>) : data;
    (body as Record<string, unknown>).data = shaped;
    const reason = check?.(item, shaped as Record<string, unknown>);
    return reason ? new SyncRestError(400, 20001, reason) : null;
  };
}

export function createSyncService(options: SyncServiceOptions): SyncService {
  mkdirSync(options.dataDir, { recursive: true });
  const now = options.now ?? Date.now;
  const store = openStore(options.dataDir);
  const shapeItemWrite = shapeWith(options.shapeMapItem, options.checkMapItem);
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

  const host: ConnectionHost = {
    core,
    secret,
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
    onRequest:
      options.logRequests || process.env.SWITCHBOARD_SYNC_LOG_REQUESTS === '1'
        ? (identity, method, path, status) =>
            console.log(`[sync] ${identity} ${method} ${path} -> ${status}`)
        : undefined,
    testHooks: testHooks ? (conn: Connection, req: RestRequest) => testHook(conn, req) : undefined,
    tokenLive: options.tokenLive,
    authorize:
      options.accessPolicy || options.shapeMapItem || options.checkMapItem
        ? (identity, req) => {
            const attempt = describeAccess(core, identity, req);
            const reason = attempt && options.accessPolicy?.(attempt);
            if (reason) return forbidden(reason);
            return attempt ? shapeItemWrite(attempt, req) : null;
          }
        : undefined,
    mayRead: options.accessPolicy
      ? (identity, kind, name) => {
          const reason = options.accessPolicy!({
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
