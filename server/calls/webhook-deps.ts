/**
 * What Twilio's voice webhooks are answered with (webhooks.ts registers them, progress.ts and
 * fallback.ts answer some): the account, Sync, routing's data, the call log and the rest.
 */
import type { User } from '../identity/users';
import type { RoutingData } from '../routing/routing-data';
import type { TwilioClient } from '../twilio/client';
import type { TwilioConfig } from '../twilio/config';
import type { SyncRest } from '../twilio/sync-rest';
import type { CallLog } from './call-log';
import type { TwilioMedia, TwilioVoicemail } from './media';
import type { SummaryAnswer } from './relay';

export interface TwilioWebhookDeps {
  config: TwilioConfig;
  rest: SyncRest;
  data: RoutingData;
  calls: CallLog;
  media: TwilioMedia;
  /** Where the recordings' groups are noted (who may hear them). */
  voicemail: TwilioVoicemail;
  /** The team (the app database): who may call out, names, direct calls. */
  team: () => readonly User[];
  /** Seconds a direct call to a colleague rings. */
  directRingSeconds: number;
  /** The ttl of a `calls` row (SWITCHBOARD_HISTORY_DAYS, retention.ts). */
  historyTtlSeconds: number;
  /** The longest voicemail message (SWITCHBOARD_VOICEMAIL_SECONDS). */
  voicemailSeconds: number;
  now: () => number;
  log: (message: string) => void;
  /**
   * Tells the Voice SDK on call `callSid` something (a routing step, who answered): a user-defined
   * message through the REST API (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource),
   * sent after the webhook's answer and in order; failures are logged.
   */
  tell?: (callSid: string, content: Record<string, unknown>) => void;
  /**
   * Whether a browser's call is known to its SDK by its CallSid yet (tell.ts): messages to it wait
   * from its first webhook until it rings or is answered.
   */
  sdkKnows?: { wait(callSid: string): void; ready(callSid: string): void };
  /** A browser leg's Call Summary from Voice Insights, for the row's `relay` (relay.ts). */
  callSummary?: (callSid: string) => Promise<SummaryAnswer>;
  /** Hold, park, pick-up and transfer through the REST API (control.ts); absent in unit tests. */
  control?: {
    client: TwilioClient;
    parkTimeoutMs: number;
  };
}
