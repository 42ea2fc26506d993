/**
 * The Twilio backend (`SWITCHBOARD_BACKEND=twilio`), composed for server/app.ts: it stands in for the
 * embedded Sync service (tokens for Twilio's Sync, no WebSocket of its own), keeps the `users`
 * directory in Twilio Sync, hands out Voice tokens and the Device options for Twilio's Voice, and
 * answers Twilio's voice webhooks. The browser code is the same on both backends: it connects where
 * its tokens and options say.
 */
import type twilio from 'twilio';
import { API } from '../../src/contracts/api';
import { CALLS, HOLDS, PRESENCE } from '../../src/contracts/objects';
import type { Announcements } from '../guidance/announcements';
import type { Router } from '../platform/http/router';
import type { User } from '../identity/users';
import type { SyncAccess } from '../identity/token-route';
import { SOUND_NAMES, type VoiceBackend } from '../voice/routes';
import { createSyncAcl, createSyncAclRest, type SyncAcl } from './acl';
import { createCallLog, type CallLog } from './calls';
import { recoverDroppedCalls, type CallJournal } from '../calls/journal';
import { createTwilioClient } from './client';
import type { TwilioConfig } from './config';
import { createDirectory, type Directory } from '../identity/directory';
import { createTwilioVoicemail, registerTwilioMedia, type TwilioVoicemail } from './media';
import { createRoutingData, type RoutingData } from './routing-data';
import { createRegistrationCheck } from './registration';
import { createRetention } from './retention';
import { createSyncRest, restStatus, type SyncRest } from './sync-rest';
import {
  mintTwilioSyncToken,
  mintTwilioVoiceToken,
  TWILIO_SIGNALLING_URL,
  TWILIO_TOKEN_TTL_SECONDS,
  twilioDeviceOptions,
} from './tokens';
import { registerTwilioWebhooks } from './webhooks';
import { followSyncEvents, registerSyncEvents } from './sync-events';
import { createRecordKeeper } from '../records/put-right';
import { createOnCallWriter } from './on-call';
import type { CallControl } from './control';
import { createTeller } from './tell';
import { summaryFetcher } from './relay';
import { createCallQuality, type CallQualityReports } from '../calls/quality';
import { pathOf } from '../../src/contracts/api-route';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';
import type { Role } from '../../src/contracts/roles';

/** What the page must reach besides its own origin on Twilio (Sync, Voice signalling, Insights). */
export const TWILIO_CONNECT_SOURCES = ['https://*.twilio.com', 'wss://*.twilio.com'];

/**
 * Where the browsers' SDKs reach Twilio from a page at some origin: Twilio's own endpoints, or
 * (the twins in this process) the page's own origin. Configuration, not a code path: the tokens,
 * the Device options and everything else are the same (server/app.ts chooses).
 */
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

/** Twilio's own endpoints, whatever the page's origin. */
export const TWILIO_ENDPOINTS: BrowserEndpoints = {
  sync: {},
  voice: { signallingUrl: TWILIO_SIGNALLING_URL, insights: true },
};

