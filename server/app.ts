/**
 * The composition root: every part of the server made once and wired to the others. The app is a
 * Twilio application in every mode: it reaches Sync and Voice through the `twilio` package, access
 * tokens and webhooks. Where Twilio is comes from the configuration: Twilio's cloud, or Twilio's
 * twins (server/twins/) running in this process on this port. Rules live in the features
 * (identity, groups, calls, guidance, audio, voice, twilio); this file only says which part hears
 * which (server/CONTEXT.md). Its configuration reads are listed in docs/architecture.md.
 */
import type { Server } from 'node:http';
import type twilio from 'twilio';
import { registerAudioRoutes } from './audio/routes';
import { restMediaMaps } from './audio/stored';
import { createCallJournal } from './calls/journal';
import { registerCallQualityRoute } from './calls/quality';
import { registerVoicemailRoutes } from './calls/voicemail';
import type { AppConfig } from './config';
import { registerGroupRoutes } from './groups/routes';
import { dialledGroups } from '../src/domain/group';
import { createAnnouncements, type Announcements } from './guidance/announcements';
import { registerAnnouncementRoutes } from './guidance/announcement-routes';
import { registerGuidanceRoutes } from './guidance/routes';
import { createSpeech } from './guidance/speech';
import { extraScriptOrigin } from './identity/config';
import { openAppDatabase } from './identity/database';
import { createDirectory, mirrorSignIns, withPermissions } from './identity/directory';
import { createGoogleVerifier } from './identity/google';
import {
  createPresenceWriter,
  presenceSettingsFromEnv,
  registerPresenceRoutes,
} from './identity/presence';
import { createReturningPeople } from './identity/returning';
import { firstAnswers, registerSessionRoutes } from './identity/session-routes';
import { createSessionStore } from './identity/session-store';
import { createAuth, type Auth } from './identity/sessions';
import { registerTokenRoutes } from './identity/token-route';
import { registerUserRoutes } from './identity/user-routes';
import { createUsers } from './identity/users';
import { securityHeaders } from './platform/http/headers';
import { requestOrigin } from './platform/http/origin';
import { listenAt, selfAddress } from './platform/http/hosts';
import { ownTls } from './platform/http/own-tls';
import { Router } from './platform/http/router';
import { createHttpServer } from './platform/http/server';
import { createStaticHandler } from './platform/http/static';
import { createCalls } from './calls';
import { createRecordKeeper } from './records/put-right';
import { createRoutingData } from './routing/routing-data';
import { TWILIO_PATHS } from '../src/contracts/api';
import { createEventsCheck } from './routing/events-check';
import { followSyncEvents, registerSyncEvents } from './routing/sync-events';
import { createSyncAcl, createSyncAclRest } from './twilio/acl';
import { createTwilioClient, SwitchboardRequestClient } from './twilio/client';
import { TWILIO_CLOUD, twinsElsewhere, type BrowserEndpoints, type Cloud } from './twilio/cloud';
import { createSyncRest } from './twilio/sync-rest';
import { mintTwilioSyncToken } from './twilio/tokens';
import { createTwins } from './twins';
import { registerVoiceRoutes } from './calls/voice-routes';
import { voiceSettingsFromEnv } from './calls/settings';

export interface App {
  server: Server;
  /** The session layer, for later routes that need `requireUser` / `requireAdmin`. */
  auth: Auth;
  router: Router;
  /** Announcements as callers hear them (8 kHz μ-law), for routing. */
  announcements: Announcements;
  /** Listens on config.host:config.port (or the given port); resolves with the base URL. */
  listen(port?: number): Promise<string>;
  /**
   * Resolves once the Sync writes the server queued so far in the background have been tried (the
   * `users` directory, people's permissions): tests, and shutdown.
   */
  settled(): Promise<void>;
  /** Stops accepting connections, ends open ones, closes the twins and the databases. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** Voice settings for tests (ring timeout, token lifetime). */
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
  /** Replaces the `twilio` package's HTTP client (tests: a stand-in of Twilio's API). */
  twilioHttpClient?: InstanceType<typeof twilio.RequestClient>;
}

