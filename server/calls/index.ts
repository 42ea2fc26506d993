/**
 * The call features, composed for server/app.ts: written once as a Twilio Voice application. Calls
 * arrive at Twilio's voice webhooks (webhooks.ts, answered with TwiML from the routing engine:
 * twiml.ts), change through Twilio's REST API (control.ts: hold, park, pick-up, ring-back, transfers),
 * and leave one history row each (call-log.ts, the row writer in fallback.ts) with what browsers
 * reported of how they sounded (quality.ts). "On a call" is written into presence as Twilio reports
 * the calls (on-call.ts). The browsers' Voice SDK gets Twilio's tokens and the Device options that
 * point it where Twilio is (the account's endpoints).
 */
import { API } from '../../src/contracts/api';
import { pathOf } from '../../src/contracts/api-route';
import { CALLS, HOLDS, PRESENCE } from '../../src/contracts/objects';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';
import type { Announcements } from '../guidance/announcements';
import type { User } from '../identity/users';
import type { Router } from '../platform/http/router';
import type { RoutingData } from '../routing/routing-data';
import type { TwilioClient } from '../twilio/client';
import type { TwilioConfig } from '../twilio/config';
import type { BrowserEndpoints } from '../twilio/cloud';
import { restStatus, type SyncRest } from '../twilio/sync-rest';
import { mintTwilioVoiceToken, TWILIO_TOKEN_TTL_SECONDS } from '../twilio/tokens';
import { createCallLog, type CallLog } from './call-log';
import type { CallControl, CallControls } from './control';
import { CALL_CONTROL_NAMES } from '../../src/contracts/call-controls';
import { recoverDroppedCalls, type CallJournal } from './journal';
import { createTwilioVoicemail, registerTwilioMedia, type TwilioVoicemail } from './media';
import { createOnCallWriter } from './on-call';
import { createCallQuality, type CallQualityReports } from './quality';
import { createRegistrationCheck } from './registration';
import { summaryFetcher } from './relay';
import { createRetention } from './retention';
import { createTeller } from './tell';
import { SOUND_NAMES, type VoiceBackend } from './voice-routes';
import { registerTwilioWebhooks } from './webhooks';