export interface TwilioBackend {
  /** Tokens for Twilio's Sync, handed out once the person's permissions are in place. */
  sync: SyncAccess;
  /** The `users` directory, with each person's Sync permissions following their role. */
  directory: Directory;
  /** Who may do what in Twilio Sync (acl.ts). */
  acl: SyncAcl;
  voice: VoiceBackend;
  rest: SyncRest;
  data: RoutingData;
  calls: CallLog;
  /** The browsers' call quality reports, added to the calls' history rows. */
  quality: CallQualityReports;
  /** Voicemail messages (Twilio's recordings), for GET /api/voicemail/{id}. */
  voicemail: TwilioVoicemail;
  /** A ring group's members now (who may hear its voicemail). */
  membersOf(groupId: string): Promise<readonly string[]>;
  /** The webhooks and Twilio's announcement audio. */
  register(
    router: Router,
    deps: {
      team: () => readonly User[];
      announcements: Announcements;
      directRingSeconds: number;
    },
  ): void;
  /**
   * Before the server listens: the Sync service must have ACL on (rejects with what the operator must
   * do otherwise) and the shared objects exist; then every object's permissions are brought in line
   * with the team in the background.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createTwilioBackend(
  config: TwilioConfig,
  deps: {
    now: () => number;
    log: (message: string) => void;
    /** A person's role now (the app database), or null when they are not on the team. */
    roleOf: (identity: string) => Role | null;
    /** Everyone on the team now. */
    team: () => readonly string[];
    /** Replaces the package's HTTP client (tests; the twins). */
    httpClient?: InstanceType<typeof twilio.RequestClient>;
    /** Fetches recordings in place of the global fetch (the twins over this server's own TLS). */
    fetch?: typeof fetch;
    /** SWITCHBOARD_HISTORY_DAYS: how long history rows and their recordings are kept. */
    historyDays: number;
    /** SWITCHBOARD_VOICEMAIL_SECONDS: the longest voicemail message. */
    voicemailSeconds: number;
    /** SWITCHBOARD_VOICE_PARK_SECONDS: how long a call stays parked before it rings back. */
    parkTimeoutMs: number;
    /**
     * The journal of live calls, when the voice twin runs in this process (embedded, twilio-twins):
     * its calls end with the server, so a call then in progress gets its row (`dropped`) at the next
     * start (calls/journal.ts). On Twilio, Twilio carries the calls on.
     */
    journal?: CallJournal;
    /** The ttl browsers give their presence item (SWITCHBOARD_PRESENCE_TTL, identity/presence.ts). */
    presenceTtlSeconds?: number;
    /** Where the browsers' SDKs connect from a page at some origin ({@link TWILIO_ENDPOINTS} on Twilio). */
    endpoints: (pageOrigin: string) => BrowserEndpoints;
  },
): TwilioBackend {
  const { now, log } = deps;
  const client = createTwilioClient(config, deps.httpClient);
  const rest = createSyncRest(client, config.syncServiceSid);
  // Presence says "On a call" from the calls the webhooks report (on-call.ts).
  const calls: CallLog = createCallLog(
    now,
    (identity) => onCallChanged(identity),
    deps.journal ?? null,
  );
  /** Runs a change to calls, then hands the journal what it changed. */
  const journalled =
    <A extends unknown[], R>(work: (...a: A) => R | Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await work(...a);
      } finally {
        calls.checkpoint();
      }
    };
  const onCallChanged = createOnCallWriter({
    rest,
    isOnCall: (id) => calls.isOnCall(id),
    // Twilio's Calls resource lists every call in progress, whichever server follows it
    // (https://www.twilio.com/docs/voice/api/call-resource#read-multiple-call-resources: `To`,
    // `From` and `Status` filters): placed by them, or to them. A leg whose end was reported here
    // does not count, should the list not have caught up with its status callback yet.
    async hasLiveCall(identity) {
      const address = `client:${voiceIdentityOf(identity)}`;
      const [to, from] = await Promise.all([
        client.calls.list({ to: address, status: 'in-progress', limit: 20 }),
        client.calls.list({ from: address, status: 'in-progress', limit: 20 }),
      ]);
      return [...to, ...from].some((call) => !calls.hasEnded(call.sid));
    },
    log,
    written: (identity, written) => data.wrote(identity, written),
  });
  /**
   * At start, everyone whose presence says "On a call" is looked at again (on-call.ts: off unless
   * Twilio lists a call of theirs in progress). A server that stopped during a call knows nothing of
   * it now: if Twilio carries it on, its end is reported here as a leg this server never knew
   * (calls.ts `legEnded`), and if the call ended with the server (the twins die with it), nothing
   * would be reported at all, and the flag would stand until they sign out.
   */
  const reconcileOnCall = async (): Promise<void> => {
    try {
      for (const [identity, item] of await rest.mapItems(PRESENCE.name))
        if (item.data.onCall === true) onCallChanged(identity);
    } catch (err) {
      log(
        `twilio: presence not read at start (${err instanceof Error ? err.message : String(err)}): "on a call" left as it is until each person's next call ends`,
      );
    }
  };
  /**
   * At start, a parked call Twilio no longer carries (it ended while no server followed it, or the
   * twins' calls ended with the server) leaves /hold: each `holds` item is keyed by the waiting
   * leg's CallSid (control.ts), asked of Twilio's Calls resource.
   */
  const clearGoneHolds = async (): Promise<void> => {
    try {
      for (const key of (await rest.mapItems(HOLDS.name)).keys()) {
        let status: string | null;
        try {
          status = (await client.calls(key).fetch()).status;
        } catch (err) {
          if (restStatus(err) !== 404) throw err;
          status = null;
        }
        if (status !== 'in-progress') await rest.removeMapItem(HOLDS.name, key);
      }
    } catch (err) {
      log(
        `twilio: parked calls not checked at start (${err instanceof Error ? err.message : String(err)}): /hold may list a call that has ended until it is picked up`,
      );
    }
  };
  const data = createRoutingData({
    rest,
    onCall: calls.isOnCall,
    now,
    log,
    ...(deps.presenceTtlSeconds ? { presenceTtlSeconds: deps.presenceTtlSeconds } : {}),
  });
  const acl = createSyncAcl(createSyncAclRest(client, config.syncServiceSid), {
    serviceSid: config.syncServiceSid,
    roleOf: deps.roleOf,
    team: deps.team,
    log,
  });
  const users = createDirectory(rest, log);
  const voicemail = createTwilioVoicemail({
    config,
    rest,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const retention = createRetention({
    rest,
    days: deps.historyDays,
    now,
    log,
    async deleteRecording(recordingSid) {
      try {
        await client.recordings(recordingSid).remove();
      } catch (err) {
        if (restStatus(err) !== 404) throw err;
      }
    },
  });
  // Sign-in, a role change and removal all pass here: the person's permissions follow.
  const directory: Directory = {
    ...users,
    upsert(user) {
      users.upsert(user);
      void acl.update(user.identity);
    },
    remove(identity) {
      users.remove(identity);
      // Their presence item goes again once they can no longer write it, in case their browser's
      // heartbeat put it back in between (a group would ring them while their Voice token lasts).
      void acl.update(identity).then(() => users.signedOut(identity));
    },
    async settled() {
      await users.settled();
      await acl.settled();
      await users.settled();
    },
  };
  const sweep = setInterval(() => calls.sweep(), 10 * 60 * 1000);
  sweep.unref();

  const sync: SyncAccess = {
    ready: (identity) => acl.ready(identity),
    token: (identity) => mintTwilioSyncToken(config, identity),
    clientOptions: (pageOrigin) => deps.endpoints(pageOrigin).sync,
  };

  const voice: VoiceBackend = {
    // Twilio's tokens cannot be withdrawn: they live 10 minutes at most, and the SDK renews them.
    credentials: (identity, ttlSeconds, origin) => {
      const ttl = Math.min(ttlSeconds, TWILIO_TOKEN_TTL_SECONDS);
      const { voice } = deps.endpoints(origin);
      return {
        identity,
        token: mintTwilioVoiceToken(config, identity, ttl),
        ttlSeconds: ttl,
        device: {
          ...(voice.chunderw === undefined ? {} : { chunderw: voice.chunderw }),
          ...(voice.insights ? {} : { publishEvents: false }),
          ...twilioDeviceOptions(
            (name) => `${origin}${pathOf(API.voiceSound, { file: `${name}.wav` })}`,
            SOUND_NAMES,
          ),
        },
        signalling: { url: voice.signallingUrl },
      };
    },
    // Twilio cannot be asked about a Voice client's registration: judged from the page's presence.
    registered: createRegistrationCheck({ rest, now, log }),
    // Hold, park and transfer through Twilio's REST API (control.ts), once the webhooks are up.
    control: {
      hold: journalled((...a: Parameters<CallControl['hold']>) => controls().hold(...a)),
      park: journalled((...a: Parameters<CallControl['park']>) => controls().park(...a)),
      transfer: journalled((...a: Parameters<CallControl['transfer']>) =>
        controls().transfer(...a),
      ),
      completeTransfer: journalled((...a: Parameters<CallControl['completeTransfer']>) =>
        controls().completeTransfer(...a),
      ),
      cancelTransfer: journalled((...a: Parameters<CallControl['cancelTransfer']>) =>
        controls().cancelTransfer(...a),
      ),
    },
  };
  let control: CallControl | null = null;
  const controls = (): CallControl => {
    if (!control) throw new Error('the Twilio webhooks are not registered yet');
    return control;
  };

  return {
    sync,
    directory,
    acl,
    voice,
    rest,
    data,
    calls,
    quality: createCallQuality({ calls, rest, log }),
    voicemail,
    membersOf: async (groupId) => (await data.groups()).get(groupId)?.members ?? [],
    register(appRouter, r) {
      // Every webhook's changes reach the journal once it is answered.
      const router = Object.create(appRouter) as Router;
      router.on = (method, path, handler) => appRouter.on(method, path, journalled(handler));
      registerSyncEvents(router, { config, data, written: createRecordKeeper({ rest, log }) });
      const media = registerTwilioMedia(router, {
        config,
        data,
        announcements: r.announcements,
        log,
      });
      control = registerTwilioWebhooks(router, {
        config,
        rest,
        data,
        calls,
        media,
        voicemail,
        team: r.team,
        directRingSeconds: r.directRingSeconds,
        historyTtlSeconds: retention.rowTtlSeconds,
        voicemailSeconds: deps.voicemailSeconds,
        now,
        log,
        tell: createTeller(client, log),
        callSummary: summaryFetcher(client),
        control: { client, parkTimeoutMs: deps.parkTimeoutMs },
      });
    },
    async start() {
      await acl.check();
      // Presence and do not disturb follow Sync's webhooks; else they are read for every call.
      await followSyncEvents({ client, config, data, log }).catch((err: unknown) =>
        log(
          `twilio: pointing the Sync service's webhooks at this server failed (${err instanceof Error ? err.message : String(err)}): presence and do not disturb are read from Sync for every call`,
        ),
      );
      void acl.reconcile();
      retention.start();
      void reconcileOnCall();
      void clearGoneHolds();
      if (deps.journal)
        await recoverDroppedCalls(
          deps.journal,
          {
            recentIds: async (count) =>
              (await rest.listItems(CALLS.name, count, 'desc')).flatMap(({ data }) =>
                typeof data.callSid === 'string' ? [data.callSid] : [],
              ),
            record: async (row) => {
              await rest.pushListItem(CALLS.name, row, retention.rowTtlSeconds);
            },
          },
          log,
        ).catch((err: unknown) =>
          log(
            `calls: the calls in progress when the server stopped could not be recorded now (${err instanceof Error ? err.message : String(err)}); the next start tries again`,
          ),
        );
    },
    async close() {
      clearInterval(sweep);
      retention.stop();
      await users.settled();
      await acl.close();
      await users.settled();
    },
  };
}
