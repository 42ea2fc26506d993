import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGoogleVerifier } from './auth/google';
import { createAuth, type Auth } from './auth/sessions';
import { extraScriptOrigin, type AppConfig } from './http/config';
import { answerClientError, HttpError, sendError } from './http/errors';
import { applyHeaders, securityHeaders } from './http/headers';
import { checkSameOrigin, isStateChanging, requestOrigin } from './http/origin';
import { Router, type RequestContext } from './http/router';
import { registerSessionRoutes } from './http/routes/session';
import { registerTokenRoutes } from './http/routes/token';
import { createStaticHandler } from './http/static';
import { openAppDatabase } from './store/db';
import { createSessionStore } from './store/sessions';
import { createUserStore } from './store/users';
import { createSyncService, type SyncService } from './sync/service';
import { createDirectory, mirrorSignIns } from './users/directory';
import { createWritePolicy } from './users/policy';
import { presenceSettingsFromEnv } from './users/presence';
import { registerUserRoutes } from './users/routes';
import { createTeamStore } from './users/store';

export interface App {
  server: Server;
  /** The session layer, for later routes that need `requireUser` / `requireAdmin`. */
  auth: Auth;
  router: Router;
  /** Listens on config.host:config.port (or the given port); resolves with the base URL. */
  listen(port?: number): Promise<string>;
  /** Stops accepting connections, ends open ones, closes the Sync service and the databases. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** Replaces the embedded Sync service (tests). */
  sync?: SyncService;
  /** The clock, in epoch milliseconds (tests). */
  now?: () => number;
  /** Where unexpected errors are reported; defaults to stderr. */
  log?: (message: string) => void;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Builds the HTTP server: /api (JSON, same-origin writes, 64 KiB bodies), the embedded Sync
 * service's WebSocket on /v3/wsconnect, and the Vite build with history fallback. Nothing listens
 * until `listen()`.
 */
export function createApp(config: AppConfig, options: AppOptions = {}): App {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(message));
  const presence = presenceSettingsFromEnv(process.env);
  const db = openAppDatabase(config.dataDir);
  const sessions = createSessionStore(db);
  const userStore = createUserStore(db);
  const team = createTeamStore(db);
  sessions.purgeExpired(now());

  let sync: SyncService;
  try {
    sync =
      options.sync ??
      createSyncService({
        dataDir: config.dataDir,
        writePolicy: createWritePolicy((identity) => userStore.get(identity) !== null),
      });
  } catch (err) {
    db.close();
    throw err;
  }
  const directory = createDirectory(sync.internal, log);
  directory.reconcile(team.list());
  const auth = createAuth(mirrorSignIns(userStore, directory), sessions);

  const clientId = config.google.clientId;
  const google = clientId ? createGoogleVerifier({ ...config.google, clientId }) : null;
  const headers = securityHeaders(extraScriptOrigin(config));
  const serveStatic = createStaticHandler(config.distDir);

  const router = new Router();
  registerSessionRoutes(router, { config, auth, google });
  registerTokenRoutes(router, { auth, sync });
  registerUserRoutes(router, {
    auth,
    team,
    directory,
    disconnect: (identity) => sync.disconnect?.(identity),
    presence,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    applyHeaders(res, headers);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      throw new HttpError(400, 'bad_request', 'The request URL is malformed');
    }
    const pathname = url.pathname;
    if (pathname === '/api' || pathname.startsWith('/api/')) {
      const origin = requestOrigin(req, config.trustProxy);
      const match = router.match(req.method ?? 'GET', pathname);
      if (isStateChanging(req.method)) checkSameOrigin(req, origin);
      const ctx: RequestContext = { req, res, url, params: match.params, now: now(), origin };
      await match.handler(ctx);
      return;
    }
    await serveStatic(req, res, pathname);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        log(`request ${req.method ?? ''} ${req.url ?? ''} failed after answering: ${String(err)}`);
        res.destroy();
        return;
      }
      if (err instanceof HttpError) {
        sendError(res, err);
        return;
      }
      log(
        `request ${req.method ?? ''} ${req.url ?? ''} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      sendError(res, new HttpError(500, 'internal_error', 'Something went wrong on the server'));
    });
  });
  // A slow or stuck client cannot hold a request slot for long (uploads included); WebSocket
  // connections are unaffected once upgraded.
  server.requestTimeout = 120_000;
  server.headersTimeout = 20_000;
  server.on('clientError', answerClientError);
  sync.attach(server);

  const purgeTimer = setInterval(() => {
    try {
      sessions.purgeExpired(now());
    } catch (err) {
      log(`purging expired sessions failed: ${String(err)}`);
    }
  }, HOUR_MS);
  purgeTimer.unref();

  let closing: Promise<void> | null = null;
  return {
    server,
    auth,
    router,
    listen(port = config.port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => {
          server.off('error', reject);
          const { address, port: bound } = server.address() as AddressInfo;
          const host = address.includes(':') ? `[${address}]` : address;
          resolve(`http://${host}:${bound}`);
        });
      });
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        const closed = new Promise<void>((resolve) => {
          if (!server.listening) resolve();
          else server.close(() => resolve());
        });
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 3000);
        force.unref();
        try {
          await sync.close();
        } catch (err) {
          log(`closing the Sync service failed: ${String(err)}`);
        }
        await closed;
        clearTimeout(force);
        db.close();
      })();
      return closing;
    },
  };
}
