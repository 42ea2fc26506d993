/**
 * The Twilio backend (`SWITCHBOARD_BACKEND=twilio`), composed for server/app.ts: it stands in for the
 * embedded Sync service (tokens for Twilio's Sync, no WebSocket of its own), keeps the `users`
 * directory in Twilio Sync, hands out Voice tokens and the Device options for Twilio's Voice, and
 * answers Twilio's voice webhooks. The browser code is the same on both backends: it connects where
 * its tokens and options say.
 */
import type twilio from 'twilio';
import type { Auth } from '../auth/sessions';
import type { Announcements } from '../guidance/announcements';
import type { Router } from '../http/router';
import type { User } from '../store/users';
import type { SyncService } from '../sync/service';
import { HOLDS_MAP, PRESENCE_MAP, USERS_MAP } from '../users/directory';
import { SOUND_NAMES, type VoiceBackend } from '../voice/routes';
import { createCallLog, type CallLog } from './calls';
import { createTwilioClient } from './client';
import type { TwilioConfig } from './config';
import { createRestDirectory, type BackgroundDirectory } from './directory';
import { registerTwilioMedia } from './media';
import { createRoutingData, type RoutingData } from './routing-data';
import { createSyncRest, type SyncRest } from './sync-rest';
import {
  mintTwilioSyncToken,
  mintTwilioVoiceToken,
  TWILIO_SIGNALLING_URL,
  twilioDeviceOptions,
} from './tokens';
import { CALLS_LIST, registerTwilioWebhooks } from './webhooks';

/** What the page must reach besides its own origin on Twilio (Sync, Voice signalling, Insights). */
export const TWILIO_CONNECT_SOURCES = ['https://*.twilio.com', 'wss://*.twilio.com'];

export interface TwilioBackend {
  /** Tokens for Twilio's Sync; no WebSocket here, nothing to revoke. */
  sync: SyncService;
  directory: BackgroundDirectory;
  voice: VoiceBackend;
  rest: SyncRest;
  data: RoutingData;
  calls: CallLog;
  /** The webhooks, Twilio's announcement audio and voicemail recordings. */
  register(
    router: Router,
    deps: {
      auth: Auth;
      team: () => readonly User[];
      announcements: Announcements;
      directRingSeconds: number;
    },
  ): void;
  /** Makes sure the objects only the server writes exist (in the background; failures logged). */
  start(): void;
  close(): Promise<void>;
}

export function createTwilioBackend(
  config: TwilioConfig,
  deps: {
    now: () => number;
    log: (message: string) => void;
    /** Replaces the package's HTTP client (tests). */
    httpClient?: InstanceType<typeof twilio.RequestClient>;
  },
): TwilioBackend {
  const { now, log } = deps;
  const rest = createSyncRest(createTwilioClient(config, deps.httpClient), config.syncServiceSid);
  const calls = createCallLog(now);
  const data = createRoutingData({ rest, onCall: calls.isOnCall, now });
  const directory = createRestDirectory(rest, log);
  const sweep = setInterval(() => calls.sweep(), 10 * 60 * 1000);
  sweep.unref();

  const sync: SyncService = {
    handleUpgrade: () => false,
    mintToken: (identity, ttlSeconds) => mintTwilioSyncToken(config, identity, ttlSeconds),
    // Twilio's defaults: the SDK connects to Twilio's own Twilsock and Sync endpoints.
    clientOptions: () => ({}),
    close: () => directory.settled(),
  };

  const voice: VoiceBackend = {
    credentials: (identity, ttlSeconds, origin) => ({
      identity,
      token: mintTwilioVoiceToken(config, identity, ttlSeconds),
      ttlSeconds,
      device: twilioDeviceOptions((name) => `${origin}/api/voice/sounds/${name}.wav`, SOUND_NAMES),
      signalling: { url: TWILIO_SIGNALLING_URL },
    }),
    // Twilio keeps registrations; the SDK itself notices a dead socket and registers again.
    registered: () => true,
  };

  return {
    sync,
    directory,
    voice,
    rest,
    data,
    calls,
    register(router, r) {
      const media = registerTwilioMedia(router, {
        config,
        auth: r.auth,
        data,
        announcements: r.announcements,
        log,
        mayHear: async (identity, groupId) => {
          const me = r.team().find((u) => u.identity === identity);
          if (!me) return false;
          if (me.role === 'admin') return true;
          return (await data.groups()).get(groupId)?.members.includes(identity) ?? false;
        },
      });
      registerTwilioWebhooks(router, {
        config,
        rest,
        data,
        calls,
        media,
        team: r.team,
        directRingSeconds: r.directRingSeconds,
        now,
        log,
      });
    },
    start() {
      void (async () => {
        for (const name of [USERS_MAP, PRESENCE_MAP, HOLDS_MAP]) await rest.ensureMap(name);
        await rest.ensureList(CALLS_LIST);
      })().catch((err: unknown) =>
        log(
          `Twilio Sync: creating the server's objects failed: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );
    },
    async close() {
      clearInterval(sweep);
      await directory.settled();
    },
  };
}
