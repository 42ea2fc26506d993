/**
 * The embedded voice service: the Voice SDK's signalling (PStream 1.6 over a WebSocket at /signal
 * on the app's own port) and the calls it sets up between signed-in people, with the server as the
 * media end of every leg (media.ts). The protocol, sequences and error codes it follows are in
 * ../shared/protocol/voice-signalling.md; docs/voice.md says what this service does with them.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { loadOrCreateSecret } from '../platform/lib/access-token';
import { holdMusic, toneFrame, TONES } from './audio';
import { answerLeg, bridge, offerLeg, type MediaLeg, type MediaOptions } from './media';
import { frame, MAX_FRAME_BYTES, parseFrame, type ClientMessage } from './protocol';
import { mintVoiceToken, verifyVoiceToken } from './token';
import type { VoicemailStore } from './voicemail';
import type { RingTurn } from '../../src/domain/routing/engine';
import type { GuidanceSlot } from '../../src/contracts/records/group';
import type { CallRecord, Outcome, RoutingStep, TrailStep } from '../../src/contracts/records/call';
import type { When } from '../../src/contracts/records/forwarding';
import type { Decision, Plan } from '../../src/domain/routing/plan';

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

export interface VoiceServiceOptions {
  dataDir: string;
  now?: () => number;
  log?: (message: string) => void;
  /** Resolves what was dialled (`To`). */
  resolve: (to: string, caller: string) => Destination;
  /** Decides a call to a ring group (the routing engine over the stored setup and presence). */
  route?: (groupId: string, at: number) => Decision;
  /** An announcement's μ-law audio (a `guidance` key), or the built-in voicemail greeting for null. */
  announcement?: (guidanceId: string | null) => Promise<Buffer>;
  /**
   * Who a transfer to a ring group rings, turn by turn (its members who can take a call now, as the
   * group rings them, leaving out `leaveOut`), and who was skipped and why; null when there is no
   * such group.
   */
  groupTransfer?: (
    groupId: string,
    leaveOut: readonly string[],
  ) => { turns: RingTurn[]; skipped: string[] } | null;
  /** The announcement a ring group plays to its callers on hold (its `hold` slot), if it has one. */
  holdAnnouncement?: (groupId: string) => Promise<Buffer | null>;
  /** Where voicemail messages are kept. */
  voicemail?: VoicemailStore;
  /** The longest voicemail message (default 2 minutes). */
  voicemailMaxMs?: number;
  /** Whether a token's app session is still live; checked on every `listen`. */
  tokenLive?: (identity: string, sessionRef: string | null) => boolean;
  /** A person's display name, sent to the callee with the call. */
  nameOf?: (identity: string) => string | null;
  /** Whether the person has do-not-disturb on. */
  doNotDisturb?: (identity: string) => boolean;
  /** Told of every finished call: its history row, as both backends write it (src/contracts). */
  onCallEnded?: (record: CallRecord) => void;
  /** Told when someone's number of live calls changes (presence). */
  onBusyChanged?: (identity: string, busy: boolean) => void;
  /** Told when a call is parked, and when it leaves the park (picked up, rung back, hung up). */
  onParked?: (call: ParkedCall) => void;
  onUnparked?: (callId: string) => void;
  media?: MediaOptions;
  /** How long a call rings before it is missed. */
  ringTimeoutMs?: number;
  /** How long a call stays parked before it rings the person who parked it (default 3 minutes). */
  parkTimeoutMs?: number;
  /** What a held or parked caller hears (PCMU at 8 kHz); the built-in music when absent. */
  holdMusic?: Buffer;
  /** Server heartbeat period; the SDK reconnects after 15 s of silence. */
  heartbeatMs?: number;
  /** Prints every signalling frame (SWITCHBOARD_VOICE_LOG=1), SDPs shortened. */
  logFrames?: boolean;
  /** Inbound frames per second per socket, and burst. */
  rate?: { perSecond: number; burst: number };
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

export interface VoiceService {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  mintToken(identity: string, ttlSeconds?: number, sessionRef?: string): string;
  /** Withdraws access at once: that person's sockets get 31204 and `close`, their calls end. */
  disconnect(identity: string): void;
  revokeSession(sessionRef: string): void;
  /** Whether the person has a socket registered to take calls now (the service's view, not the SDK's). */
  isRegistered(identity: string): boolean;
  /** Whether the person is in a call now (ringing out, or answered), as `onBusyChanged` reports. */
  isOnCall(identity: string): boolean;
  /**
   * Puts the other party on hold (they hear music, `identity` hears silence) or takes them off it.
   * `callSid` is the call's id as `identity`'s browser knows it. Throws {@link CallControlError}.
   */
  hold(identity: string, callSid: string, on: boolean): void;
  /**
   * Transfers the call. `blind`: `identity`'s side hangs up at once and `to` rings; if they do not
   * take it, it rings `identity` back. `consult`: the other party hears music while `identity`
   * talks to `to` on the same call; then {@link completeTransfer} hands the call over (or hanging
   * up does), and {@link cancelTransfer}, or `to` not answering or hanging up, brings `identity`
   * back to the other party. Refused, changing nothing, when `to` is nobody, yourself, the other
   * party, or cannot take a call now.
   */
  transfer(identity: string, callSid: string, to: string, mode: 'blind' | 'consult'): void;
  completeTransfer(identity: string, callSid: string): void;
  cancelTransfer(identity: string, callSid: string): void;
  /**
   * Parks the call: `identity`'s side hangs up, the other party waits with music, and the call is
   * listed on /hold for anyone to pick up by dialling `park:<callId>`. Returns the parked call.
   */
  park(identity: string, callSid: string): ParkedCall;
  /** Calls in the park now. */
  parked(): ParkedCall[];
  /** Live calls, for tests and diagnostics. */
  activeCalls(): { id: string; from: string; to: string; state: CallState }[];
  close(): Promise<void>;
}

type CallState = 'setting-up' | 'ringing' | 'answered' | 'parked' | 'ended';

