import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createGoogleVerifier } from './auth/google';
import { registerAudioRoutes } from './audio/routes';
import { createAnnouncements, type Announcements } from './guidance/announcements';
import { refuseRemovingPlayedGuidance } from './guidance/in-use';
import { registerGuidanceRoutes } from './guidance/routes';
import { createSpeech } from './guidance/speech';
import { createReturningPeople } from './auth/returning';
import { createAuth, type Auth } from './auth/sessions';
import { extraScriptOrigin, type AppConfig } from './http/config';
import { answerClientError, HttpError, sendError } from './http/errors';
import { applyHeaders, securityHeaders } from './http/headers';
import { createHostPolicy, hostname, type HostPolicy } from './http/hosts';
import { checkSameOrigin, isStateChanging, requestOrigin } from './http/origin';
import { Router, type RequestContext } from './http/router';
import { registerGroupObjectRoutes } from './http/routes/groups';
import { firstAnswers, registerSessionRoutes } from './http/routes/session';
import { registerTokenRoutes } from './http/routes/token';
import { createStaticHandler } from './http/static';
import { createTwilioBackend, TWILIO_CONNECT_SOURCES } from './twilio/backend';
import { openAppDatabase } from './store/db';
import { createSessionStore } from './store/sessions';
import { createUserStore } from './store/users';
import { createSyncService, type SyncService } from './sync/service';
import { createDirectory, HOLDS_MAP, mirrorSignIns, PRESENCE_MAP } from './users/directory';
import { groupNumberClash, groupNumbers, GROUPS_MAP } from './users/extensions';
import { createAccessPolicy } from './users/policy';
import { presenceSettingsFromEnv } from './users/presence';
import { registerUserRoutes } from './users/routes';
import { createTeamStore } from './users/store';
import { resolveDestination } from './voice/directory';
import { registerVoiceRoutes } from './voice/routes';
import type twilio from 'twilio';
import { createVoiceService, type VoiceService } from './voice/service';
import { createVoicemailStore, registerVoicemailRoutes } from './voice/voicemail';
import { createGroupTransfer, createRouter } from './routing/setup';
import { voiceSettingsFromEnv } from './voice/settings';
import { groupRecord } from '../src/contracts/records/group';

export interface App {
  server: Server;
  /** The session layer, for later routes that need `requireUser` / `requireAdmin`. */
  auth: Auth;
  router: Router;
  /** Announcements as callers hear them (8 kHz μ-law), for the voice service and routing. */
  announcements: Announcements;
  /** Listens on config.host:config.port (or the given port); resolves with the base URL. */
  listen(port?: number): Promise<string>;
  /** Stops accepting connections, ends open ones, closes the Sync service and the databases. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** Replaces the embedded Sync service (tests). */
  sync?: SyncService;
  /** Voice service settings for tests (ring timeout, token lifetime). */
  voice?: {
    ringTimeoutMs?: number;
    tokenTtlSeconds?: number;
    parkTimeoutMs?: number;
    voicemailMaxMs?: number;
  };
  /** The clock, in epoch milliseconds (tests). */
  now?: () => number;
  /** Where unexpected errors are reported; defaults to stderr. */
  log?: (message: string) => void;
  /** Where lines for the operator go (one-time sign-in codes); defaults to stdout. */
  announce?: (line: string) => void;
  /** On the Twilio backend: replaces the `twilio` package's HTTP client (tests). */
  twilioHttpClient?: InstanceType<typeof twilio.RequestClient>;
}

const HOUR_MS = 60 * 60 * 1000;
/** What a caller hears before the tone when a group has no voicemail greeting of its own. */
const VOICEMAIL_GREETING =
  'Nobody can take your call right now. Please leave a message after the tone.';

/**
 * Builds the HTTP server: /api (JSON, same-origin writes, 64 KiB bodies), the embedded Sync
 * service's WebSocket on /v3/wsconnect, and the Vite build with history fallback. Nothing listens
 * until `listen()`.
 */
