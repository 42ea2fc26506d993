/**
 * The composition root: every part of the server made once and wired to the others. Rules live in
 * the features (identity, groups, calls, guidance, audio, voice, twilio); this file only says which
 * part hears which (server/CONTEXT.md).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type twilio from 'twilio';
import { registerAudioRoutes } from './audio/routes';
import { embeddedMediaMaps, restMediaMaps } from './audio/stored';
import { createCallHistory } from './calls/history';
import { createCallJournal, recoverDroppedCalls } from './calls/journal';
import { registerCallQualityRoute } from './calls/quality';
import { createParkedCalls } from './calls/holds';
import {
  eitherMessages,
  keepVoicemailWithHistory,
  registerVoicemailRoutes,
} from './calls/voicemail';
import type { AppConfig } from './config';
import { TEAM } from '../src/contracts/objects';
import { registerGroupObjectRoutes } from './groups/routes';
import { checkGroupNumber, groupNumbers, numbersOfGroups, readGroup } from './groups/stored';
import { createAnnouncements, type Announcements } from './guidance/announcements';
import { refuseRemovingPlayedGuidance } from './guidance/in-use';
import { registerGuidanceRoutes } from './guidance/routes';
import { createSpeech } from './guidance/speech';
import { extraScriptOrigin } from './identity/config';
import { openAppDatabase } from './identity/database';
import { createDirectory, mirrorSignIns } from './identity/directory';
import { createGoogleVerifier } from './identity/google';
import { createAccessPolicy, writeProblem } from './identity/policy';
import { presenceSettingsFromEnv, presenceWithCalls } from './identity/presence';
import { createReturningPeople } from './identity/returning';
import { firstAnswers, registerSessionRoutes } from './identity/session-routes';
import { createSessionStore } from './identity/session-store';
import { createAuth, type Auth } from './identity/sessions';
import { registerTokenRoutes } from './identity/token-route';
import { registerUserRoutes } from './identity/user-routes';
import { createUsers } from './identity/users';
import { securityHeaders } from './platform/http/headers';
import { requestOrigin } from './platform/http/origin';
import { Router } from './platform/http/router';
import { createHttpServer } from './platform/http/server';
import { createStaticHandler } from './platform/http/static';
import { createSyncService, type SyncService } from './twins/sync/service';
import { createTwilioBackend, TWILIO_CONNECT_SOURCES } from './twilio/backend';
import { createTwinAccount, createTwinVoiceAccount } from './twins/account';
import { embeddedAccount } from './twins/account-env';
import { ownTls } from './twins/own-tls';
import { SERVICE_SID } from './twins/sync/token';
import { personOfVoiceIdentity, voiceIdentityOf } from '../src/contracts/voice-identity';
import { registerVoiceRoutes } from './voice/routes';
import { codecsFromEnv, fastPathFromEnv, testDropFromEnv } from './twins/voice/media-options';
import { createVoiceService, type VoiceService } from './twins/voice/service';
import { voiceSettingsFromEnv } from './voice/settings';
import { createVoicemailStore, storedMessages } from './twins/voice/voicemail-store';

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
/** How often the server notes it is alive with the calls it journals. */
const JOURNAL_SEEN_MS = 10_000;

/**
 * Builds the HTTP server: /api (JSON, same-origin writes, 64 KiB bodies), the embedded Sync
 * service's WebSocket on /v3/wsconnect, the voice service's on /signal, and the Vite build with
 * history fallback. Nothing listens until `listen()`.
 */
