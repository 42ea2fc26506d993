/**
 * What the voice twin's modules share: a live call and its sides, rings and transfers, the sockets
 * they run on, and the state object (`VoiceState`) every module is handed instead of a closure.
 * Also the words the service answers with (its refusals and the pick-up sentences), which the
 * routes and tests read.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { MediaLeg } from './media';
import type { AppMode } from './twiml/application';
import type { VoiceServiceOptions } from './service';
import type { RoutingStep, TrailStep } from '../../../src/contracts/records/call';
import type { Plan } from '../../../src/domain/routing/plan';

export const SIGNAL_PATH = '/signal';

/** Who a dialled `To` reaches. */
export type Destination =
  | { kind: 'person'; identity: string; name: string }
  /** A ring group: routed by the engine. `test`: an admin's Test this group call. */
  | { kind: 'group'; groupId: string; name: string; test: boolean }
  | { kind: 'unknown'; reason: string };

/** A call waiting in the park, as /hold lists it (the `holds` map item). */
export interface ParkedCall {
  callId: string;
  /** Who waits: their display name. */
  caller: string;
  parkedBy: string;
  parkedAt: number;
}

/** Why a hold, resume or park was refused: an HTTP status, a stable code and a sentence. */
export class CallControlError extends Error {
  constructor(
    readonly status: number,
    readonly code:
      | 'no_such_call'
      | 'not_your_call'
      | 'not_answered'
      | 'held_by_them'
      | 'bad_request'
      | 'not_found'
      | 'unavailable'
      | 'transfer_in_progress'
      | 'no_transfer',
    message: string,
  ) {
    super(message);
  }
}

/** Dialled to pick up a parked call: `park:<callId>`. */
import { PARK_PREFIX } from '../../../src/contracts/call-parameters';
export { PARK_PREFIX };
export const TAKEN_SENTENCE = 'A colleague already picked up this call.';
export const GONE_SENTENCE = 'This call is no longer on hold: the caller hung up.';

/**
 * Everything the service's modules share, passed to each of them: its settings, the sockets, the
 * live calls and what is remembered of the ones that just ended.
 */
export interface VoiceState {
  readonly options: VoiceServiceOptions;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** Signs and checks the service's voice tokens. */
  readonly secret: Buffer;
  readonly ringTimeoutMs: number;
  readonly parkTimeoutMs: number;
  readonly voicemailMaxMs: number;
  /** What a held or parked caller hears when their group has no on-hold announcement. */
  readonly music: Buffer;
  /** Inbound frames per second per socket, and burst. */
  readonly rate: { perSecond: number; burst: number };
  /** Prints every signalling frame. */
  readonly logFrames: boolean;
  readonly conns: Set<Conn>;
  /** Live calls by id. */
  readonly calls: Map<string, Call>;
  /** Every sid a call is known by (temporary, caller's, callee's, a picker's) → the call. */
  readonly bySid: Map<string, Call>;
  /**
   * Ended calls' sids for a minute, so late hangups from their own people are not errors (and their
   * quality reports find the call's history row): who was on it, when, and the call's id.
   */
  readonly ended: Map<string, { people: Set<string>; at: number; callId: string }>;
  /** Parked calls picked up in the last minute, by call id: who took them. */
  readonly pickedUp: Map<string, { by: string; at: number }>;
  /** Each person's number of live calls (presence says "on a call" while it is above zero). */
  readonly busyCount: Map<string, number>;
  /**
   * Set when the twin runs a TwiML application's calls (Twilio mode on the twins, twiml/): the SDK's
   * calls then go to the application's Voice URL instead of this service's own call handling.
   */
  app: AppMode | null;
}

export type CallState = 'setting-up' | 'ringing' | 'answered' | 'parked' | 'ended';

