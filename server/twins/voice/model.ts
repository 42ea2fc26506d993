/**
 * What the voice twin's modules share: the sockets and the state object (`VoiceState`) every module
 * is handed instead of a closure, and the shapes of what it holds (the application, its calls, the
 * legs a `<Dial>` rings, its conferences). Types only, below every module that uses them.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MediaLeg } from './media';
import type { MediaOptions } from './media-options';
import type { LegSummaries } from './rest/insights';
import type { TwinCall, TwinConference, TwinParticipant, VoiceRegistry } from './rest/resources';
import type { PhoneLine, PhoneScript } from './phones';
import type { Start } from './twiml/run';
import type { FinalStatus, StatusReporter } from './twiml/status';
import type { WebhookClient } from './twiml/webhook';
import type { VoicemailStore } from './voicemail-store';
import type { NetworkOptions, TwilioNetwork } from './network';

export const SIGNAL_PATH = '/signal';

/** What the twin's modules share: its settings, the sockets and the application's calls. */
export interface VoiceState {
  readonly options: VoiceServiceOptions;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** What a held or waiting caller hears by default. */
  readonly music: Buffer;
  /** Inbound frames per second per socket, and burst. */
  readonly rate: { perSecond: number; burst: number };
  /** Prints every signalling frame. */
  readonly logFrames: boolean;
  readonly conns: Set<Conn>;
  /** The TwiML application whose calls the twin runs (twiml/), once the server listens. */
  app: AppMode | null;
}

export interface Conn {
  ws: WebSocket;
  identity: string | null;
  exp: number;
  incoming: boolean;
  outgoing: boolean;
  registered: boolean;
  reconnectTimeout: number;
  expiryTimer: NodeJS.Timeout | null;
  tokens: number;
  lastRefill: number;
  closed: boolean;
}

export const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;

export interface VoiceServiceOptions {
  dataDir: string;
  now?: () => number;
  log?: (message: string) => void;
  /** Where `<Record>`ed messages are kept (the Recordings resource's media). */
  voicemail?: VoicemailStore;
  /** `text` spoken in `language` (lower-case BCP 47) as 8 kHz μ-law, for `<Say>` (twiml/sounds.ts). */
  speak?: (text: string, language: string) => Promise<Buffer>;
  media?: MediaOptions;
  /** What `<Conference waitUrl>` and a held participant hear by default (PCMU at 8 kHz). */
  holdMusic?: Buffer;
  /** Server heartbeat period; the SDK reconnects after 15 s of silence. */
  heartbeatMs?: number;
  /** Prints every signalling frame (SWITCHBOARD_VOICE_LOG=1), SDPs shortened. */
  logFrames?: boolean;
  /** Inbound frames per second per socket, and burst. */
  rate?: { perSecond: number; burst: number };
  /** Twilio's timing: `ideal` by default, or the seeded `real` network (network.ts). */
  network?: NetworkOptions;
}

/** The TwiML application the SDK's token names, and the account it belongs to. */
export interface TwimlApplication {
  accountSid: string;
  applicationSid: string;
  /** The API key that signs the browsers' tokens, and its secret. */
  apiKey: string;
  apiSecret: string;
  /** Twilio signs webhooks with it. */
  authToken: string;
  voiceUrl: string;
  voiceFallbackUrl: string | null;
  statusCallback: string | null;
  /**
   * The account's phone numbers, each with this application as its Voice configuration (docs/operations.md,
   * setup step 6): a scripted phone calling one reaches the Voice URL; a `<Dial callerId>` or a placed
   * call's `From` may be one.
   */
  phoneNumbers?: readonly string[];
  /** Fetches what `<Play>` names (the app's own audio); the global fetch by default. */
  fetch?: typeof fetch;
}

