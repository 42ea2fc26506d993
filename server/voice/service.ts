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
import { loadOrCreateSecret } from '../lib/access-token';
import { TONES } from './audio';
import { answerLeg, bridge, offerLeg, type MediaLeg, type MediaOptions } from './media';
import { frame, MAX_FRAME_BYTES, parseFrame, type ClientMessage } from './protocol';
import { mintVoiceToken, verifyVoiceToken } from './token';

export const SIGNAL_PATH = '/signal';

/** Who a dialled `To` reaches. */
export type Destination =
  { kind: 'person'; identity: string; name: string } | { kind: 'unknown'; reason: string };

/** One finished call, as the server writes it to the `calls` list. */
export interface CallRecord {
  id: string;
  direction: 'outbound';
  from: string;
  to: string;
  user: string;
  callee: string | null;
  startedAt: number;
  answeredAt: number | null;
  endedAt: number;
  duration: number;
  outcome: 'answered' | 'missed' | 'rejected' | 'busy' | 'failed' | 'abandoned';
  reason: string;
}

export interface VoiceServiceOptions {
  dataDir: string;
  now?: () => number;
  log?: (message: string) => void;
  /** Resolves what was dialled (`To`). */
  resolve: (to: string, caller: string) => Destination;
  /** Whether a token's app session is still live; checked on every `listen`. */
  tokenLive?: (identity: string, sessionRef: string | null) => boolean;
  /** A person's display name, sent to the callee with the call. */
  nameOf?: (identity: string) => string | null;
  /** Whether the person has do-not-disturb on. */
  doNotDisturb?: (identity: string) => boolean;
  /** Told of every finished call (history). */
  onCallEnded?: (record: CallRecord) => void;
  /** Told when someone's number of live calls changes (presence). */
  onBusyChanged?: (identity: string, busy: boolean) => void;
  media?: MediaOptions;
  /** How long a call rings before it is missed. */
  ringTimeoutMs?: number;
  /** Server heartbeat period; the SDK reconnects after 15 s of silence. */
  heartbeatMs?: number;
  /** Prints every signalling frame (SWITCHBOARD_VOICE_LOG=1), SDPs shortened. */
  logFrames?: boolean;
  /** Inbound frames per second per socket, and burst. */
  rate?: { perSecond: number; burst: number };
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
  /** Live calls, for tests and diagnostics. */
  activeCalls(): { id: string; from: string; to: string; state: CallState }[];
  close(): Promise<void>;
}

type CallState = 'setting-up' | 'ringing' | 'answered' | 'ended';

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

interface Call {
  id: string;
  tempSid: string;
  calleeSid: string;
  caller: string;
  callerConn: Conn | null;
  callerToken: string;
  calleeToken: string;
  to: string;
  callee: string | null;
  calleeName: string;
  calleeConn: Conn | null;
  forks: Set<Conn>;
  callerLeg: MediaLeg | null;
  calleeLeg: MediaLeg | null;
  unbridge: (() => void) | null;
  state: CallState;
  startedAt: number;
  answeredAt: number | null;
  ringTimer: NodeJS.Timeout | null;
  /** Set while a leg's socket is gone and the SDK may reconnect to it. */
  lostTimers: Map<'caller' | 'callee', NodeJS.Timeout>;
}

const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;

const CODE_TEXT = {
  offline: 31480,
  noAnswer: 31480,
  busy: 31486,
  declined: 31603,
  notFound: 31404,
  forbidden: 31201,
  reconnect: 31209,
} as const;