export interface Conn {
  ws: WebSocket;
  identity: string | null;
  sessionRef: string | null;
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

export type SideName = 'caller' | 'callee';

/**
 * One end of a call as a browser holds it: who, on which socket, the id their SDK knows the call
 * by, the token a reconnecting SDK presents, and the server's media leg to them. A side is vacant
 * (`identity` null) while the call is parked there.
 */
export interface Side {
  identity: string | null;
  name: string;
  conn: Conn | null;
  sid: string;
  /** An outgoing SDK call's own first id: errors before it heard `sid` go there. */
  tempSid: string | null;
  /** Whether the SDK has heard `sid` (in `ringing` or `answer`). */
  knowsSid: boolean;
  token: string;
  leg: MediaLeg | null;
}

/** A ring in progress on one side: the first ring of a call, or a parked call ringing back. */
export interface Ring {
  side: SideName;
  /**
   * `call`: the first ring; `ringBack`: a parked or unanswered transfer back to who left it;
   * `transfer`: a blind transfer's target on the side its transferrer left; `consult`: an attended
   * transfer's target, while the transferrer stays on their side.
   */
  purpose: 'call' | 'ringBack' | 'transfer' | 'consult';
  /** Who rings (the first of `people`), and their name. */
  identity: string;
  name: string;
  /** Everyone ringing: one person, or a ring group's members at once (the first to answer wins). */
  people: string[];
  /** Whose phone each ringing socket is. */
  owners: Map<Conn, string>;
  sid: string;
  token: string;
  leg: MediaLeg;
  forks: Set<Conn>;
  timer: NodeJS.Timeout | null;
}

export interface Call {
  id: string;
  /** Who placed the call and what they dialled; never change. */
  from: string;
  to: string;
  /** Who the call was for. */
  callee: string | null;
  caller: Side;
  calleeSide: Side;
  ring: Ring | null;
  unbridge: (() => void) | null;
  state: CallState;
  /** The side that put the other on hold, while it is held. */
  heldBy: SideName | null;
  park: { side: SideName; by: string; at: number; timer: NodeJS.Timeout | null } | null;
  /**
   * Who is picking the call up while their media is being set up: a second picker is turned away at
   * once, told a colleague took it.
   */
  claimedBy: string | null;
  /** A transfer under way: who asked (on which side), to whom, and the consulted party once in. */
  transfer: Transfer | null;
  /** Who had the call's answering end last (the callee, a picker, a transfer's target). */
  handledBy: string | null;
  trail: TrailStep[];
  startedAt: number;
  answeredAt: number | null;
  /** Set while a side's socket is gone and the SDK may reconnect to it. */
  lostTimers: Map<SideName, NodeJS.Timeout>;
  /**
   * Whether the caller's SDK has been answered: by the callee, or earlier, on a call to a ring group,
   * by an announcement or voicemail (it is answered once).
   */
  callerAnswered: boolean;
  /** A call to a ring group: what the engine decided and how far it got. */
  route: Route | null;
}

export interface Transfer {
  mode: 'blind' | 'consult';
  side: SideName;
  by: string;
  byName: string;
  /** Who the target rings as a call from. */
  from: string;
  /** A colleague, or a ring group (its name). */
  targetName: string;
  /** The ring group's id when the target is a group, else null. */
  groupId: string | null;
  /** Who rings next, turn by turn (a group's members in order; one turn for a colleague). */
  turns: TransferTurn[];
  party: Side | null;
}

export interface TransferTurn {
  identities: string[];
  timeoutMs?: number;
}

export interface Route {
  groupId: string;
  groupName: string;
  test: boolean;
  steps: RoutingStep[];
  /** The ring under way and where the call goes if nobody takes it. */
  ringing: Extract<Plan, { kind: 'ring' }> | null;
  recording: {
    groupId: string;
    chunks: Buffer[];
    stop: () => void;
    timer: NodeJS.Timeout;
  } | null;
  voicemail: { id: string; seconds: number } | null;
  /** The group's on-hold announcement, once loaded (the built-in music until then, or without one). */
  holdAudio: Buffer | null;
}

/** How a side's SDK call is ended: with an error saying why, a plain hangup, or not at all. */
export type Notice = { code: number; message: string } | 'hangup' | 'none';

export const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;
export const other = (side: SideName): SideName => (side === 'caller' ? 'callee' : 'caller');
export const vacant = (): Side => ({
  identity: null,
  name: '',
  conn: null,
  sid: '',
  tempSid: null,
  knowsSid: false,
  token: '',
  leg: null,
});

/** The SDK's error codes the service ends calls with. */
export const CODE_TEXT = {
  offline: 31480,
  noAnswer: 31480,
  busy: 31486,
  declined: 31603,
  notFound: 31404,
  forbidden: 31201,
  reconnect: 31209,
} as const;