export interface Calls {
  /** Who is on which call, as Twilio's webhooks report it (routing reads "on a call" from it). */
  log: CallLog;
  /** The Voice SDK's tokens and Device options, the registration check and the call controls. */
  voice: VoiceBackend;
  /** The browsers' call quality reports, added to the calls' history rows. */
  quality: CallQualityReports;
  /** Voicemail messages (Twilio's recordings), for GET /api/voicemail/{id}. */
  voicemail: TwilioVoicemail;
  /** Twilio's voice webhooks and the announcement audio Twilio fetches. */
  register(
    router: Router,
    deps: { team: () => readonly User[]; announcements: Announcements; directRingSeconds: number },
  ): void;
  /**
   * Once Twilio can be reached: "on a call" and /hold looked at again, the calls a server that died
   * left behind recorded, history's retention begun.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createCalls(
  config: TwilioConfig,
  deps: {
    client: TwilioClient;
    rest: SyncRest;
    data: RoutingData;
    now: () => number;
    log: (message: string) => void;
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
     * start (journal.ts). On Twilio, Twilio carries the calls on.
     */
    journal?: CallJournal;
    /** Where the browsers' SDKs reach Twilio from a page at some origin. */
    endpoints: (pageOrigin: string) => BrowserEndpoints;
  },
): Calls {
  const { client, rest, data, now, log } = deps;
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
  /**
   * Whether Twilio's Calls resource lists a call of theirs live
   * (https://www.twilio.com/docs/voice/api/call-resource#read-multiple-call-resources: `To`, `From`
   * and `Status` filters, one status a read), whichever server follows it: one to them in progress,
   * or one they placed, in progress or still ringing (a browser's call to a `<Dial answerOnBridge>`
   * stays `ringing` until the callee answers: https://www.twilio.com/docs/voice/twiml/dial#answeronbridge).
   * A leg whose end was reported here does not count, should the list not have caught up with its
   * status callback yet.
   */
  async function hasLiveCall(identity: string): Promise<boolean> {
    const address = `client:${voiceIdentityOf(identity)}`;
    const lists = await Promise.all([
      client.calls.list({ to: address, status: 'in-progress', limit: 20 }),
      client.calls.list({ from: address, status: 'in-progress', limit: 20 }),
      client.calls.list({ from: address, status: 'ringing', limit: 20 }),
    ]);
    return lists.flat().some((call) => !calls.hasEnded(call.sid));
  }
  /** hasLiveCall for routing (routing-data.ts LiveCallCheck): null, and logged, when not asked. */
  const askTwilio = (identity: string): Promise<boolean | null> =>
    hasLiveCall(identity).catch((err: unknown) => {
      log(`on a call, as Twilio has it, for ${identity}: not read: ${String(err)}`);
      return null;
    });
  /** Routing with "on a call" as Twilio's Calls resource has it (routing-data.ts availabilities). */
  const routingData: RoutingData = {
    ...data,
    availability: (identity) => data.availability(identity, askTwilio),
    prepare: (groupId) => data.prepare(groupId, askTwilio),
  };
  const onCallChanged = createOnCallWriter({
    rest,
    isOnCall: (id) => calls.isOnCall(id),
    hasLiveCall,
    log,
    written: (identity, written) => data.wrote(identity, written),
  });
  /**
   * At start, everyone whose presence says "On a call" is looked at again (on-call.ts: off unless
   * Twilio lists a call of theirs in progress). A server that stopped during a call knows nothing of
   * it now: if Twilio carries it on, its end is reported here as a leg this server never knew
   * (call-log.ts `legEnded`), and if the call ended with the server (the twins die with it), nothing
   * would be reported at all, and the flag would stand until they sign out.
   */
  const reconcileOnCall = async (): Promise<void> => {
    try {
      for (const [identity, item] of await rest.mapItems(PRESENCE.name))
        if (item.data.onCall === true) onCallChanged(identity);
    } catch (err) {
      log(
        `calls: presence not read at start (${err instanceof Error ? err.message : String(err)}): "on a call" left as it is until each person's next call ends`,
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
        `calls: parked calls not checked at start (${err instanceof Error ? err.message : String(err)}): /hold may list a call that has ended until it is picked up`,
      );
    }
  };
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
  const sweep = setInterval(() => calls.sweep(), 10 * 60 * 1000);
  sweep.unref();

  let control: CallControl | null = null;
  const controls = (): CallControl => {
    if (!control) throw new Error('the Twilio webhooks are not registered yet');
    return control;
  };
  const voice: VoiceBackend = {
    // Twilio's tokens cannot be withdrawn: they live 10 minutes at most, and the SDK renews them.
    credentials: (identity, ttlSeconds, origin) => {
      const ttl = Math.min(ttlSeconds, TWILIO_TOKEN_TTL_SECONDS);
      const { voice: where } = deps.endpoints(origin);
      return {
        identity,
        token: mintTwilioVoiceToken(config, identity, ttl),
        ttlSeconds: ttl,
        // The Device options: where it signals, the sounds this server makes (the page's CSP allows
        // its own origin), and the settings the call machine relies on.
        device: {
          ...(where.chunderw === undefined ? {} : { chunderw: where.chunderw }),
          ...(where.insights ? {} : { publishEvents: false }),
          codecPreferences: ['opus', 'pcmu'],
          maxCallSignalingTimeoutMs: 30_000,
          enableImprovedSignalingErrorPrecision: true,
          closeProtection: false,
          sounds: Object.fromEntries(
            SOUND_NAMES.map((name) => [
              name,
              `${origin}${pathOf(API.voiceSound, { file: `${name}.wav` })}`,
            ]),
          ),
        },
        signalling: { url: where.signallingUrl },
      };
    },
    // Twilio cannot be asked about a Voice client's registration: judged from the page's presence.
    registered: createRegistrationCheck({ rest, now, log }),
    // Hold, park and transfer through Twilio's REST API (control.ts), once the webhooks are up.
    control: Object.fromEntries(
      CALL_CONTROL_NAMES.map((name) => [
        name,
        journalled((...a: unknown[]) =>
          (controls()[name] as (...args: unknown[]) => Promise<unknown>)(...a),
        ),
      ]),
    ) as CallControls,
  };

  return {
    log: calls,
    voice,
    quality: createCallQuality({ calls, rest, log }),
    voicemail,
    register(appRouter, r) {
      // Every webhook's changes reach the journal once it is answered.
      const router = Object.create(appRouter) as Router;
      router.on = (method, path, handler) => appRouter.on(method, path, journalled(handler));
      const media = registerTwilioMedia(router, {
        config,
        data: routingData,
        announcements: r.announcements,
        log,
      });
      control = registerTwilioWebhooks(router, {
        config,
        rest,
        data: routingData,
        calls,
        media,
        voicemail,
        team: r.team,
        directRingSeconds: r.directRingSeconds,
        historyTtlSeconds: retention.rowTtlSeconds,
        voicemailSeconds: deps.voicemailSeconds,
        now,
        log,
        ...((teller) => ({ tell: teller, sdkKnows: teller }))(createTeller(client, log)),
        callSummary: summaryFetcher(client),
        control: { client, parkTimeoutMs: deps.parkTimeoutMs },
      });
    },
    async start() {
      retention.start();
      void reconcileOnCall();
      void clearGoneHolds();
      if (deps.journal)
        await recoverDroppedCalls(
          deps.journal,
          {
            recentIds: async (count) =>
              (await rest.listItems(CALLS.name, count, 'desc')).flatMap(({ data: row }) =>
                typeof row.callSid === 'string' ? [row.callSid] : [],
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
    close() {
      clearInterval(sweep);
      retention.stop();
      return Promise.resolve();
    },
  };
}