export function createApp(config: AppConfig, options: AppOptions = {}): App {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(message));
  const announce = options.announce ?? ((line: string) => console.log(line));
  const presence = presenceSettingsFromEnv(process.env);
  const voiceSettings = { ...voiceSettingsFromEnv(process.env), ...options.voice };
  const db = openAppDatabase(config.dataDir);
  const sessions = createSessionStore(db);
  // Ring groups' numbers, which no extension may be: the embedded service's, or on Twilio the groups
  // last read from Twilio Sync (read afresh before an admin changes an extension, below).
  const users = createUsers(db, () =>
    twilioBackend ? numbersOfGroups(twilioBackend.data.peekGroups()) : groupNumbers(sync.internal),
  );
  const roleOf = (identity: string) => users.get(identity)?.role ?? null;
  sessions.purgeExpired(now());
  const onTwins = config.backend.kind === 'embedded' || (config.backend.twins && !options.sync);
  // With TLS, "Twilio" on this process is reached over this server's own certificate (own-tls.ts).
  const own = onTwins && config.tls ? ownTls(config.tls.certFile) : null;
  // Twilio mode on the twins: "Twilio" is this process (server/twins/account.ts).
  const twins =
    config.backend.kind === 'twilio' && config.backend.twins && !options.sync
      ? createTwinAccount(config.backend, { dataDir: config.dataDir, log, ownTls: own })
      : null;
  // Calls are the app's Twilio Voice application (server/twilio/) on both backends. On the embedded
  // one, "Twilio" is this process: the voice twin runs the calls, and the app's Sync writes reach
  // the embedded Sync service through Twilio's Sync REST API (server/twins/account-env.ts).
  const embeddedTwilio =
    config.backend.kind === 'embedded'
      ? embeddedAccount(
          config.dataDir,
          config.syncTwilioApi?.serviceSid ?? SERVICE_SID,
          config.syncTwilioApi,
        )
      : null;
  const account = config.backend.kind === 'twilio' ? config.backend : embeddedTwilio!;
  const voiceAccount =
    twins ?? (embeddedTwilio ? createTwinVoiceAccount(embeddedTwilio, own) : null);
  // Calls in progress are journalled on the embedded backend (on Twilio, Twilio carries them): those a
  // server that died left behind get their history row at the next start, dropped (below).
  const journal = config.backend.kind === 'embedded' ? createCallJournal(db, now) : null;
  const app = createTwilioBackend(account, {
    now,
    log,
    roleOf,
    team: () => users.list().map((u) => u.identity),
    historyDays: voiceSettings.historyDays ?? 365,
    voicemailSeconds: Math.round((voiceSettings.voicemailMaxMs ?? 120_000) / 1000),
    parkTimeoutMs: voiceSettings.parkTimeoutMs ?? 180_000,
    presenceTtlSeconds: presence.ttlSeconds,
    ...(journal ? { journal } : {}),
    ...(options.twilioHttpClient || voiceAccount
      ? { httpClient: options.twilioHttpClient ?? voiceAccount!.httpClient }
      : {}),
    ...(own ? { fetch: own.fetch } : {}),
  });
  // On Twilio, Sync is Twilio's too: no embedded Sync service.
  const twilioBackend = config.backend.kind === 'twilio' ? app : null;
  let sync: SyncService;
  try {
    const groupNumber = checkGroupNumber(
      () => groupNumbers(sync.internal),
      () => users.list(),
    );
    sync =
      options.sync ??
      (twilioBackend && twins ? twins.wrap(twilioBackend.sync) : twilioBackend?.sync) ??
      createSyncService({
        dataDir: config.dataDir,
        accessPolicy: refuseRemovingPlayedGuidance(createAccessPolicy(roleOf), () => sync.internal),
        shapeMapItem: presenceWithCalls((identity) => app.calls.isOnCall(identity)),
        checkWrite: (attempt, data) =>
          groupNumber(attempt, data) ??
          writeProblem({ kind: attempt.kind, name: attempt.name ?? '' }, data),
        // Checked on every init/update, so a token outlives neither its session nor its person.
        tokenLive: (identity, sessionRef) => auth.sessionLive(sessionRef, identity, now()),
        // The app's own writes through Twilio's Sync REST API, as on Twilio (with the test hook's
        // account too, when SWITCHBOARD_SYNC_TWILIO_API sets one).
        twilioApi: {
          accountSid: account.accountSid,
          authToken: config.syncTwilioApi?.authToken ?? account.authToken,
          apiKeys: { ...config.syncTwilioApi?.apiKeys, [account.apiKey]: account.apiSecret },
          serviceSid: account.syncServiceSid,
          readDelayMs: config.syncTwilioApi?.readDelayMs ?? 0,
        },
      });
  } catch (err) {
    db.close();
    throw err;
  }
  const directory = twilioBackend?.directory ?? createDirectory(sync.internal, log);
  // People from before extensions get one (the lowest free), then the directory shows everyone's.
  users.assignMissingExtensions();
  directory.reconcile(users.list());
  // The team's settings are there to open for everyone (admins fill them in; on Twilio, made at start).
  if (!twilioBackend) sync.internal?.ensureDocument(TEAM.name);
  // (On Twilio the server's objects are made, and ACL checked, before it listens.)
  const historyDays = voiceSettings.historyDays ?? 365;
  const history = createCallHistory(sync.internal, historyDays);
  // Tests only: a slow Sync REST twin (SWITCHBOARD_TEST_SYNC_DELAY_MS; twins mode logs its own).
  if (config.syncTwilioApi?.readDelayMs)
    log(
      `sync: TEST HOOK: every Sync REST read is answered ${config.syncTwilioApi.readDelayMs} ms late`,
    );
  if (config.syncTwilioApi?.faults)
    log(
      `sync: TEST HOOK: Sync REST requests are refused as ${config.syncTwilioApi.faults.file} says`,
    );
  // Tests only: the relay loses a share of one leg's audio (SWITCHBOARD_TEST_DROP_PERCENT).
  const testDrop = testDropFromEnv(process.env);
  if (testDrop)
    log(
      `voice: TEST HOOK: the relay drops ${testDrop.percent}% of the audio sent to each ${testDrop.leg}'s leg`,
    );
  // The codecs every leg offers or accepts (SWITCHBOARD_VOICE_CODECS): Opus, then PCMU.
  const codecs = codecsFromEnv(process.env);
  if (codecs) log(`voice: legs speak ${codecs.join(', ')} (SWITCHBOARD_VOICE_CODECS)`);
  const fastPath = fastPathFromEnv(process.env);
  if (!fastPath)
    log('voice: the bridge forwards through werift only (SWITCHBOARD_VOICE_FAST_PATH=0)');
  history.open();
  const holds = createParkedCalls(sync.internal);
  holds.clear();
  if (journal) recoverDroppedCalls(journal, history, log);
  const auth = createAuth(mirrorSignIns(users, directory), sessions);

  const speech = createSpeech({ dataDir: config.dataDir });
  // The audio files' descriptions and the announcements: in the embedded Sync service, or on Twilio
  // (and the twins) in Twilio's through its REST API. The files are on this server's disk on both.
  const maps = sync.internal ? embeddedMediaMaps(sync.internal) : restMediaMaps(app.rest);
  const announcements = createAnnouncements({
    maps,
    speech,
    dataDir: config.dataDir,
  });
  const voicemailStore = createVoicemailStore(config.dataDir);
  const stopVoicemailSweep = keepVoicemailWithHistory(voicemailStore, {
    days: historyDays,
    now,
    log,
  });
  // The voice twin: the Voice SDK's signalling and media, running the app's TwiML application
  // (from when the server listens, below).
  const voice: VoiceService = createVoiceService({
    dataDir: config.dataDir,
    now,
    log,
    voicemail: voicemailStore,
    speak: (text, language) => speech.render(text, language),
    // Its identities are Voice identities (src/contracts/voice-identity.ts), the people's own here.
    tokenLive: (voiceIdentity, sessionRef) =>
      auth.sessionLive(sessionRef, personOfVoiceIdentity(voiceIdentity), now()),
    media: {
      ...(config.voiceRtpPorts ? { portRange: config.voiceRtpPorts } : {}),
      ...(testDrop ? { testDrop } : {}),
      ...(codecs ? { codecs } : {}),
      ...(fastPath ? {} : { fastPath }),
    },
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
  });
  registerTokenRoutes(router, { auth, sync });
  registerUserRoutes(router, {
    auth,
    users,
    directory,
    disconnect: (identity) => {
      sync.disconnect?.(identity);
      voice.disconnect(voiceIdentityOf(identity));
    },
    presence,
    returning,
    ...(twilioBackend ? { readGroups: () => twilioBackend.data.groupsNow() } : {}),
  });
  registerVoiceRoutes(router, {
    auth,
    voice,
    control: app.voice.control!,
    ...(twilioBackend
      ? { backend: twins ? twins.wrapVoice(twilioBackend.voice) : twilioBackend.voice }
      : {}),
    ...(voiceSettings.tokenTtlSeconds === undefined
      ? {}
      : { tokenTtlSeconds: voiceSettings.tokenTtlSeconds }),
  });
  registerCallQualityRoute(router, { auth, voice: app.quality, history: app.quality });
  registerVoicemailRoutes(router, {
    auth,
    // Recordings (RE…) on both backends; messages left before calls ran as the application (vm-…)
    // are played from the store.
    messages: eitherMessages(app.voicemail, storedMessages(voicemailStore)),
    membersOf: async (groupId) =>
      twilioBackend
        ? twilioBackend.membersOf(groupId)
        : (readGroup(sync.internal, groupId)?.members ?? []),
  });
  registerAudioRoutes(router, { auth, maps, dataDir: config.dataDir });
  registerGuidanceRoutes(router, { auth, speech, announcements });
  registerGroupObjectRoutes(router, {
    auth,
    ...(twilioBackend
      ? {
          create: (id: string, timeZone: string) =>
            twilioBackend.acl.createGroupObjects(id, timeZone),
        }
      : {}),
  });
  app.register(router, {
    team: () => users.list(),
    announcements,
    directRingSeconds: (voiceSettings.ringTimeoutMs ?? 30_000) / 1000,
  });

  const server = createHttpServer({
    config,
    headers: securityHeaders(
      extraScriptOrigin(config),
      twilioBackend ? TWILIO_CONNECT_SOURCES : [],
    ),
    router,
    serveStatic,
    handleRaw: (req, res) => voice.handleRest(req, res) || (sync.handleHttp?.(req, res) ?? false),
    upgrade: (req, socket, head) =>
      voice.handleUpgrade(req, socket, head) || sync.handleUpgrade(req, socket, head),
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
    async listen(port = config.port) {
      // Twilio: refuses to start on a Sync service without ACL, with what the operator must do.
      // (On the twins, "Twilio" answers only once the server listens.)
      if (!twins) await twilioBackend?.start();
      const url = await new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => {
          server.off('error', reject);
          const { address, port: bound } = server.address() as AddressInfo;
          const host = address.includes(':') ? `[${address}]` : address;
          resolve(`${config.tls ? 'https' : 'http'}://${host}:${bound}`);
        });
      });
      if (voiceAccount) {
        try {
          await voiceAccount.open(url);
          voice.useApplication(voiceAccount.application());
          await twilioBackend?.start();
        } catch (err) {
          await new Promise<void>((resolve) => server.close(() => resolve()));
          throw err;
        }
      }
      return url;
    },
    close() {
      closing ??= (async () => {
        clearInterval(purgeTimer);
        clearInterval(seenTimer);
        stopVoicemailSweep();
        // On the twins the backend's last REST writes go to this server: made before it stops.
        if (voiceAccount) await app.close();
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
        if (!twins) await twilioBackend?.close();
        try {
          await sync.close();
          await twins?.close();
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