export function createVoiceService(options: VoiceServiceOptions): VoiceService {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((m: string) => console.error(m));
  const secret = loadOrCreateSecret(options.dataDir, 'voice-secret');
  const ringTimeoutMs = options.ringTimeoutMs ?? 30_000;
  const rate = options.rate ?? { perSecond: 20, burst: 60 };
  const conns = new Set<Conn>();
  const calls = new Map<string, Call>();
  /** Every sid a call is known by (temporary, caller's, callee's) → the call. */
  const bySid = new Map<string, Call>();
  /** Ended calls' sids for a minute, so late hangups from their own people are not errors. */
  const ended = new Map<string, { people: Set<string>; at: number }>();
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

  // ---- calls ----

  function endCall(
    call: Call,
    outcome: CallRecord['outcome'],
    reason: string,
    notify: {
      caller?: { code: number; message: string } | 'hangup' | 'none';
      callee?: 'hangup' | 'cancel' | 'none';
    },
  ): void {
    if (call.state === 'ended') return;
    const wasLive = call.state !== 'setting-up' || call.forks.size > 0;
    call.state = 'ended';
    if (call.ringTimer) clearTimeout(call.ringTimer);
    for (const timer of call.lostTimers.values()) clearTimeout(timer);
    call.unbridge?.();
    const callerSid =
      call.answeredAt === null && call.forks.size === 0 && !call.callerLeg ? call.tempSid : call.id;
    const caller = notify.caller ?? 'hangup';
    if (caller === 'hangup') send(call.callerConn, 'hangup', { callsid: callerSid });
    else if (caller !== 'none')
      send(call.callerConn, 'hangup', { callsid: call.tempSid, error: caller });
    const callee = notify.callee ?? 'none';
    if (callee === 'cancel')
      for (const fork of call.forks) send(fork, 'cancel', { callsid: call.calleeSid });
    if (callee === 'hangup') send(call.calleeConn, 'hangup', { callsid: call.calleeSid });
    call.forks.clear();
    void call.callerLeg?.close();
    void call.calleeLeg?.close();
    calls.delete(call.id);
    const people = new Set([call.caller, ...(call.callee ? [call.callee] : [])]);
    for (const s of [call.id, call.tempSid, call.calleeSid]) {
      bySid.delete(s);
      ended.set(s, { people, at: now() });
    }
    if (wasLive) {
      setBusy(call.caller, -1);
      if (call.answeredAt !== null && call.callee) setBusy(call.callee, -1);
    }
    const endedAt = now();
    try {
      options.onCallEnded?.({
        id: call.id,
        direction: 'outbound',
        from: call.caller,
        to: call.to,
        user: call.caller,
        callee: call.callee,
        startedAt: call.startedAt,
        answeredAt: call.answeredAt,
        endedAt,
        duration: call.answeredAt === null ? 0 : Math.round((endedAt - call.answeredAt) / 1000),
        outcome,
        reason,
      });
    } catch (err) {
      log(`voice: recording call ${call.id} failed: ${String(err)}`);
    }
  }

  function failBeforeRinging(conn: Conn, tempSid: string, code: number, message: string): void {
    send(conn, 'hangup', { callsid: tempSid, error: { code, message } });
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
    const startedAt = now();
    const record = (
      outcome: CallRecord['outcome'],
      reason: string,
      callee: string | null,
    ): void => {
      try {
        options.onCallEnded?.({
          id: sid('CA'),
          direction: 'outbound',
          from: caller,
          to,
          user: caller,
          callee,
          startedAt,
          answeredAt: null,
          endedAt: now(),
          duration: 0,
          outcome,
          reason,
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

    const call: Call = {
      id: sid('CA'),
      tempSid: msg.callsid,
      calleeSid: sid('CA'),
      caller,
      callerConn: conn,
      callerToken: randomBytes(16).toString('hex'),
      calleeToken: randomBytes(16).toString('hex'),
      to,
      callee: dest.identity,
      calleeName: name,
      calleeConn: null,
      forks: new Set(),
      callerLeg: null,
      calleeLeg: null,
      unbridge: null,
      state: 'setting-up',
      startedAt,
      answeredAt: null,
      ringTimer: null,
      lostTimers: new Map(),
    };
    calls.set(call.id, call);
    for (const s of [call.id, call.tempSid, call.calleeSid]) bySid.set(s, call);
    setBusy(caller, 1);

    let callerLeg: MediaLeg;
    let calleeLeg: MediaLeg;
    try {
      [callerLeg, calleeLeg] = await Promise.all([
        answerLeg(msg.sdp, options.media),
        offerLeg(options.media),
      ]);
    } catch (err) {
      log(
        `voice: media for ${call.id} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      endCall(call, 'failed', 'The call could not be connected (media).', {
        caller: { code: 31000, message: 'The server could not set up audio for this call.' },
      });
      return;
    }
    call.callerLeg = callerLeg;
    call.calleeLeg = calleeLeg;
    if (call.state === 'ended') {
      void callerLeg.close();
      void calleeLeg.close();
      return;
    }
    // Early media: the caller's audio connects now and hears ringback until the callee answers.
    send(conn, 'ringing', { callsid: call.id, sdp: callerLeg.localSdp });
    callerLeg.play(TONES.ringback);
    const targetsNow = registeredSocketsOf(dest.identity);
    if (targetsNow.length === 0) {
      endCall(call, 'missed', `${name} is offline.`, {
        caller: { code: CODE_TEXT.offline, message: `${name} is offline.` },
      });
      return;
    }
    call.state = 'ringing';
    const parameters = {
      CallSid: call.calleeSid,
      AccountSid: 'AC00000000000000000000000000000000',
      From: `client:${caller}`,
      To: `client:${dest.identity}`,
      ApiVersion: '2010-04-01',
      Params: new URLSearchParams({
        CallerIdentity: caller,
        CallerName: options.nameOf?.(caller) ?? caller,
      }).toString(),
    };
    for (const target of targetsNow) {
      call.forks.add(target);
      send(target, 'invite', {
        callsid: call.calleeSid,
        sdp: calleeLeg.localSdp,
        parameters,
        reconnect: call.calleeToken,
      });
    }
    call.ringTimer = setTimeout(() => {
      endCall(call, 'missed', `${name} did not answer.`, {
        caller: { code: CODE_TEXT.noAnswer, message: `${name} did not answer.` },
        callee: 'cancel',
      });
    }, ringTimeoutMs);
    call.ringTimer.unref();
  }

  async function answerCall(
    conn: Conn,
    msg: Extract<ClientMessage, { type: 'answer' }>,
  ): Promise<void> {
    const call = bySid.get(msg.callsid);
    if (
      !call ||
      call.calleeSid !== msg.callsid ||
      !call.forks.has(conn) ||
      call.state !== 'ringing'
    ) {
      unknownCall(conn, msg.callsid);
      return;
    }
    call.state = 'answered';
    call.calleeConn = conn;
    if (call.ringTimer) clearTimeout(call.ringTimer);
    for (const fork of call.forks)
      if (fork !== conn) send(fork, 'cancel', { callsid: call.calleeSid });
    call.forks = new Set([conn]);
    try {
      await call.calleeLeg!.accept(msg.sdp);
    } catch (err) {
      log(
        `voice: callee answer for ${call.id} refused: ${err instanceof Error ? err.message : String(err)}`,
      );
      endCall(call, 'failed', 'The call could not be connected (answer refused).', {
        caller: { code: 31000, message: 'The call could not be connected.' },
        callee: 'hangup',
      });
      return;
    }
    if (call.state !== 'answered') return;
    call.answeredAt = now();
    if (call.callee) setBusy(call.callee, 1);
    call.unbridge = bridge(call.callerLeg!, call.calleeLeg!);
    send(call.callerConn, 'answer', {
      callsid: call.id,
      sdp: call.callerLeg!.localSdp,
      reconnect: call.callerToken,
    });
  }

  function unknownCall(conn: Conn, callsid: string): void {
    const gone = ended.get(callsid);
    if (gone && conn.identity && gone.people.has(conn.identity)) return;
    sendError(conn, 31100, 'No such call for this device', { callsid });
  }

  /** Which side of `call` this socket is on, or null when it has no business with it. */
  function sideOf(call: Call, conn: Conn, callsid: string): 'caller' | 'callee' | null {
    if (conn === call.callerConn && (callsid === call.id || callsid === call.tempSid))
      return 'caller';
    if (callsid === call.calleeSid && (conn === call.calleeConn || call.forks.has(conn)))
      return 'callee';
    return null;
  }

  function hangup(conn: Conn, callsid: string, rejecting: boolean): void {
    const call = bySid.get(callsid);
    const side = call ? sideOf(call, conn, callsid) : null;
    if (!call || !side) {
      unknownCall(conn, callsid);
      return;
    }
    if (side === 'caller') {
      if (call.state === 'answered')
        endCall(call, 'answered', 'The caller hung up.', { caller: 'none', callee: 'hangup' });
      else
        endCall(call, 'abandoned', 'The caller hung up before an answer.', {
          caller: 'none',
          callee: 'cancel',
        });
      return;
    }
    if (call.state === 'answered' && conn === call.calleeConn) {
      endCall(call, 'answered', `${call.calleeName} hung up.`, {
        caller: 'hangup',
        callee: 'none',
      });
      return;
    }
    if (call.state === 'ringing') {
      if (!rejecting) {
        // An unanswered fork going away (destroy) is not a rejection by the person.
        call.forks.delete(conn);
        if (call.forks.size > 0) return;
      }
      const reason = `${call.calleeName} declined the call.`;
      call.forks.delete(conn);
      endCall(call, 'rejected', reason, {
        caller: { code: CODE_TEXT.declined, message: reason },
        callee: 'cancel',
      });
    }
  }

  function reconnectLeg(conn: Conn, msg: Extract<ClientMessage, { type: 'invite' }>): void {
    const call = bySid.get(msg.callsid);
    const side =
      call &&
      msg.reconnect === call.callerToken &&
      msg.callsid === call.id &&
      conn.identity === call.caller
        ? 'caller'
        : call &&
            msg.reconnect === call.calleeToken &&
            msg.callsid === call.calleeSid &&
            conn.identity === call.callee
          ? 'callee'
          : null;
    if (!call || !side || call.state === 'ended') {
      send(conn, 'hangup', {
        callsid: msg.callsid,
        error: { code: CODE_TEXT.reconnect, message: 'This call has ended.' },
      });
      return;
    }
    const timer = call.lostTimers.get(side);
    if (timer) clearTimeout(timer);
    call.lostTimers.delete(side);
    if (side === 'caller') {
      call.callerConn = conn;
      send(conn, 'answer', {
        callsid: call.id,
        sdp: call.callerLeg?.localSdp ?? '',
        reconnect: call.callerToken,
      });
    } else {
      if (call.state !== 'answered') {
        // A ringing callee's socket came back: it keeps ringing there.
        call.forks.add(conn);
        return;
      }
      call.calleeConn = conn;
      send(conn, 'answer', {
        callsid: call.calleeSid,
        sdp: call.calleeLeg?.localSdp ?? '',
        reconnect: call.calleeToken,
      });
    }
  }

  /** A socket went away: its calls end now, or after the SDK's reconnect window. */
  function socketLost(conn: Conn, graceful: boolean): void {
    for (const call of [...calls.values()]) {
      if (call.callerConn === conn) {
        call.callerConn = null;
        const end = () =>
          call.state === 'answered'
            ? endCall(call, 'answered', 'The caller was disconnected.', {
                caller: 'none',
                callee: 'hangup',
              })
            : endCall(call, 'abandoned', 'The caller was disconnected.', {
                caller: 'none',
                callee: 'cancel',
              });
        if (graceful || conn.reconnectTimeout === 0) end();
        else {
          const t = setTimeout(end, conn.reconnectTimeout * 1000);
          t.unref();
          call.lostTimers.set('caller', t);
        }
      }
      if (call.forks.has(conn) && call.state === 'ringing') {
        call.forks.delete(conn);
        if (call.forks.size === 0 && registeredSocketsOf(call.callee ?? '').length === 0) {
          const reason = `${call.calleeName} went offline.`;
          endCall(call, 'missed', reason, { caller: { code: CODE_TEXT.offline, message: reason } });
        }
      }
      if (call.calleeConn === conn && call.state === 'answered') {
        call.calleeConn = null;
        const end = () =>
          endCall(call, 'answered', `${call.calleeName} was disconnected.`, {
            caller: 'hangup',
            callee: 'none',
          });
        if (graceful || conn.reconnectTimeout === 0) end();
        else {
          const t = setTimeout(end, conn.reconnectTimeout * 1000);
          t.unref();
          call.lostTimers.set('callee', t);
        }
      }
    }
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
    activeCalls() {
      return [...calls.values()].map((c) => ({
        id: c.id,
        from: c.caller,
        to: c.to,
        state: c.state,
      }));
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      for (const call of [...calls.values()])
        endCall(call, call.state === 'answered' ? 'answered' : 'abandoned', 'The server stopped.', {
          caller: 'hangup',
          callee: call.state === 'answered' ? 'hangup' : 'cancel',
        });
      for (const conn of [...conns]) {
        dropConn(conn, true);
        conn.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