const HOUR_MS = 60 * 60 * 1000;
/** How often the server notes it is alive with the calls it journals. */
const JOURNAL_SEEN_MS = 10_000;

/**
 * Builds the HTTP server: /api (JSON, same-origin writes, 64 KiB bodies), Twilio's webhooks, the Vite
 * build with history fallback and, where configured, the twins' REST APIs and WebSockets. Nothing
 * listens until `listen()`.
 */
export function createApp(config: AppConfig, options: AppOptions = {}): App {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(message));
  const announce = options.announce ?? ((line: string) => console.log(line));
  const presence = presenceSettingsFromEnv(process.env);
  const voiceSettings = { ...voiceSettingsFromEnv(process.env), ...options.voice };
  const db = openAppDatabase(config.dataDir);
  const sessions = createSessionStore(db);
  // Ring groups' numbers, which no extension may be: the groups last read from Sync (read afresh
  // before an admin changes an extension, identity/user-routes.ts).
  const users = createUsers(db, () => dialledGroups(data.peekGroups()));
  const roleOf = (identity: string) => users.get(identity)?.role ?? null;
  sessions.purgeExpired(now());
  const speech = createSpeech({ dataDir: config.dataDir });

  // Configuration read 1: where Twilio is. Twilio's own cloud, or Twilio's twins in this process:
  // "Twilio" is then this server, whose REST API, Twilsock and signalling answer on this port.
  const cloud = config.twins
    ? twinsInThisProcess(config, config.twins.dataDir, {
        ...(options.now ? { now: options.now } : {}),
        log,
        speak: (text, language) => speech.render(text, language),
      })
    : config.twinsAt
      ? twinsElsewhere(config.twinsAt)
      : TWILIO_CLOUD;
  // Configuration read 2: the calls end with this server when the voice twin runs in it, so each
  // live call is journalled until its row is written (calls/journal.ts).
  const journal = cloud.callsEndHere ? createCallJournal(db, now) : null;
  const endpoints = (pageOrigin: string) => cloud.endpoints(pageOrigin);

  // Twilio, as the account's REST API (the `twilio` package) and Sync through it.
  const client = createTwilioClient(
    config.twilio,
    options.twilioHttpClient ??
      new SwitchboardRequestClient(
        // The twins' REST address is known once the server listens; until then requests wait.
        () => config.twilio.apiBaseUrl ?? cloud.restBase(),
        undefined,
        undefined,
        cloud.ownTls?.agent,
      ),
  );
  const rest = createSyncRest(client, config.twilio.syncServiceSid);
  const acl = createSyncAcl(createSyncAclRest(client, config.twilio.syncServiceSid), {
    serviceSid: config.twilio.syncServiceSid,
    roleOf,
    team: () => users.list().map((u) => u.identity),
    log,
  });
  // Sign-in, a role change and removal all pass through the directory: permissions follow.
  const directory = withPermissions(createDirectory(rest, log), acl);
  const data = createRoutingData({
    rest,
    onCall: (identity) => calls.log.isOnCall(identity),
    now,
    log,
    presenceTtlSeconds: presence.ttlSeconds,
  });
  const calls = createCalls(config.twilio, {
    client,
    rest,
    data,
    now,
    log,
    historyDays: voiceSettings.historyDays ?? 365,
    voicemailSeconds: Math.round((voiceSettings.voicemailMaxMs ?? 120_000) / 1000),
    parkTimeoutMs: voiceSettings.parkTimeoutMs ?? 180_000,
    ...(journal ? { journal } : {}),
    ...(cloud.ownTls ? { fetch: cloud.ownTls.fetch } : {}),
    endpoints,
  });
  /** The ring groups' numbers read now, so an extension given next is none of them. */
  const readGroupNumbers = (): Promise<void> =>
    data.groupsNow().then(
      () => undefined,
      (err: unknown) =>
        log(
          `the ring groups could not be read (${String(err)}): extensions skip the numbers last read`,
        ),
    );
  const auth = createAuth(mirrorSignIns(users, directory), sessions);
  const maps = restMediaMaps(rest);
  const announcements = createAnnouncements({ maps, speech, dataDir: config.dataDir });
  auth.onSessionEnded(({ identity, lastOne }) => {
    // Signed out everywhere: Offline now, not when the presence ttl lapses (the browser's own
    // withdrawal, DELETE /api/presence, may not get through, or arrive after its session ended).
    if (lastOne) directory.signedOut(identity);
  });

  const clientId = config.google.clientId;
  const google = clientId ? createGoogleVerifier({ ...config.google, clientId }) : null;
  const pageAnswers = firstAnswers(config, auth);
  const serveStatic = createStaticHandler(config.distDir, {
    firstAnswers: (req, res) =>
      pageAnswers({ req, res, now: now(), origin: requestOrigin(req, config.trustProxy) }),
  });

  const router = new Router();
  const returning = createReturningPeople(db, announce);
  registerSessionRoutes(router, {
    config,
    auth,
    google,
    returning,
    userExists: (identity) => users.get(identity) !== null,
    beforeJoining: readGroupNumbers,
  });
  registerTokenRoutes(router, {
    auth,
    sync: {
      // The browser opens nothing before the person's permissions are in place.
      ready: (identity) => acl.ready(identity),
      token: (identity) => mintTwilioSyncToken(config.twilio, identity),
      clientOptions: (pageOrigin) => endpoints(pageOrigin).sync,
    },
  });
  registerUserRoutes(router, {
    auth,
    users,
    directory,
    returning,
    readGroups: () => data.groupsNow(),
  });
  registerPresenceRoutes(router, {
    auth,
    settings: presence,
    writer: createPresenceWriter({
      rest,
      settings: presence,
      isOnCall: (identity) => calls.log.isOnCall(identity),
      written: (identity, item) => data.wrote(identity, item),
    }),
  });
  registerVoiceRoutes(router, {
    auth,
    voice: calls.voice,
    ...(voiceSettings.tokenTtlSeconds === undefined
      ? {}
      : { tokenTtlSeconds: voiceSettings.tokenTtlSeconds }),
  });
  registerCallQualityRoute(router, { auth, reports: calls.quality });
  registerVoicemailRoutes(router, {
    auth,
    messages: calls.voicemail,
    membersOf: async (groupId) => (await data.groups()).get(groupId)?.members ?? [],
  });
  registerAudioRoutes(router, { auth, maps, dataDir: config.dataDir });
  registerGuidanceRoutes(router, { auth, speech, announcements });
  registerGroupRoutes(router, {
    auth,
    rest,
    acl,
    groups: () => data.groupsNow(),
    people: () => users.list(),
    changed: () => data.configChanged(),
  });
  registerAnnouncementRoutes(router, {
    auth,
    rest,
    groups: () => data.groupsNow(),
    changed: () => data.configChanged(),
  });
  // Sync's webhooks: routing's copy of presence follows them, and a browser's write that breaks its
  // record is put right.
  // Whether those webhooks arrive at all: checked at start and every minute (events-check.ts).
  const eventsCheck = createEventsCheck({
    rest,
    data,
    url: () => `${config.twilio.publicUrl}${TWILIO_PATHS.syncEvents}`,
    log,
  });
  const keepRecords = createRecordKeeper({ rest, log });
  registerSyncEvents(router, {
    config: config.twilio,
    data,
    written: (event) => {
      eventsCheck.seen(event);
      return keepRecords(event);
    },
  });
  calls.register(router, {
    team: () => users.list(),
    announcements,
    directRingSeconds: (voiceSettings.ringTimeoutMs ?? 30_000) / 1000,
  });

  const server = createHttpServer({
    config,
    // The page connects to Twilio's endpoints, or to its own origin where the twins answer.
    headers: securityHeaders(extraScriptOrigin(config), cloud.connectSources),
    router,
    serveStatic,
    handleRaw: (req, res) => cloud.handleHttp(req, res),
    upgrade: (req, socket, head) => cloud.handleUpgrade(req, socket, head),
    now,
    log,
  });

  const purgeTimer = setInterval(() => {
    try {
      sessions.purgeExpired(now());
    } catch (err) {
      log(`purging expired sessions failed: ${String(err)}`);
    }
  }, HOUR_MS);
  purgeTimer.unref();
  // A call dropped by a crash ended no earlier than the last time the server was seen with it.
  const seenTimer = setInterval(() => {
    try {
      journal?.seen(now());
    } catch (err) {
      log(`noting live calls failed: ${String(err)}`);
    }
  }, JOURNAL_SEEN_MS);
  seenTimer.unref();

  let closing: Promise<void> | null = null;
  return {
    server,
    auth,
    router,
    announcements,
    settled: () => directory.settled(),
    async listen(port = config.port) {
      const url = await listenAt(server, port, config.host, config.tls ? 'https' : 'http');
      try {
        await cloud.open(url);
        config.twilio.apiBaseUrl ??= await cloud.restBase();
        // Refuses to start on a Sync service without ACL, saying what the operator must do; makes
        // the shared objects.
        await acl.check();
        // Presence and do not disturb follow Sync's webhooks; else they are read for every call.
        const following = await followSyncEvents({
          client,
          config: config.twilio,
          data,
          log,
        }).catch((err: unknown) => {
          log(
            `sync: pointing the Sync service's webhooks at this server failed (${err instanceof Error ? err.message : String(err)}): presence and do not disturb are read from Sync for every call, and a write that breaks its record is not put right`,
          );
          return false;
        });
        if (following) eventsCheck.start();
        void acl.reconcile();
        await calls.start();
        // People from before extensions get one (the lowest free that is no group's number), then
        // the directory shows everyone's.
        await readGroupNumbers();
        users.assignMissingExtensions();
        directory.reconcile(users.list());
      } catch (err) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw err;
      }
      return url;
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        clearInterval(seenTimer);
        eventsCheck.close();
        // The app's last REST writes go to the twins on this server: made before it stops.
        await calls.close();
        await directory.settled();
        await acl.close();
        await directory.settled();
        const closed = new Promise<void>((resolve) => {
          if (!server.listening) resolve();
          else server.close(() => resolve());
        });
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 3000);
        force.unref();
        await cloud.close();
        await speech.close();
        await closed;
        clearTimeout(force);
        db.close();
      })();
      return closing;
    },
  };
}