export function createApp(config: AppConfig, options: AppOptions = {}): App {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(message));
  const announce = options.announce ?? ((line: string) => console.log(line));
  const presence = presenceSettingsFromEnv(process.env);
  const voiceSettings = { ...voiceSettingsFromEnv(process.env), ...options.voice };
  const db = openAppDatabase(config.dataDir);
  const sessions = createSessionStore(db);
  // A new person's extension is never a ring group's number (read when they first sign in).
  const userStore = createUserStore(db, () => groupNumbers(sync.internal).map((g) => g.number));
  const team = createTeamStore(db);
  sessions.purgeExpired(now());
  // On Twilio, Sync and calls are Twilio's: no embedded Sync service (server/twilio/).
  const twilioBackend =
    config.backend.kind === 'twilio'
      ? createTwilioBackend(config.backend, {
          now,
          log,
          roleOf: (identity) => userStore.get(identity)?.role ?? null,
          team: () => team.list().map((u) => u.identity),
          ...(options.twilioHttpClient ? { httpClient: options.twilioHttpClient } : {}),
        })
      : null;

  let sync: SyncService;
  try {
    sync =
      options.sync ??
      twilioBackend?.sync ??
      createSyncService({
        dataDir: config.dataDir,
        accessPolicy: refuseRemovingPlayedGuidance(
          createAccessPolicy((identity) => userStore.get(identity)?.role ?? null),
          () => sync.internal,
        ),
        // Presence's `onCall` is the voice service's, whatever the browser sent (no write reaches the
        // service before the server listens, by when `voice` exists).
        shapeMapItem: (attempt, data) =>
          attempt.name === PRESENCE_MAP
            ? { ...data, onCall: voice.isOnCall(attempt.identity) }
            : data,
        // One number reaches one thing: a group's number is no other group's and no one's extension.
        checkMapItem: (attempt, data) =>
          attempt.name === GROUPS_MAP && typeof data.number === 'string'
            ? groupNumberClash(attempt.key, data.number, groupNumbers(sync.internal), team.list())
            : null,
        // Checked on every init/update, so a token outlives neither its session nor its person.
        tokenLive: (identity, sessionRef) => auth.sessionLive(sessionRef, identity, now()),
      });
  } catch (err) {
    db.close();
    throw err;
  }
  const directory = twilioBackend?.directory ?? createDirectory(sync.internal, log);
  // People from before extensions get one (the lowest free), then the directory shows everyone's.
  team.assignMissingExtensions(groupNumbers(sync.internal));
  directory.reconcile(team.list());
  // Only the server writes call history; the list exists from the start so every screen can open it.
  // (On Twilio the server's objects are made, and ACL checked, before it listens.)
  sync.internal?.ensureList('calls');
  // Parked calls live in this process: after a restart none is parked, whatever the map said.
  sync.internal?.ensureMap(HOLDS_MAP);
  for (const key of sync.internal?.mapItems(HOLDS_MAP).keys() ?? [])
    sync.internal?.removeMapItem(HOLDS_MAP, key);
  const auth = createAuth(mirrorSignIns(userStore, directory), sessions);
  const historyDays = voiceSettings.historyDays ?? 365;
  const doNotDisturb = (identity: string): boolean =>
    sync.internal?.documentData(`settings:${identity}`)?.doNotDisturb === true;
  /** A ring group as stored, or null. */
  const storedGroup = (groupId: string) => {
    const item = sync.internal?.getMapItem(GROUPS_MAP, groupId);
    return item ? groupRecord.read(item) : null;
  };
  const voicemailStore = createVoicemailStore(config.dataDir);
  // A voicemail message goes when its history row does: both are kept `historyDays`.
  const sweepVoicemail = () => {
    try {
      voicemailStore.sweep(now(), historyDays * 24 * HOUR_MS);
    } catch (err) {
      log(`voicemail: sweep failed: ${String(err)}`);
    }
  };
  sweepVoicemail();
  const sweeper = setInterval(sweepVoicemail, HOUR_MS);
  sweeper.unref();
  const routerDeps = sync.internal
    ? {
        sync: sync.internal,
        isRegistered: (identity: string) => voice.isRegistered(identity),
        isOnCall: (identity: string) => voice.isOnCall(identity),
        doNotDisturb,
        nameOf: (identity: string) => userStore.get(identity)?.name ?? identity,
      }
    : undefined;
  const voice: VoiceService = createVoiceService({
    dataDir: config.dataDir,
    now,
    log,
    resolve: (to, caller) =>
      resolveDestination(to, team.list(), groupNumbers(sync.internal), caller),
    ...(routerDeps
      ? { route: createRouter(routerDeps), groupTransfer: createGroupTransfer(routerDeps) }
      : {}),
    announcement: (guidanceId) =>
      guidanceId === null
        ? speech.render(VOICEMAIL_GREETING, 'en-us')
        : announcements.pcmu(guidanceId),
    holdAnnouncement: async (groupId) => {
      const id = storedGroup(groupId)?.guidance.hold;
      return id ? announcements.pcmu(id) : null;
    },
    voicemail: voicemailStore,
    ...(voiceSettings.voicemailMaxMs === undefined
      ? {}
      : { voicemailMaxMs: voiceSettings.voicemailMaxMs }),
    nameOf: (identity) => userStore.get(identity)?.name ?? null,
    tokenLive: (identity, sessionRef) => auth.sessionLive(sessionRef, identity, now()),
    doNotDisturb,
    onCallEnded: (call) => {
      const { id, reason, callee, ...item } = call;
      sync.internal?.pushListItem(
        'calls',
        { ...item, callSid: id, callee, reason },
        historyDays * 24 * 60 * 60,
      );
    },
    onBusyChanged: (identity, busy) => directory.onCall(identity, busy, presence.ttlSeconds),
    // /hold lists what the service has parked; nobody else writes it (policy.ts).
    onParked: ({ callId, ...hold }) => sync.internal?.setMapItem(HOLDS_MAP, callId, hold),
    onUnparked: (callId) => void sync.internal?.removeMapItem(HOLDS_MAP, callId),
    ...(config.voiceRtpPorts ? { media: { portRange: config.voiceRtpPorts } } : {}),
    ...(voiceSettings.ringTimeoutMs === undefined
      ? {}
      : { ringTimeoutMs: voiceSettings.ringTimeoutMs }),
    ...(voiceSettings.parkTimeoutMs === undefined
      ? {}
      : { parkTimeoutMs: voiceSettings.parkTimeoutMs }),
  });
  auth.onSessionEnded(({ sessionRef, identity, lastOne }) => {
    sync.revokeSession?.(sessionRef);
    voice.revokeSession(sessionRef);
    // Signed out everywhere: Offline now, not when the presence ttl lapses (the browser's own withdrawal
    // may arrive after its token was revoked).
    if (lastOne) directory.signedOut(identity);
  });

  const clientId = config.google.clientId;
  const google = clientId ? createGoogleVerifier({ ...config.google, clientId }) : null;
  const headers = securityHeaders(
    extraScriptOrigin(config),
    twilioBackend ? TWILIO_CONNECT_SOURCES : [],
  );
  const pageAnswers = firstAnswers(config, auth);
  const serveStatic = createStaticHandler(config.distDir, {
    firstAnswers: (req, res) =>
      pageAnswers({ req, res, now: now(), origin: requestOrigin(req, config.trustProxy) }),
  });

  const hosts = createHostPolicy({ listenHost: config.host, publicHosts: config.publicHosts });
  const router = new Router();
  registerSessionRoutes(router, {
    config,
    auth,
    google,
    returning: createReturningPeople(db, announce),
    userExists: (identity) => userStore.get(identity) !== null,
  });
  registerTokenRoutes(router, { auth, sync });
  registerVoiceRoutes(router, {
    auth,
    voice,
    ...(twilioBackend ? { backend: twilioBackend.voice } : {}),
    ...(voiceSettings.tokenTtlSeconds === undefined
      ? {}
      : { tokenTtlSeconds: voiceSettings.tokenTtlSeconds }),
  });
  registerAudioRoutes(router, { auth, sync: sync.internal, dataDir: config.dataDir });
  const speech = createSpeech({ dataDir: config.dataDir });
  const announcements = createAnnouncements({
    sync: sync.internal,
    speech,
    dataDir: config.dataDir,
  });
  registerGuidanceRoutes(router, { auth, speech, announcements });
  registerVoicemailRoutes(router, {
    auth,
    store: voicemailStore,
    membersOf: (groupId) => storedGroup(groupId)?.members ?? [],
  });
  twilioBackend?.register(router, {
    auth,
    team: () => team.list(),
    announcements,
    directRingSeconds: (voiceSettings.ringTimeoutMs ?? 30_000) / 1000,
  });
  registerGroupObjectRoutes(router, {
    auth,
    ...(twilioBackend
      ? {
          create: (id: string, timeZone: string) =>
            twilioBackend.acl.createGroupObjects(id, timeZone),
        }
      : {}),
  });
  registerUserRoutes(router, {
    auth,
    team,
    directory,
    disconnect: (identity) => {
      sync.disconnect?.(identity);
      voice.disconnect(identity);
    },
    presence,
    groups: () => groupNumbers(sync.internal),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    applyHeaders(res, headers);
    checkHost(req, hosts, config.trustProxy);
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

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
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
  };
  const server: Server = config.tls
    ? createTlsServer(
        { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
        onRequest,
      )
    : createServer(onRequest);
  // A slow or stuck client cannot hold a request slot for long (uploads included); WebSocket
  // connections are unaffected once upgraded.
  server.requestTimeout = 120_000;
  server.headersTimeout = 20_000;
  server.on('clientError', answerClientError);
  // Every WebSocket upgrade passes the Host check before any service sees it.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      checkHost(req, hosts, config.trustProxy);
    } catch (err) {
      refuseUpgrade(
        socket,
        err instanceof HttpError ? err : new HttpError(400, 'bad_request', 'Bad request'),
      );
      return;
    }
    if (!voice.handleUpgrade(req, socket, head) && !sync.handleUpgrade(req, socket, head)) {
      refuseUpgrade(socket, new HttpError(404, 'not_found', 'No WebSocket endpoint at this path'));
    }
  });

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
    announcements,
    async listen(port = config.port) {
      // Twilio: refuses to start on a Sync service without ACL, with what the operator must do.
      await twilioBackend?.start();
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => {
          server.off('error', reject);
          const { address, port: bound } = server.address() as AddressInfo;
          const host = address.includes(':') ? `[${address}]` : address;
          resolve(`${config.tls ? 'https' : 'http'}://${host}:${bound}`);
        });
      });
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        clearInterval(sweeper);
        const closed = new Promise<void>((resolve) => {
          if (!server.listening) resolve();
          else server.close(() => resolve());
        });
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 3000);
        force.unref();
        try {
          await voice.close();
        } catch (err) {
          log(`closing the voice service failed: ${String(err)}`);
        }
        await speech.close();
        await twilioBackend?.close();
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

/**
 * Refuses a request addressed to a name this server was not told it has (DNS rebinding), before anything
 * else runs. Behind a trusted proxy the forwarded host must pass too, since it decides the page origin.
 */
function checkHost(req: IncomingMessage, hosts: HostPolicy, trustProxy: boolean): void {
  const names = [req.headers.host ?? ''];
  const forwarded = trustProxy ? req.headers['x-forwarded-host'] : undefined;
  if (forwarded !== undefined) names.push(...(Array.isArray(forwarded) ? forwarded : [forwarded]));
  for (const name of names) {
    const host = name.split(',')[0]!.trim();
    if (hostname(host) === null) {
      throw new HttpError(400, 'bad_request', 'The Host header is missing or malformed');
    }
    if (!hosts.allows(host)) {
      throw new HttpError(
        421,
        'host_not_allowed',
        `This server does not answer to the name ${JSON.stringify(host.slice(0, 100))}; an operator can add it to PUBLIC_ORIGIN`,
      );
    }
  }
}

function refuseUpgrade(socket: Duplex, err: HttpError): void {
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  const reason =
    err.status === 421 ? 'Misdirected Request' : err.status === 404 ? 'Not Found' : 'Bad Request';
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${err.status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