interface Conn {
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

type SideName = 'caller' | 'callee';

/**
 * One end of a call as a browser holds it: who, on which socket, the id their SDK knows the call
 * by, the token a reconnecting SDK presents, and the server's media leg to them. A side is vacant
 * (`identity` null) while the call is parked there.
 */
interface Side {
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
interface Ring {
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

interface Call {
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
  /** Set while a picker's media is being set up, so a second picker is turned away at once. */
  claimed: boolean;
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

interface Transfer {
  mode: 'blind' | 'consult';
  side: SideName;
  by: string;
  byName: string;
  /** Who the target rings as a call from. */
  from: string;
  /** A colleague, or a ring group (its name). */
  targetName: string;
  group: boolean;
  /** Who rings next, turn by turn (a group's members in order; one turn for a colleague). */
  turns: TransferTurn[];
  party: Side | null;
}

interface TransferTurn {
  identities: string[];
  timeoutMs?: number;
}

interface Route {
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

const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;
const other = (side: SideName): SideName => (side === 'caller' ? 'callee' : 'caller');
const vacant = (): Side => ({
  identity: null,
  name: '',
  conn: null,
  sid: '',
  tempSid: null,
  knowsSid: false,
  token: '',
  leg: null,
});

const CODE_TEXT = {
  offline: 31480,
  noAnswer: 31480,
  busy: 31486,
  declined: 31603,
  notFound: 31404,
  forbidden: 31201,
  reconnect: 31209,
} as const;

/** The tone before a voicemail message: half a second at 1 kHz. */
const VOICEMAIL_TONE = Buffer.concat(
  Array.from({ length: 25 }, (_, i) =>
    toneFrame({ frequencies: [1000], onMs: 500, offMs: 0, level: 0.3 }, i),
  ),
);

const SLOT_WORDS: Record<GuidanceSlot, string> = {
  open: 'greeting',
  closed: 'closed',
  holiday: 'holiday',
  hold: 'on-hold',
  voicemail: 'voicemail',
};

const WHEN_WORDS: Record<When, string> = {
  always: 'always',
  noAnswer: 'when nobody answers',
  busy: 'when everyone is busy',
  closed: 'outside business hours',
  holiday: 'on a holiday',
};

/** Dialled to pick up a parked call: `park:<callId>`. */
export const PARK_PREFIX = 'park:';
export const TAKEN_SENTENCE = 'A colleague already picked up this call.';
export const GONE_SENTENCE = 'This call is no longer on hold: the caller hung up.';

export function createVoiceService(options: VoiceServiceOptions): VoiceService {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((m: string) => console.error(m));
  const secret = loadOrCreateSecret(options.dataDir, 'voice-secret');
  const ringTimeoutMs = options.ringTimeoutMs ?? 30_000;
  const parkTimeoutMs = options.parkTimeoutMs ?? 180_000;
  const voicemailMaxMs = options.voicemailMaxMs ?? 120_000;
  const music = options.holdMusic ?? holdMusic();
  const rate = options.rate ?? { perSecond: 20, burst: 60 };
  const conns = new Set<Conn>();
  const calls = new Map<string, Call>();
  /** Every sid a call is known by (temporary, caller's, callee's, a picker's) → the call. */
  const bySid = new Map<string, Call>();
  /** Ended calls' sids for a minute, so late hangups from their own people are not errors. */
  const ended = new Map<string, { people: Set<string>; at: number }>();
  /** Parked calls picked up in the last minute, by call id: who took them. */
  const pickedUp = new Map<string, { by: string; at: number }>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const busyCount = new Map<string, number>();
  const logFrames = options.logFrames ?? process.env.SWITCHBOARD_VOICE_LOG === '1';
  const trace = (conn: Conn, dir: string, text: string): void => {
    console.log(
      `voice ${conn.identity ?? '?'} ${dir} ${text.replace(/"sdp":"[^"]*"/g, '"sdp":"…"').slice(0, 400)}`,
    );
  };

  const heartbeat = setInterval(() => {
    for (const conn of conns) if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send('\n');
    const cutoff = now() - 60_000;
    for (const [key, value] of ended) if (value.at < cutoff) ended.delete(key);
    for (const [key, value] of pickedUp) if (value.at < cutoff) pickedUp.delete(key);
  }, options.heartbeatMs ?? 5000);
  heartbeat.unref();

  function send(conn: Conn | null, type: string, payload: Record<string, unknown> = {}): void {
    if (!conn || conn.closed || conn.ws.readyState !== conn.ws.OPEN) return;
    const text = frame(type, payload);
    if (logFrames) trace(conn, '->', text);
    conn.ws.send(text);
  }

  function sendError(
    conn: Conn,
    code: number,
    message: string,
    extra: Record<string, unknown> = {},
  ): void {
    send(conn, 'error', { error: { code, message }, ...extra });
  }

  /** Refuses a socket for good: the SDK destroys its stream on `close` and does not reconnect. */
  function refuse(conn: Conn, code: number, message: string): void {
    sendError(conn, code, message);
    send(conn, 'close');
    dropConn(conn, false);
    conn.ws.close(1000, 'access refused');
  }

  function setBusy(identity: string, delta: number): void {
    const before = busyCount.get(identity) ?? 0;
    const after = Math.max(0, before + delta);
    if (after === 0) busyCount.delete(identity);
    else busyCount.set(identity, after);
    if ((before === 0) !== (after === 0)) options.onBusyChanged?.(identity, after > 0);
  }

  const socketsOf = (identity: string): Conn[] =>
    [...conns].filter((c) => c.identity === identity && !c.closed);
  const registeredSocketsOf = (identity: string): Conn[] =>
    socketsOf(identity).filter((c) => c.registered && c.incoming);
  const nameOf = (identity: string): string => options.nameOf?.(identity) ?? identity;

  /** Tells a side's browser something about its call (the SDK's `messageReceived`). */
  function tell(side: Side, content: Record<string, unknown>): void {
    if (!side.knowsSid) return;
    send(side.conn, 'message', {
      callsid: side.sid,
      content: JSON.stringify(content),
      contenttype: 'application/json',
      messagetype: 'user-defined-message',
      voiceeventsid: sid('KX'),
    });
  }

  /** Tells both sides who is on the other end now (a pick-up, a transfer, a member answering). */
  function tellParties(call: Call): void {
    for (const [to, of] of [
      [call.caller, call.calleeSide],
      [call.calleeSide, call.caller],
    ])
      tell(to!, { event: 'party', identity: of!.identity, name: of!.name });
  }

  // ---- calls ----

  type Notice = { code: number; message: string } | 'hangup' | 'none';

  /** Ends a side's SDK call: a plain hangup, or one carrying the error that says why. */
  function hangUpSide(side: Side, notice: Notice): void {
    if (notice === 'none' || !side.conn) return;
    if (notice === 'hangup')
      send(side.conn, 'hangup', { callsid: side.knowsSid ? side.sid : (side.tempSid ?? side.sid) });
    else send(side.conn, 'hangup', { callsid: side.tempSid ?? side.sid, error: notice });
  }

  /** Hangs up and closes a side's leg, and counts its person as off the call. */
  function free(side: Side): void {
    hangUpSide(side, 'hangup');
    void side.leg?.close();
    setBusy(side.identity!, -1);
  }

  function sideNamed(call: Call, name: SideName): Side {
    return name === 'caller' ? call.caller : call.calleeSide;
  }

  function setSide(call: Call, name: SideName, side: Side): void {
    if (name === 'caller') call.caller = side;
    else call.calleeSide = side;
  }

  /** A side in the call now (answered or parked), counted as on a call. */
  const occupants = (call: Call): Side[] =>
    [call.caller, call.calleeSide].filter((s) => s.identity !== null);

  function stopRing(call: Call, cancelForks: boolean): void {
    const ring = call.ring;
    if (!ring) return;
    call.ring = null;
    if (ring.timer) clearTimeout(ring.timer);
    if (cancelForks) for (const fork of ring.forks) send(fork, 'cancel', { callsid: ring.sid });
    ring.forks.clear();
    void ring.leg.close();
  }

  function endCall(
    call: Call,
    outcome: Outcome,
    reason: string,
    notify: { caller?: Notice; callee?: Notice },
  ): void {
    if (call.state === 'ended') return;
    call.state = 'ended';
    for (const timer of call.lostTimers.values()) clearTimeout(timer);
    leavePark(call);
    call.unbridge?.();
    stopRing(call, true);
    const party = call.transfer?.party ?? null;
    call.transfer = null;
    if (party) free(party);
    hangUpSide(call.caller, notify.caller ?? 'hangup');
    hangUpSide(call.calleeSide, notify.callee ?? 'none');
    void call.caller.leg?.close();
    void call.calleeSide.leg?.close();
    calls.delete(call.id);
    const people = new Set<string>([call.from, ...(call.callee ? [call.callee] : [])]);
    for (const s of occupants(call)) people.add(s.identity!);
    for (const s of bySidsOf(call)) {
      bySid.delete(s);
      ended.set(s, { people, at: now() });
    }
    // Everyone in the call counted as on a call: the caller from the invite, each other side from
    // its answer or pick-up.
    for (const s of occupants(call)) setBusy(s.identity!, -1);
    // A message being left is kept (the caller hanging up is how a message ends).
    const message = call.route ? finishRecording(call) : null;
    let finalOutcome = outcome;
    let finalReason = reason;
    if (message && call.answeredAt === null) {
      finalOutcome = 'voicemail';
      finalReason = `Left a voicemail (${message.seconds} s).`;
    } else if (
      (call.route?.steps.at(-1)?.kind === 'voicemail' ||
        call.route?.steps.at(-1)?.kind === 'recording') &&
      (outcome === 'abandoned' || outcome === 'voicemail')
    ) {
      finalOutcome = 'missed';
      finalReason = 'The caller hung up without leaving a message.';
    }
    const endedAt = now();
    const handler = call.answeredAt === null ? null : call.handledBy;
    try {
      options.onCallEnded?.({
        callSid: call.id,
        direction: 'outbound',
        from: call.from,
        to: call.to,
        user: call.from,
        callee: call.callee,
        group: call.route?.groupId ?? null,
        groupName: call.route?.groupName ?? null,
        handledBy: handler,
        trail: call.trail,
        startedAt: call.startedAt,
        answeredAt: call.answeredAt,
        endedAt,
        duration: call.answeredAt === null ? 0 : Math.round((endedAt - call.answeredAt) / 1000),
        outcome: finalOutcome,
        reason: finalReason,
        routing: call.route?.steps ?? [],
        voicemail: message,
        forwardedTo: null,
        test: call.route?.test ?? false,
      });
    } catch (err) {
      log(`voice: recording call ${call.id} failed: ${String(err)}`);
    }
  }

  function bySidsOf(call: Call): string[] {
    const out: string[] = [];
    for (const [s, c] of bySid) if (c === call) out.push(s);
    return out;
  }

  function failBeforeRinging(conn: Conn, tempSid: string, code: number, message: string): void {
    send(conn, 'hangup', { callsid: tempSid, error: { code, message } });
  }

  /** The caller's audio could not be set up: the call ends, saying so. */
  function mediaFailed(call: Call, err: unknown): void {
    log(`voice: media for ${call.id} failed: ${err instanceof Error ? err.message : String(err)}`);
    endCall(call, 'failed', 'The call could not be connected (media).', {
      caller: { code: 31000, message: 'The server could not set up audio for this call.' },
    });
  }

  /** A call `conn`'s person places (their SDK's id `tempSid`), registered and counted as on a call. */
  function newCall(
    conn: Conn,
    tempSid: string,
    to: string,
    callee: string | null,
    startedAt: number,
  ): Call {
    const id = sid('CA');
    const caller = conn.identity!;
    const call: Call = {
      id,
      from: caller,
      to,
      callee,
      caller: {
        identity: caller,
        name: nameOf(caller),
        conn,
        sid: id,
        tempSid,
        knowsSid: false,
        token: randomBytes(16).toString('hex'),
        leg: null,
      },
      calleeSide: vacant(),
      ring: null,
      unbridge: null,
      state: 'setting-up',
      heldBy: null,
      park: null,
      claimed: false,
      transfer: null,
      handledBy: null,
      trail: [],
      startedAt,
      answeredAt: null,
      lostTimers: new Map(),
      callerAnswered: false,
      route: null,
    };
    calls.set(call.id, call);
    bySid.set(call.id, call);
    bySid.set(tempSid, call);
    setBusy(caller, 1);
    return call;
  }

  async function placeCall(
    conn: Conn,
    msg: Extract<ClientMessage, { type: 'invite' }>,
  ): Promise<void> {
    const caller = conn.identity!;
    if (!conn.outgoing) {
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.forbidden, 'This token may not place calls.');
      return;
    }
    if (bySid.has(msg.callsid)) {
      sendError(conn, 31100, 'A call with this id already exists', { callsid: msg.callsid });
      return;
    }
    const to = (msg.params.get('To') ?? '').trim();
    if (to.startsWith(PARK_PREFIX)) {
      await pickUp(conn, msg, to.slice(PARK_PREFIX.length));
      return;
    }
    const startedAt = now();
    const record = (outcome: Outcome, reason: string, callee: string | null): void => {
      try {
        options.onCallEnded?.({
          callSid: sid('CA'),
          direction: 'outbound',
          from: caller,
          to,
          user: caller,
          callee,
          group: null,
          groupName: null,
          handledBy: null,
          trail: [],
          startedAt,
          answeredAt: null,
          endedAt: now(),
          duration: 0,
          outcome,
          reason,
          routing: [],
          voicemail: null,
          forwardedTo: null,
          test: false,
        });
      } catch (err) {
        log(`voice: recording a failed call failed: ${String(err)}`);
      }
    };
    if (to === '') {
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.notFound, 'Nothing was dialled.');
      return;
    }
    const dest = options.resolve(to, caller);
    if (dest.kind === 'unknown') {
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.notFound, dest.reason);
      record('failed', dest.reason, null);
      return;
    }
    if (dest.kind === 'group') {
      await placeGroupCall(conn, msg, to, dest, startedAt);
      return;
    }
    const name = dest.name;
    if (dest.identity === caller) {
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.declined, 'You cannot call yourself.');
      return;
    }
    const targets = registeredSocketsOf(dest.identity);
    if (targets.length === 0) {
      const reason = `${name} is offline.`;
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.offline, reason);
      record('missed', reason, dest.identity);
      return;
    }
    if (options.doNotDisturb?.(dest.identity)) {
      const reason = `${name} is not taking calls (do not disturb).`;
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.declined, reason);
      record('missed', reason, dest.identity);
      return;
    }
    if ((busyCount.get(dest.identity) ?? 0) > 0) {
      const reason = `${name} is on another call.`;
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.busy, reason);
      record('busy', reason, dest.identity);
      return;
    }

    const call = newCall(conn, msg.callsid, to, dest.identity, startedAt);

    let callerLeg: MediaLeg;
    let calleeLeg: MediaLeg;
    try {
      [callerLeg, calleeLeg] = await Promise.all([
        answerLeg(msg.sdp, options.media),
        offerLeg(options.media),
      ]);
    } catch (err) {
      mediaFailed(call, err);
      return;
    }
    if (call.state === 'ended') {
      void callerLeg.close();
      void calleeLeg.close();
      return;
    }
    call.caller.leg = callerLeg;
    // Early media: the caller's audio connects now and hears ringback until the callee answers.
    send(conn, 'ringing', { callsid: call.id, sdp: callerLeg.localSdp });
    call.caller.knowsSid = true;
    callerLeg.play(TONES.ringback);
    if (registeredSocketsOf(dest.identity).length === 0) {
      void calleeLeg.close();
      endCall(call, 'missed', `${name} is offline.`, {
        caller: { code: CODE_TEXT.offline, message: `${name} is offline.` },
      });
      return;
    }
    call.state = 'ringing';
    const started = startRing(call, 'callee', 'call', dest.identity, name, calleeLeg, caller);
    if (!started) {
      endCall(call, 'missed', `${name} is offline.`, {
        caller: { code: CODE_TEXT.offline, message: `${name} is offline.` },
      });
    }
  }

  /**
   * Rings `identity` on `side` of the call with `leg` (offered to them), as a call from `fromIdentity`.
   * False when they have no phone to ring.
   */
  function startRing(
    call: Call,
    side: SideName,
    purpose: Ring['purpose'],
    identity: string | readonly string[],
    name: string,
    leg: MediaLeg,
    fromIdentity: string,
    extra: { timeoutMs?: number; params?: Record<string, string> } = {},
  ): boolean {
    const people = typeof identity === 'string' ? [identity] : [...identity];
    const owners = new Map<Conn, string>();
    for (const person of people)
      for (const conn of registeredSocketsOf(person)) owners.set(conn, person);
    const targets = [...owners.keys()];
    if (targets.length === 0) {
      void leg.close();
      return false;
    }
    const ring: Ring = {
      side,
      purpose,
      identity: people[0]!,
      name,
      people,
      owners,
      sid: sid('CA'),
      token: randomBytes(16).toString('hex'),
      leg,
      forks: new Set(targets),
      timer: null,
    };
    call.ring = ring;
    bySid.set(ring.sid, call);
    const parameters = {
      CallSid: ring.sid,
      AccountSid: 'AC00000000000000000000000000000000',
      From: `client:${fromIdentity}`,
      ApiVersion: '2010-04-01',
      Params: new URLSearchParams({
        CallerIdentity: fromIdentity,
        CallerName: nameOf(fromIdentity),
        ...(purpose === 'ringBack' ? { RingBack: '1' } : {}),
        ...extra.params,
      }).toString(),
    };
    for (const target of targets)
      send(target, 'invite', {
        callsid: ring.sid,
        sdp: leg.localSdp,
        parameters: { ...parameters, To: `client:${owners.get(target)!}` },
        reconnect: ring.token,
      });
    ring.timer = setTimeout(() => ringUnanswered(call, ring), extra.timeoutMs ?? ringTimeoutMs);
    ring.timer.unref();
    return true;
  }

  /** A ring nobody answered in time (or everybody declined): the call ends with why. */
  function ringUnanswered(call: Call, ring: Ring, declined = false): void {
    if (call.ring !== ring) return;
    const plan = call.route?.ringing;
    if (ring.purpose === 'call' && plan) {
      // A ring group's ring: the engine said where the call goes next.
      stopRing(call, true);
      call.route!.ringing = null;
      step(
        call,
        declined ? 'busy' : 'noAnswer',
        declined ? 'Declined.' : `Nobody answered in ${plan.seconds} s.`,
      );
      void runPlan(call, declined ? plan.onBusy : plan.onNoAnswer);
      return;
    }
    if (ring.purpose === 'call') {
      const reason = declined ? `${ring.name} declined the call.` : `${ring.name} did not answer.`;
      endCall(call, declined ? 'rejected' : 'missed', reason, {
        caller: { code: declined ? CODE_TEXT.declined : CODE_TEXT.noAnswer, message: reason },
      });
      return;
    }
    const why = declined ? `${ring.name} declined` : `${ring.name} did not answer`;
    if ((ring.purpose === 'consult' || ring.purpose === 'transfer') && call.transfer) {
      // A group's next member in order, else the transfer comes back to whoever sent it.
      const t = call.transfer;
      stopRing(call, true);
      if (t.turns.length > 0) ringTransfer(call, t);
      else transferFailed(call, t, ring.purpose === 'consult' ? why : `${why} the transfer`);
      return;
    }
    // A call rung back after a park or a transfer, and nobody took it: it does not wait for ever.
    endCall(call, 'answered', `Nobody took the call back: ${why}.`, parkedEnd(call));
  }

  /**
   * Rings `identity` on the vacant `side` with the call (a park timed out, a transfer nobody took);
   * the call ends when they are offline or busy.
   */
  function ringBack(call: Call, side: SideName, identity: string, name: string, why: string): void {
    const waiting = sideNamed(call, other(side));
    const unavailable = (reason: string) =>
      endCall(call, 'answered', `${why}, and ${reason}.`, parkedEnd(call));
    if ((busyCount.get(identity) ?? 0) > 0) {
      unavailable(`${name} was on another call`);
      return;
    }
    offerLeg(options.media).then(
      (leg) => {
        if (call.state !== 'parked') {
          void leg.close();
          return;
        }
        const from = waiting.identity ?? call.from;
        if (!startRing(call, side, 'ringBack', identity, name, leg, from))
          unavailable(`${name} was offline`);
      },
      (err: unknown) => {
        log(`voice: ringing back ${call.id} failed: ${String(err)}`);
        unavailable('the call could not ring back');
      },
    );
  }

  // ---- calls to ring groups ----

  /** A call to a ring group: the caller's audio is set up, then the engine's plan is carried out. */
  async function placeGroupCall(
    conn: Conn,
    msg: Extract<ClientMessage, { type: 'invite' }>,
    to: string,
    dest: Extract<Destination, { kind: 'group' }>,
    startedAt: number,
  ): Promise<void> {
    if (!options.route) {
      failBeforeRinging(
        conn,
        msg.callsid,
        CODE_TEXT.notFound,
        'Ring groups cannot take calls here.',
      );
      return;
    }
    const call = newCall(conn, msg.callsid, to, null, startedAt);
    call.route = {
      groupId: dest.groupId,
      groupName: dest.name,
      test: dest.test,
      steps: [],
      ringing: null,
      recording: null,
      voicemail: null,
      holdAudio: null,
    };
    // Loaded while the call rings, for when it is held, parked or transferred.
    options.holdAnnouncement?.(dest.groupId).then(
      (audio) => {
        if (!call.route || !audio) return;
        call.route.holdAudio = audio;
        // Held or parked before it was ready: the waiting side hears it from now on.
        const waiting = call.park ? other(call.park.side) : call.heldBy ? other(call.heldBy) : null;
        if (waiting && call.state !== 'ended') sideNamed(call, waiting).leg?.play(audio);
      },
      (err: unknown) => log(`voice: the hold announcement of ${dest.name}: ${String(err)}`),
    );
    let leg: MediaLeg;
    try {
      leg = await answerLeg(msg.sdp, options.media);
    } catch (err) {
      mediaFailed(call, err);
      return;
    }
    if (call.state === 'ended') {
      void leg.close();
      return;
    }
    call.caller.leg = leg;
    send(conn, 'ringing', { callsid: call.id, sdp: leg.localSdp });
    call.caller.knowsSid = true;
    call.state = 'ringing';
    let decision: Decision;
    try {
      decision = options.route(dest.groupId, now());
    } catch (err) {
      log(`voice: routing ${call.id} failed: ${String(err)}`);
      endCall(call, 'failed', 'The call could not be routed.', {
        caller: { code: 31000, message: 'The call could not be routed. Try again.' },
      });
      return;
    }
    for (const cut of decision.cuts) log(`voice: routing ${call.id} to ${dest.name}: ${cut}`);
    step(
      call,
      'situation',
      decision.situation === 'open'
        ? `${dest.name} is open.`
        : decision.situation === 'holiday'
          ? `${dest.name} is closed for ${decision.holiday ?? 'a holiday'}.`
          : `${dest.name} is closed (outside business hours).`,
    );
    await runPlan(call, decision.plan);
  }

  /** Notes a routing decision and tells the caller (Test this group shows them as they come). */
  function step(call: Call, kind: RoutingStep['kind'], text: string): void {
    if (!call.route) return;
    call.route.steps.push({ kind, text, at: now() });
    tell(call.caller, { event: 'routing', kind, text });
  }

  /** The caller's SDK is answered: something plays to them (an announcement, voicemail). */
  function answerCaller(call: Call): void {
    if (call.callerAnswered) return;
    call.callerAnswered = true;
    send(call.caller.conn, 'answer', {
      callsid: call.caller.sid,
      sdp: call.caller.leg!.localSdp,
      reconnect: call.caller.token,
    });
  }

  /** An announcement's audio, or null (said as a step) when it cannot be played. */
  async function announcementAudio(call: Call, guidanceId: string | null): Promise<Buffer | null> {
    if (!options.announcement) return null;
    try {
      return await options.announcement(guidanceId);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log(`voice: announcement ${guidanceId ?? '(voicemail)'} for ${call.id}: ${why}`);
      step(call, 'problem', `The announcement could not be played: ${why}.`);
      return null;
    }
  }

  /** What a waiting caller hears: their group's on-hold announcement, else the built-in music. */
  const waitingSound = (call: Call): Buffer => call.route?.holdAudio ?? music;

  const stillRouting = (call: Call): boolean =>
    call.state === 'ringing' && call.route !== null && call.caller.leg !== null;

  /** Carries out one node of the engine's plan, and what follows it. */
  async function runPlan(call: Call, plan: Plan): Promise<void> {
    if (!stillRouting(call)) return;
    if (plan.kind === 'announce') {
      step(call, 'announce', `Playing the ${SLOT_WORDS[plan.slot]} announcement.`);
      answerCaller(call);
      const audio = await announcementAudio(call, plan.guidanceId);
      if (!stillRouting(call)) return;
      if (audio) await call.caller.leg!.playOnce(audio);
      await runPlan(call, plan.then);
      return;
    }
    if (plan.kind === 'forward') {
      step(
        call,
        'forward',
        `${plan.reason.replace(/\.$/, '')} (rule: ${WHEN_WORDS[plan.rule.when]}).`,
      );
      await runPlan(call, plan.then);
      return;
    }
    if (plan.kind === 'ring') {
      ringMembers(call, plan);
      return;
    }
    if (plan.kind === 'dial') {
      // Not planned here (no phone provider): the engine sends such forwarding to voicemail.
      await runPlan(call, plan.onNoAnswer);
      return;
    }
    await takeMessage(call, plan);
  }

  function ringMembers(call: Call, plan: Extract<Plan, { kind: 'ring' }>): void {
    step(call, 'ring', plan.reason);
    call.caller.leg!.play(TONES.ringback);
    offerLeg(options.media).then(
      (leg) => {
        if (!stillRouting(call)) {
          void leg.close();
          return;
        }
        call.route!.ringing = plan;
        const started = startRing(
          call,
          'callee',
          'call',
          plan.identities,
          plan.identities.length === 1 ? nameOf(plan.identities[0]!) : call.route!.groupName,
          leg,
          call.from,
          {
            timeoutMs: plan.seconds * 1000,
            params: { Group: call.route!.groupName, ...(call.route!.test ? { Test: '1' } : {}) },
          },
        );
        if (!started) {
          call.route!.ringing = null;
          step(call, 'noAnswer', 'Nobody could be rung (gone offline).');
          void runPlan(call, plan.onNoAnswer);
        }
      },
      (err: unknown) => {
        log(`voice: ringing for ${call.id} failed: ${String(err)}`);
        step(call, 'problem', 'The phones could not be rung.');
        void runPlan(call, plan.onNoAnswer);
      },
    );
  }

  /** Voicemail: the greeting, a tone, then what the caller says until they hang up (or the limit). */
  async function takeMessage(
    call: Call,
    plan: Extract<Plan, { kind: 'voicemail' }>,
  ): Promise<void> {
    const route = call.route!;
    step(call, 'voicemail', `${plan.reason} Voicemail: the caller can leave a message.`);
    answerCaller(call);
    const leg = call.caller.leg!;
    const greeting = await announcementAudio(call, plan.guidanceId);
    if (!stillRouting(call)) return;
    if (greeting) await leg.playOnce(greeting);
    if (!stillRouting(call)) return;
    await leg.playOnce(VOICEMAIL_TONE);
    if (!stillRouting(call) || route.recording) return;
    const chunks: Buffer[] = [];
    const stop = leg.onRtp((packet) => {
      if (packet.header.payloadType === 0) chunks.push(Buffer.from(packet.payload));
    });
    const timer = setTimeout(() => {
      endCall(call, 'voicemail', 'The message reached the time limit.', { caller: 'hangup' });
    }, voicemailMaxMs);
    timer.unref();
    route.recording = { groupId: plan.groupId, chunks, stop, timer };
    step(call, 'recording', 'Recording the message.');
  }

  /** Stops a message being recorded and keeps it; null when nothing worth keeping was said. */
  function finishRecording(call: Call): { id: string; seconds: number } | null {
    const route = call.route;
    const rec = route?.recording;
    if (!route || !rec) return route?.voicemail ?? null;
    route.recording = null;
    rec.stop();
    clearTimeout(rec.timer);
    if (!options.voicemail) return null;
    try {
      route.voicemail = options.voicemail.save(Buffer.concat(rec.chunks), {
        groupId: rec.groupId,
        callId: call.id,
        at: now(),
      });
    } catch (err) {
      log(`voice: keeping the voicemail of ${call.id} failed: ${String(err)}`);
    }
    return route.voicemail;
  }

  /** An attended transfer that did not happen: the transferrer talks to the other party again. */
  function endConsult(call: Call, reason: string): void {
    const t = call.transfer;
    if (!t || call.state !== 'answered') return;
    if (call.ring?.purpose === 'consult') stopRing(call, true);
    call.transfer = null;
    if (t.party) free(t.party);
    call.heldBy = null;
    connect(call);
    tell(sideNamed(call, t.side), { event: 'consultEnded', reason });
    tell(sideNamed(call, other(t.side)), { event: 'resumed', by: t.byName });
  }

  /** `notices` with nothing sent to `side` (the side that ended the call itself). */
  function except(
    notices: { caller: Notice; callee: Notice },
    side: SideName,
  ): { caller: Notice; callee: Notice } {
    return { ...notices, [side]: 'none' as const };
  }

  /** How to notify the sides when a call ends while parked: the waiting side hears a hangup. */
  function parkedEnd(call: Call): { caller: Notice; callee: Notice } {
    return {
      caller: call.caller.identity ? 'hangup' : 'none',
      callee: call.calleeSide.identity ? 'hangup' : 'none',
    };
  }

  async function answerCall(
    conn: Conn,
    msg: Extract<ClientMessage, { type: 'answer' }>,
  ): Promise<void> {
    const call = bySid.get(msg.callsid);
    const ring = call?.ring;
    if (!call || !ring || ring.sid !== msg.callsid || !ring.forks.has(conn)) {
      unknownCall(conn, msg.callsid);
      return;
    }
    // The ring is over: other tabs stop ringing, and its leg now belongs to the side.
    call.ring = null;
    if (ring.timer) clearTimeout(ring.timer);
    for (const fork of ring.forks) if (fork !== conn) send(fork, 'cancel', { callsid: ring.sid });
    ring.forks.clear();
    if (ring.purpose === 'consult') {
      await consultAnswered(call, ring, conn, msg.sdp);
      return;
    }
    const side = answeredSide(ring, conn);
    setSide(call, ring.side, side);
    setBusy(side.identity!, 1);
    if (ring.purpose === 'call') call.state = 'answered';
    try {
      await ring.leg.accept(msg.sdp);
    } catch (err) {
      log(
        `voice: answer for ${call.id} refused: ${err instanceof Error ? err.message : String(err)}`,
      );
      endCall(
        call,
        ring.purpose === 'call' ? 'failed' : 'answered',
        'The call could not be connected (answer refused).',
        ring.purpose === 'call'
          ? {
              caller: { code: 31000, message: 'The call could not be connected.' },
              callee: 'hangup',
            }
          : parkedEnd(call),
      );
      return;
    }
    if (call.state === 'ended') return;
    if (ring.purpose === 'call') {
      call.answeredAt = now();
      call.handledBy = side.identity;
      connect(call);
      if (call.route) {
        call.callee = side.identity;
        call.route.ringing = null;
        step(call, 'answered', `${side.name} answered.`);
      }
      answerCaller(call);
      if (call.route) tellParties(call);
      return;
    }
    // A call rung back (after a park or an unanswered transfer), or a blind transfer's target: taken.
    leavePark(call);
    if (ring.purpose === 'transfer' && call.transfer)
      call.trail.push({
        action: 'transferred',
        by: call.transfer.by,
        to: side.identity!,
        at: now(),
      });
    else call.trail.push({ action: 'rangBack', by: side.identity!, at: now() });
    call.transfer = null;
    call.handledBy = side.identity;
    call.state = 'answered';
    connect(call);
    tell(sideNamed(call, other(ring.side)), { event: 'resumed', by: side.name });
    tellParties(call);
  }

  /** The side a ring becomes once `conn` answers it. */
  function answeredSide(ring: Ring, conn: Conn): Side {
    const identity = ring.owners.get(conn) ?? ring.identity;
    return {
      identity,
      name: ring.people.length === 1 ? ring.name : nameOf(identity),
      conn,
      sid: ring.sid,
      tempSid: null,
      knowsSid: true,
      token: ring.token,
      leg: ring.leg,
    };
  }

  /** An attended transfer's target answered: the transferrer talks to them, the other side waits. */
  async function consultAnswered(call: Call, ring: Ring, conn: Conn, sdp: string): Promise<void> {
    const t = call.transfer;
    const party = answeredSide(ring, conn);
    if (!t) {
      hangUpSide(party, 'hangup');
      void ring.leg.close();
      return;
    }
    t.party = party;
    setBusy(party.identity!, 1);
    try {
      await ring.leg.accept(sdp);
    } catch (err) {
      log(`voice: consult answer for ${call.id} refused: ${String(err)}`);
      endConsult(call, `The call to ${party.name} could not be connected.`);
      return;
    }
    if (call.transfer !== t || call.state !== 'answered') return;
    const mine = sideNamed(call, t.side);
    call.unbridge?.();
    call.unbridge = bridge(mine.leg!, ring.leg);
    tell(mine, { event: 'consultAnswered', name: party.name });
  }

  /** Bridges the two sides' audio. */
  function connect(call: Call): void {
    call.unbridge?.();
    call.unbridge = bridge(call.caller.leg!, call.calleeSide.leg!);
  }

  function leavePark(call: Call): void {
    if (!call.park) return;
    if (call.park.timer) clearTimeout(call.park.timer);
    call.park = null;
    options.onUnparked?.(call.id);
  }

  /** `conn` dialled `park:<callId>`: the first such dial takes the parked call, any later one is told. */
  async function pickUp(
    conn: Conn,
    msg: Extract<ClientMessage, { type: 'invite' }>,
    callId: string,
  ): Promise<void> {
    const picker = conn.identity!;
    const call = calls.get(callId);
    if (!call || call.state !== 'parked' || call.claimed || !call.park) {
      const taken = pickedUp.get(callId);
      const reason = taken
        ? taken.by === picker
          ? 'You already picked up this call.'
          : TAKEN_SENTENCE
        : call?.claimed
          ? TAKEN_SENTENCE
          : call && call.state === 'parked'
            ? 'This call is ringing back to whoever parked it.'
            : call
              ? 'This call is no longer on hold.'
              : GONE_SENTENCE;
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.notFound, reason);
      return;
    }
    if ((busyCount.get(picker) ?? 0) > 0) {
      failBeforeRinging(
        conn,
        msg.callsid,
        CODE_TEXT.busy,
        'Finish or park your own call before picking up another.',
      );
      return;
    }
    call.claimed = true;
    const vacated = call.park.side;
    let leg: MediaLeg;
    try {
      leg = await answerLeg(msg.sdp, options.media);
    } catch (err) {
      call.claimed = false;
      log(`voice: media for a pick-up of ${call.id} failed: ${String(err)}`);
      failBeforeRinging(
        conn,
        msg.callsid,
        31000,
        'The server could not set up audio for this call.',
      );
      return;
    }
    if (call.state !== 'parked' || conn.closed) {
      void leg.close();
      call.claimed = false;
      failBeforeRinging(conn, msg.callsid, CODE_TEXT.notFound, GONE_SENTENCE);
      return;
    }
    const side: Side = {
      identity: picker,
      name: nameOf(picker),
      conn,
      sid: sid('CA'),
      tempSid: msg.callsid,
      knowsSid: true,
      token: randomBytes(16).toString('hex'),
      leg,
    };
    setSide(call, vacated, side);
    bySid.set(side.sid, call);
    bySid.set(msg.callsid, call);
    call.claimed = false;
    stopRing(call, true);
    leavePark(call);
    pickedUp.set(call.id, { by: picker, at: now() });
    call.trail.push({ action: 'pickedUp', by: picker, at: now() });
    call.handledBy = picker;
    call.state = 'answered';
    setBusy(picker, 1);
    connect(call);
    send(conn, 'answer', { callsid: side.sid, sdp: leg.localSdp, reconnect: side.token });
    tell(sideNamed(call, other(vacated)), { event: 'resumed', by: side.name });
    tellParties(call);
  }

  function unknownCall(conn: Conn, callsid: string): void {
    const gone = ended.get(callsid);
    if (gone && conn.identity && gone.people.has(conn.identity)) return;
    sendError(conn, 31100, 'No such call for this device', { callsid });
  }

  /** Which side of `call` this socket is on for `callsid`, a fork of its ring, or null. */
  function sideOf(call: Call, conn: Conn, callsid: string): SideName | 'ring' | 'party' | null {
    for (const name of ['caller', 'callee'] as const) {
      const side = sideNamed(call, name);
      if (side.conn === conn && (callsid === side.sid || callsid === side.tempSid)) return name;
    }
    if (call.ring && callsid === call.ring.sid && call.ring.forks.has(conn)) return 'ring';
    const party = call.transfer?.party;
    if (party && party.conn === conn && callsid === party.sid) return 'party';
    return null;
  }

  function hangup(conn: Conn, callsid: string, rejecting: boolean): void {
    const call = bySid.get(callsid);
    const where = call ? sideOf(call, conn, callsid) : null;
    if (!call || !where) {
      unknownCall(conn, callsid);
      return;
    }
    if (where === 'ring') {
      const ring = call.ring!;
      ring.forks.delete(conn);
      if (ring.people.length > 1 && rejecting) {
        // One member of a ring group declines: their other tabs stop, the others ring on.
        const person = ring.owners.get(conn);
        for (const fork of [...ring.forks])
          if (ring.owners.get(fork) === person) {
            ring.forks.delete(fork);
            send(fork, 'cancel', { callsid: ring.sid });
          }
        if (ring.forks.size > 0) return;
      }
      // An unanswered fork going away (destroy) is not a decision by the person.
      if (!rejecting && ring.forks.size > 0) return;
      ringUnanswered(call, ring, ring.purpose !== 'ringBack' || rejecting);
      return;
    }
    if (where === 'party') {
      endConsult(call, `${call.transfer?.party?.name ?? 'They'} hung up.`);
      return;
    }
    const side = sideNamed(call, where);
    // Hanging up while consulting hands the call over (as on a desk phone), once the target is in.
    if (call.transfer?.mode === 'consult' && call.transfer.side === where) {
      if (call.transfer.party) {
        complete(call);
        return;
      }
      if (call.ring?.purpose === 'consult') stopRing(call, true);
      call.transfer = null;
    }
    if (call.state === 'setting-up' || call.state === 'ringing') {
      endCall(call, 'abandoned', 'The caller hung up before an answer.', { caller: 'none' });
      return;
    }
    const who = side.identity === call.from && where === 'caller' ? 'The caller' : side.name;
    if (call.state === 'parked') {
      const what = call.park ? 'parked' : 'waiting to be taken';
      endCall(call, 'answered', `${who} hung up while ${what}.`, except(parkedEnd(call), where));
      return;
    }
    endCall(call, 'answered', `${who} hung up.`, {
      caller: where === 'caller' ? 'none' : 'hangup',
      callee: where === 'callee' ? 'none' : 'hangup',
    });
  }

  function reconnectLeg(conn: Conn, msg: Extract<ClientMessage, { type: 'invite' }>): void {
    const call = bySid.get(msg.callsid);
    let found: SideName | 'ring' | null = null;
    if (call && call.state !== 'ended') {
      for (const name of ['caller', 'callee'] as const) {
        const side = sideNamed(call, name);
        if (
          side.identity === conn.identity &&
          msg.reconnect === side.token &&
          msg.callsid === side.sid
        )
          found = name;
      }
      if (
        !found &&
        call.ring &&
        msg.reconnect === call.ring.token &&
        msg.callsid === call.ring.sid &&
        conn.identity !== null &&
        call.ring.people.includes(conn.identity)
      )
        found = 'ring';
    }
    if (!call || !found) {
      send(conn, 'hangup', {
        callsid: msg.callsid,
        error: { code: CODE_TEXT.reconnect, message: 'This call has ended.' },
      });
      return;
    }
    if (found === 'ring') {
      // A ringing callee's socket came back: it keeps ringing there.
      call.ring!.forks.add(conn);
      call.ring!.owners.set(conn, conn.identity!);
      return;
    }
    const timer = call.lostTimers.get(found);
    if (timer) clearTimeout(timer);
    call.lostTimers.delete(found);
    const side = sideNamed(call, found);
    side.conn = conn;
    send(conn, 'answer', {
      callsid: side.sid,
      sdp: side.leg?.localSdp ?? '',
      reconnect: side.token,
    });
  }

  /** A socket went away: its calls end now, or after the SDK's reconnect window. */
  function socketLost(conn: Conn, graceful: boolean): void {
    for (const call of [...calls.values()]) {
      if (call.ring?.forks.has(conn)) {
        const ring = call.ring;
        ring.forks.delete(conn);
        const anyone = ring.people.some((p) => registeredSocketsOf(p).length > 0);
        if (ring.forks.size === 0 && (!anyone || call.route?.ringing)) {
          if (ring.purpose === 'call' && call.route?.ringing) ringUnanswered(call, ring);
          else if (ring.purpose === 'call') {
            const reason = `${ring.name} went offline.`;
            endCall(call, 'missed', reason, {
              caller: { code: CODE_TEXT.offline, message: reason },
            });
          } else ringUnanswered(call, ring);
        }
      }
      if (call.transfer?.party?.conn === conn) {
        call.transfer.party.conn = null;
        endConsult(call, `${call.transfer.party.name} was disconnected.`);
      }
      for (const name of ['caller', 'callee'] as const) {
        const side = sideNamed(call, name);
        if (side.conn !== conn || call.state === 'ended') continue;
        side.conn = null;
        const who = name === 'caller' && side.identity === call.from ? 'The caller' : side.name;
        const end = () => {
          if (call.state === 'setting-up' || call.state === 'ringing')
            endCall(call, 'abandoned', `${who} was disconnected.`, { caller: 'none' });
          else endCall(call, 'answered', `${who} was disconnected.`, except(parkedEnd(call), name));
        };
        if (graceful || conn.reconnectTimeout === 0) end();
        else {
          const t = setTimeout(end, conn.reconnectTimeout * 1000);
          t.unref();
          call.lostTimers.set(name, t);
        }
      }
    }
  }

  // ---- hold and park ----

  /** The call `identity` has as `callSid`, and their side of it; refused otherwise. */
  function ownCall(identity: string, callSid: string): { call: Call; side: SideName } {
    const call = bySid.get(callSid);
    if (call && call.state !== 'ended')
      for (const name of ['caller', 'callee'] as const) {
        const side = sideNamed(call, name);
        if (side.identity === identity && (side.sid === callSid || side.tempSid === callSid))
          return { call, side: name };
      }
    if (call && call.state !== 'ended')
      throw new CallControlError(403, 'not_your_call', 'This call is not yours.');
    throw new CallControlError(404, 'no_such_call', 'This call has ended.');
  }

  /** `identity`'s call in progress with no transfer under way, for a hold or a park; refused otherwise. */
  function inProgress(
    identity: string,
    callSid: string,
    what: string,
  ): { call: Call; side: SideName } {
    const found = ownCall(identity, callSid);
    if (found.call.transfer)
      throw new CallControlError(
        409,
        'transfer_in_progress',
        'A transfer is under way: complete or cancel it first.',
      );
    if (found.call.state !== 'answered')
      throw new CallControlError(409, 'not_answered', `Only a call in progress can be ${what}.`);
    return found;
  }

  function hold(identity: string, callSid: string, on: boolean): void {
    const { call, side } = inProgress(identity, callSid, 'put on hold');
    if (on) {
      if (call.heldBy === side) return;
      if (call.heldBy !== null)
        throw new CallControlError(
          409,
          'held_by_them',
          'The other side has put this call on hold; it can be held once they resume it.',
        );
      call.unbridge?.();
      call.unbridge = null;
      call.heldBy = side;
      sideNamed(call, other(side)).leg?.play(waitingSound(call));
      sideNamed(call, side).leg?.play(null);
      call.trail.push({ action: 'held', by: identity, at: now() });
      tell(sideNamed(call, other(side)), { event: 'held', by: sideNamed(call, side).name });
      return;
    }
    if (call.heldBy === null) return;
    if (call.heldBy !== side)
      throw new CallControlError(
        409,
        'held_by_them',
        'The other side put this call on hold; only they can resume it.',
      );
    call.heldBy = null;
    connect(call);
    call.trail.push({ action: 'resumed', by: identity, at: now() });
    tell(sideNamed(call, other(side)), { event: 'resumed', by: sideNamed(call, side).name });
  }

  function park(identity: string, callSid: string): ParkedCall {
    const { call, side } = inProgress(identity, callSid, 'parked');
    if (call.heldBy !== null && call.heldBy !== side)
      throw new CallControlError(
        409,
        'held_by_them',
        'The other side has put this call on hold; it can be parked once they resume it.',
      );
    const parker = sideNamed(call, side);
    const waiting = sideNamed(call, other(side));
    call.unbridge?.();
    call.unbridge = null;
    call.heldBy = null;
    waiting.leg?.play(waitingSound(call));
    // The parker's phone is free at once: their leg ends, the waiting side stays with the music.
    leave(parker);
    setSide(call, side, vacant());
    call.state = 'parked';
    const at = now();
    const timer = setTimeout(() => parkTimedOut(call, identity, parker.name), parkTimeoutMs);
    timer.unref();
    call.park = { side, by: identity, at, timer };
    call.trail.push({ action: 'parked', by: identity, at });
    tell(waiting, { event: 'held', by: parker.name });
    const entry: ParkedCall = {
      callId: call.id,
      caller: waiting.name,
      parkedBy: identity,
      parkedAt: at,
    };
    options.onParked?.(entry);
    return entry;
  }

  /** Parked too long: the call leaves /hold and rings the person who parked it. */
  function parkTimedOut(call: Call, parkerIdentity: string, parkerName: string): void {
    if (call.state !== 'parked' || !call.park || call.claimed) return;
    const side = call.park.side;
    leavePark(call);
    ringBack(call, side, parkerIdentity, parkerName, 'The call was parked too long');
  }

  // ---- transfer ----

  function transfer(
    identity: string,
    callSid: string,
    to: string,
    mode: 'blind' | 'consult',
  ): void {
    const { call, side } = ownCall(identity, callSid);
    if (call.state !== 'answered')
      throw new CallControlError(
        409,
        'not_answered',
        'Only a call in progress can be transferred.',
      );
    if (call.transfer)
      throw new CallControlError(409, 'transfer_in_progress', 'A transfer is already under way.');
    if (call.heldBy !== null && call.heldBy !== side)
      throw new CallControlError(
        409,
        'held_by_them',
        'The other side has put this call on hold; it can be transferred once they resume it.',
      );
    const target = to.trim();
    if (target === '')
      throw new CallControlError(400, 'bad_request', 'Say who to transfer the call to.');
    const dest = options.resolve(target, identity);
    if (dest.kind === 'unknown') throw new CallControlError(404, 'not_found', dest.reason);
    const waiting = sideNamed(call, other(side));
    let turns: TransferTurn[];
    if (dest.kind === 'group') turns = groupTurns(dest, identity, waiting.identity);
    else {
      if (dest.identity === identity)
        throw new CallControlError(400, 'bad_request', 'You cannot transfer a call to yourself.');
      if (dest.identity === waiting.identity)
        throw new CallControlError(400, 'bad_request', `${dest.name} is already on this call.`);
      if (registeredSocketsOf(dest.identity).length === 0)
        throw new CallControlError(409, 'unavailable', `${dest.name} is offline.`);
      if (options.doNotDisturb?.(dest.identity))
        throw new CallControlError(
          409,
          'unavailable',
          `${dest.name} is not taking calls (do not disturb).`,
        );
      if ((busyCount.get(dest.identity) ?? 0) > 0)
        throw new CallControlError(409, 'unavailable', `${dest.name} is on another call.`);
      turns = [{ identities: [dest.identity] }];
    }
    const me = sideNamed(call, side);
    const t: Transfer = {
      mode,
      side,
      by: identity,
      byName: me.name,
      from: mode === 'consult' ? identity : (waiting.identity ?? call.from),
      targetName: dest.name,
      group: dest.kind === 'group',
      turns,
      party: null,
    };
    call.transfer = t;
    call.unbridge?.();
    call.unbridge = null;
    call.heldBy = null;
    waiting.leg?.play(waitingSound(call));
    tell(waiting, { event: 'held', by: me.name });
    if (mode === 'consult') {
      // We hear ringback on our own leg until they answer.
      me.leg?.play(TONES.ringback);
    } else {
      // Blind: we leave now; the call rings them on our side, and comes back to us if unanswered.
      leave(me);
      setSide(call, side, vacant());
      call.state = 'parked';
    }
    ringTransfer(call, t);
  }

  /**
   * Who a transfer to a ring group rings, turn by turn: its members who can take a call now, but
   * neither the transferrer nor the person waiting. Refused when that is nobody.
   */
  function groupTurns(
    dest: Extract<Destination, { kind: 'group' }>,
    identity: string,
    waiting: string | null,
  ): TransferTurn[] {
    if (dest.test)
      throw new CallControlError(400, 'bad_request', 'A test call cannot take a transfer.');
    const leaveOut = waiting === null ? [identity] : [identity, waiting];
    const found = options.groupTransfer?.(dest.groupId, leaveOut);
    if (!found)
      throw new CallControlError(
        409,
        'unavailable',
        `Calls cannot be transferred to ${dest.name} here; transfer to one of its members.`,
      );
    if (found.turns.length === 0) {
      const why = found.skipped.length > 0 ? ` (${found.skipped.join(', ')})` : '';
      throw new CallControlError(
        409,
        'unavailable',
        `Nobody else in ${dest.name} can take the call now${why}.`,
      );
    }
    return found.turns.map((turn) => ({
      identities: turn.identities,
      timeoutMs: turn.seconds * 1000,
    }));
  }

  /** Whether `t` is still the call's transfer, at the stage its next ring can start. */
  const transferGoesOn = (call: Call, t: Transfer): boolean =>
    call.transfer === t && call.state === (t.mode === 'consult' ? 'answered' : 'parked');

  /** Rings the transfer's next turn (a group's member in order, or everyone at once). */
  function ringTransfer(call: Call, t: Transfer): void {
    const turn = t.turns.shift();
    if (!turn) {
      transferFailed(call, t, `Nobody in ${t.targetName} could take the call`);
      return;
    }
    const name =
      t.group && turn.identities.length === 1 ? nameOf(turn.identities[0]!) : t.targetName;
    offerLeg(options.media).then(
      (leg) => {
        if (!transferGoesOn(call, t)) {
          void leg.close();
          return;
        }
        const purpose = t.mode === 'consult' ? 'consult' : 'transfer';
        const extra = {
          ...(turn.timeoutMs !== undefined ? { timeoutMs: turn.timeoutMs } : {}),
          ...(t.group ? { params: { Group: t.targetName } } : {}),
        };
        if (startRing(call, t.side, purpose, turn.identities, name, leg, t.from, extra)) return;
        if (t.turns.length > 0) ringTransfer(call, t);
        else transferFailed(call, t, `${name} went offline`);
      },
      (err: unknown) => {
        log(`voice: transfer of ${call.id} failed: ${String(err)}`);
        transferFailed(
          call,
          t,
          t.mode === 'consult'
            ? `The call to ${name} could not be set up`
            : 'The transfer could not be set up',
        );
      },
    );
  }

  /** Nobody took the transfer: an attended one goes back to the call, a blind one rings its sender. */
  function transferFailed(call: Call, t: Transfer, why: string): void {
    if (call.transfer !== t) return;
    if (t.mode === 'consult') {
      endConsult(call, `${why}.`);
      return;
    }
    call.transfer = null;
    ringBack(call, t.side, t.by, t.byName, why);
  }

  /**
   * `side`'s person leaves a call that goes on (a park, a transfer): their leg is hung up and closed,
   * they are free, and their ids stop naming the call (late frames from them are quiet).
   */
  function leave(side: Side): void {
    free(side);
    for (const s of [side.sid, side.tempSid]) {
      if (s === null || s === '') continue;
      bySid.delete(s);
      ended.set(s, { people: new Set([side.identity!]), at: now() });
    }
  }

  /** Hands a consulted call over: the target takes the transferrer's side, who leaves. */
  function complete(call: Call): void {
    const t = call.transfer;
    if (!t || !t.party) return;
    const leaving = sideNamed(call, t.side);
    const party = t.party;
    call.transfer = null;
    call.unbridge?.();
    call.unbridge = null;
    leave(leaving);
    setSide(call, t.side, party);
    bySid.set(party.sid, call);
    call.trail.push({ action: 'transferred', by: t.by, to: party.identity!, at: now() });
    call.handledBy = party.identity;
    connect(call);
    tell(sideNamed(call, other(t.side)), { event: 'resumed', by: party.name });
    tellParties(call);
  }

  function consultOf(identity: string, callSid: string) {
    const { call, side } = ownCall(identity, callSid);
    const t = call.transfer;
    if (!t || t.side !== side || t.mode !== 'consult')
      throw new CallControlError(
        409,
        'no_transfer',
        'There is no transfer under way on this call.',
      );
    return { call, t };
  }

  function completeTransfer(identity: string, callSid: string): void {
    const { call, t } = consultOf(identity, callSid);
    if (!t.party)
      throw new CallControlError(
        409,
        'no_transfer',
        `${t.targetName} has not answered yet: wait, or cancel the transfer.`,
      );
    complete(call);
  }

  function cancelTransfer(identity: string, callSid: string): void {
    const { call, t } = consultOf(identity, callSid);
    endConsult(call, `You cancelled the transfer to ${t.targetName}.`);
  }

  // ---- sockets ----

  function dropConn(conn: Conn, graceful: boolean): void {
    if (conn.closed) return;
    conn.closed = true;
    if (conn.expiryTimer) clearTimeout(conn.expiryTimer);
    conns.delete(conn);
    socketLost(conn, graceful);
  }

  function allowFrame(conn: Conn): boolean {
    const t = now();
    conn.tokens = Math.min(
      rate.burst,
      conn.tokens + ((t - conn.lastRefill) / 1000) * rate.perSecond,
    );
    conn.lastRefill = t;
    if (conn.tokens < 1) return false;
    conn.tokens -= 1;
    return true;
  }

  function onListen(conn: Conn, msg: Extract<ClientMessage, { type: 'listen' }>): void {
    const check = verifyVoiceToken(secret, msg.token, Math.floor(now() / 1000));
    if (!check.ok) {
      refuse(conn, check.code, check.message);
      return;
    }
    if (conn.identity !== null && conn.identity !== check.identity) {
      refuse(conn, 31204, 'JWT is invalid: a token for another identity');
      return;
    }
    if (options.tokenLive && !options.tokenLive(check.identity, check.sessionRef)) {
      refuse(conn, 31204, 'JWT is invalid: its session has ended');
      return;
    }
    conn.identity = check.identity;
    conn.sessionRef = check.sessionRef;
    conn.exp = check.exp;
    conn.incoming = check.incoming;
    conn.outgoing = check.outgoing;
    conn.reconnectTimeout = msg.reconnectTimeout;
    if (conn.expiryTimer) clearTimeout(conn.expiryTimer);
    const ttlMs = check.exp * 1000 - now();
    conn.expiryTimer = setTimeout(
      () => refuse(conn, 31205, 'JWT token expired'),
      Math.max(0, ttlMs),
    );
    conn.expiryTimer.unref();
    send(conn, 'connected', {
      token: { identity: check.identity, ttl: Math.max(0, Math.floor(ttlMs / 1000)) },
    });
  }

  function onMessage(conn: Conn, msg: ClientMessage): void {
    if (msg.type === 'listen') {
      onListen(conn, msg);
      return;
    }
    if (conn.identity === null) {
      sendError(conn, 31204, 'JWT is invalid: send listen with a token first');
      return;
    }
    if (conn.exp * 1000 <= now()) {
      refuse(conn, 31205, 'JWT token expired');
      return;
    }
    switch (msg.type) {
      case 'register':
        if (msg.audio && !conn.incoming) {
          sendError(conn, 31201, 'This token may not receive calls.');
          return;
        }
        conn.registered = msg.audio;
        send(conn, msg.audio ? 'ready' : 'offline');
        return;
      case 'invite':
        if (msg.reconnect !== null) reconnectLeg(conn, msg);
        else
          placeCall(conn, msg).catch((err: unknown) => {
            log(`voice: placing a call failed: ${String(err)}`);
            failBeforeRinging(conn, msg.callsid, 31000, 'The call could not be placed.');
          });
        return;
      case 'answer':
        answerCall(conn, msg).catch((err: unknown) =>
          log(`voice: answering failed: ${String(err)}`),
        );
        return;
      case 'reject':
        hangup(conn, msg.callsid, true);
        return;
      case 'hangup':
        hangup(conn, msg.callsid, false);
        return;
      case 'reinvite':
      case 'dtmf':
      case 'message': {
        const call = bySid.get(msg.callsid);
        if (!call || !sideOf(call, conn, msg.callsid)) {
          unknownCall(conn, msg.callsid);
          return;
        }
        if (msg.type === 'message') {
          send(conn, 'ack', {
            acktype: 'message',
            callsid: msg.callsid,
            voiceeventsid: msg.voiceeventsid,
          });
        }
        // ICE restarts are not supported yet: the leg ends at the server, so a lost path shows as
        // the SDK's own reconnecting state; DTMF from Chrome travels in-band (RFC 4733).
        return;
      }
    }
  }

  function onConnection(ws: WebSocket): void {
    const conn: Conn = {
      ws,
      identity: null,
      sessionRef: null,
      exp: 0,
      incoming: false,
      outgoing: false,
      registered: false,
      reconnectTimeout: 0,
      expiryTimer: null,
      tokens: rate.burst,
      lastRefill: now(),
      closed: false,
    };
    conns.add(conn);
    ws.on('message', (data, isBinary) => {
      if (conn.closed) return;
      if (!allowFrame(conn)) {
        sendError(conn, 31206, 'Rate limit exceeded: too many messages');
        dropConn(conn, false);
        ws.close(1008, 'rate limit');
        return;
      }
      if (isBinary) {
        sendError(conn, 31100, 'Malformed message: binary frames are not accepted');
        return;
      }
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Buffer.concat(data as Buffer[]).toString('utf8');
      if (logFrames && text !== '\n') trace(conn, '<-', text);
      const parsed = parseFrame(text);
      if (!parsed.ok) {
        sendError(
          conn,
          31100,
          parsed.message,
          parsed.callsid === undefined ? {} : { callsid: parsed.callsid },
        );
        return;
      }
      if ('heartbeat' in parsed) return;
      try {
        onMessage(conn, parsed.message);
      } catch (err) {
        log(
          `voice: handling ${parsed.message.type} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        sendError(conn, 31000, 'The server could not handle this message');
      }
    });
    ws.on('close', (code) => dropConn(conn, code === 1000 || code === 1005));
    ws.on('error', () => dropConn(conn, false));
  }

  let closed = false;
  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== SIGNAL_PATH) return false;
      if (closed) {
        socket.destroy();
        return true;
      }
      wss.handleUpgrade(req, socket, head, onConnection);
      return true;
    },
    mintToken(identity, ttlSeconds = 3600, sessionRef) {
      return mintVoiceToken(secret, identity, Math.floor(now() / 1000), ttlSeconds, sessionRef);
    },
    disconnect(identity) {
      for (const conn of socketsOf(identity))
        refuse(conn, 31204, 'JWT is invalid: access withdrawn');
    },
    revokeSession(sessionRef) {
      for (const conn of [...conns])
        if (conn.sessionRef === sessionRef)
          refuse(conn, 31204, 'JWT is invalid: its session has ended');
    },
    isRegistered: (identity) => registeredSocketsOf(identity).length > 0,
    isOnCall: (identity) => (busyCount.get(identity) ?? 0) > 0,
    hold,
    park,
    transfer,
    completeTransfer,
    cancelTransfer,
    parked: () =>
      [...calls.values()].flatMap((c) =>
        c.park && c.state === 'parked'
          ? [
              {
                callId: c.id,
                caller: sideNamed(c, other(c.park.side)).name,
                parkedBy: c.park.by,
                parkedAt: c.park.at,
              },
            ]
          : [],
      ),
    activeCalls() {
      return [...calls.values()].map((c) => ({
        id: c.id,
        from: c.from,
        to: c.to,
        state: c.state,
      }));
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      for (const call of [...calls.values()]) {
        const answered = call.state === 'answered' || call.state === 'parked';
        endCall(
          call,
          answered ? 'answered' : 'abandoned',
          'The server stopped.',
          answered ? parkedEnd(call) : { caller: 'hangup' },
        );
      }
      for (const conn of [...conns]) {
        dropConn(conn, true);
        conn.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