/** What the twin keeps while it runs an application's calls. */
export interface AppMode {
  readonly application: TwimlApplication;
  readonly webhooks: WebhookClient;
  /** How status callbacks and redirects are delivered (network.ts). */
  readonly network: TwilioNetwork;
  /** Live calls by their CA sid and by the SDK's first id for them. */
  readonly calls: Map<string, AppCall>;
  /** A `<Dial>`'s legs ringing or bridged, by their CA sid, with the devices that ring. */
  readonly forks: Map<string, Fork>;
  /** Answered legs whose socket was lost, kept for the SDK's reconnect window, by CA sid. */
  readonly lost: Map<string, { identity: string; timer: NodeJS.Timeout }>;
  /** Conferences with media, by their CF sid (conference.ts). */
  readonly rooms: Map<string, Room>;
  /** Every call as the REST API shows it (rest/resources.ts). */
  readonly registry: VoiceRegistry;
  /** Answers the REST API under /2010-04-01/ (rest/routes.ts). */
  readonly rest: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** Browser legs' media as they closed, for Voice Insights' Call Summary (rest/insights.ts). */
  readonly summaries: LegSummaries;
  /** Answers Voice Insights' `GET /v1/Voice/{CallSid}/Summary`. */
  readonly insights: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The scripted phones' calls, by the CallSid of the phone's leg (phones.ts, twiml/number.ts). */
  readonly phoneCalls: Map<string, PhoneCall>;
  /**
   * Runs a call's TwiML until it ends (twiml/run-call.ts `runAppCall`), for the phone network's calls
   * (twiml/number.ts, which `<Dial>` reaches: handed here, so the modules make no import circle).
   */
  readonly runCall: (
    call: AppCall,
    start: Start,
    fallback: { url: string; method: 'GET' | 'POST' } | null,
    ended: (status: FinalStatus, seconds: number) => void,
  ) => Promise<void>;
  /** Answers the twin-only phone network routes under /twilio/phones/ (rest/phones.ts). */
  readonly phones: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

/** A call a scripted phone is on: called by a `<Dial><Number>` or the API, or calling a team number. */
export interface PhoneCall {
  /** The CallSid of the phone's leg. */
  sid: string;
  script: PhoneScript;
  /** Who it talks to: the caller ID it saw, or the number it called. */
  other: string;
  direction: 'to-phone' | 'from-phone';
  /** The phone's leg as the REST API lists it. */
  listed: TwinCall;
  /** The line, once it is up (a phone that answers, or one calling). */
  line: PhoneLine | null;
  /** The phone hangs up (its script, or the twin-only route). */
  hangUp: () => void;
}

/** What a call's running TwiML is, seen from outside: a redirect stops it. */
export interface CallRun {
  /** Stops the verb running now and every later one (the call itself stays up). */
  stop(): void;
}

/** A call run by the application's TwiML: a browser's call, or a dialled leg redirected. */
export interface AppCall {
  sid: string;
  /** The SDK's own first id for the call (errors before it heard `sid` go there). */
  tempSid: string;
  /** The Voice SDK's socket; null for a scripted phone's call (phones.ts). */
  conn: Conn | null;
  /** The SDK's identity, or the phone's number. */
  identity: string;
  leg: MediaLeg | null;
  /** The fields every webhook of the call carries. */
  fields: Record<string, string>;
  answered: boolean;
  /**
   * Whether its SDK has heard `sid`: from a `ringing` (a `<Dial>` ringing) or an `answer`, or, for a
   * leg it was rung for, the `invite`. Until then the SDK knows the call only by `tempSid`, and drops
   * anything sent under `sid` (the Voice SDK's `Call._onHangup`, `_onMessageReceived`).
   */
  sidTold: boolean;
  ended: boolean;
  /** Why the call ended, when it was not a plain hang-up (`<Reject>`). */
  endStatus: FinalStatus | null;
  hungUpByCaller: boolean;
  startedAt: number;
  answeredAt: number | null;
  /** Run once when the call ends: whatever waits on it stops. */
  readonly enders: Set<() => void>;
  /** The TwiML run driving the call now; a redirect stops it and starts another. */
  run: CallRun | null;
  /** The token its SDK was given to resume it (`invite` with `reconnect`), when it was rung. */
  reconnect?: string;
  /** Told once when the call is answered (a scripted phone's script starts then). */
  onAnswered?: () => void;
}

/**
 * A call ringing one identity's devices: a `<Client>` of a `<Dial>` (a child of `parent`), or a call
 * placed through the REST API (no parent).
 */
export interface Fork {
  sid: string;
  parent: AppCall | null;
  identity: string;
  /** The child call's `From` (the `<Dial callerId>`, else the parent's). */
  from: string;
  /** The token its devices' `invite` carried (they resume the call with it), and the SDP offered. */
  reconnect: { token: string; sdp: string };
  devices: Set<Conn>;
  status: StatusReporter;
  /** The device that answered, once bridged. */
  answeredBy: Conn | null;
  answeredAt: number | null;
  /** Told of the fork's devices' answers, declines and hang-ups. */
  onAnswer(conn: Conn, sdp: string): void;
  onGone(conn: Conn, declined: boolean): void;
  /**
   * A redirect of the answered leg: it leaves the bridge (the parent's `<Dial>` ends `completed`)
   * and keeps its media leg, handed over here; null when it is not bridged.
   */
  takeOver(): MediaLeg | null;
  /** Stops the ringing, as `Status=canceled` asks (a `<Dial>`'s legs are hung up by `onGone`). */
  cancel?(): void;
  /**
   * A redirect of the answered leg when it has no device (a `<Dial><Number>`'s phone): it leaves the
   * bridge and runs `start` as a call of its own; throws when it is not in progress.
   */
  redirect?(start: Start): void;
}

/** What a verb running in a leg may ask of its run: whether it is over, and to be told when it stops. */
export interface RunScope {
  readonly ended: boolean;
  /** Calls `stop` when the run stops (a redirect, the call's end); returns the way to take it back. */
  onStop(stop: () => void): () => void;
}

/** One participant's call in a conference, as the twin's media sees it. */
export interface Member {
  call: AppCall;
  participant: TwinParticipant;
  /** Its `waitUrl` ('' for silence) and how it is asked. */
  waitUrl: string;
  waitMethod: 'GET' | 'POST';
  /** What it hears now: 'bridge', 'silence', or 'wait <url>' / 'hold <url>'. */
  hearing: string;
  /** Takes it out of the conference: its `<Dial>` ends. */
  leave(): void;
}

/** A conference with media: its members and the two of them bridged, if any. */
export interface Room {
  conference: TwinConference;
  members: Map<string, Member>;
  pair: { a: Member; b: Member; unbridge: () => void } | null;
  /** Said once per room: more than two talking. */
  toldCrowded: boolean;
}