/**
 * Twilio's twins (server/twins) carried by this server, as the app's {@link Cloud}: the browsers'
 * SDKs reach them at the page's own origin, the `twilio` package at `<origin>/twilio`, and the
 * account's webhooks point at this server's own address unless SWITCHBOARD_PUBLIC_URL names another.
 */
function twinsInThisProcess(
  config: AppConfig,
  dataDir: string,
  options: {
    now?: () => number;
    log: (message: string) => void;
    speak: (text: string, language: string) => Promise<Buffer>;
  },
): Cloud {
  const tls = config.tls ? ownTls(config.tls.certFile) : null;
  const twins = createTwins({
    ...options,
    account: config.twilio,
    dataDir,
    ownTls: tls,
    rtpPorts: config.voiceRtpPorts,
  });
  return {
    endpoints(pageOrigin): BrowserEndpoints {
      const reached = twins.endpoints(pageOrigin);
      return { sync: reached.sync, voice: { ...reached.voice, insights: false } };
    },
    // The page connects to its own origin, where the twins answer.
    connectSources: [],
    restBase: () => twins.restBase(),
    ownTls: tls,
    handleHttp: (req, res) => twins.handleHttp(req, res),
    handleUpgrade: (req, socket, head) => twins.handleUpgrade(req, socket, head),
    async open(url) {
      const self = selfAddress(url);
      if (config.twilio.publicUrl === '') config.twilio.publicUrl = self;
      await twins.open(self, config.twilio.publicUrl);
    },
    callsEndHere: true,
    close: () => twins.close(),
  };
}
