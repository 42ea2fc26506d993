/**
 * The voice twin: the Voice SDK's signalling (PStream 1.6 over a WebSocket at /signal on the app's
 * own port) and the calls it sets up between signed-in people, with the server as the media end of
 * every leg (media.ts). The protocol, sequences and error codes it follows are in
 * ../shared/protocol/voice-signalling.md; docs/voice.md says what this service does with them.
 *
 * This file makes the shared state (model.ts) and answers the service's API; each concern is a
 * module handed that state: signalling.ts (sockets and frames), calls.ts (the registry of live
 * calls and their sides), ringing.ts, routing.ts (calls to ring groups), voicemail.ts, hold.ts
 * (hold, park, pick-up), transfer.ts, hangup.ts (hang-ups, lost sockets, reconnects) and
 * history.ts (history rows and presence).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { loadOrCreateSecret } from '../../platform/lib/access-token';
import { holdMusic } from './audio';
import { endCall, parkedEnd, sideNamed } from './calls';
import type { MediaOptions } from './media';
import {
  other,
  SIGNAL_PATH,
  type CallState,
  type Destination,
  type ParkedCall,
  type VoiceState,
} from './model';
import { hold, park } from './hold';
import { callOfParty } from './history';
import { MAX_FRAME_BYTES } from './protocol';
import { dropConn, onConnection, refuse, registeredSocketsOf, socketsOf } from './signalling';
import { mintVoiceToken } from './token';
import { appMode, type TwimlApplication } from './twiml/application';
import { DEFAULT_TWILIO_API_MOUNT } from '../../sync/twilio-api/http';

/** Where the `twilio` package's api.twilio.com requests arrive (`<mount>/api/…`). */
const REST_MOUNT = `${DEFAULT_TWILIO_API_MOUNT}/api`;
import { cancelTransfer, completeTransfer, transfer } from './transfer';
import type { VoicemailStore } from './voicemail-store';
import type { RingTurn } from '../../../src/domain/routing/engine';
import type { CallRecord } from '../../../src/contracts/records/call';
import type { Decision } from '../../../src/domain/routing/plan';

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
  /** `text` spoken in `language` (lower-case BCP 47) as 8 kHz μ-law, for `<Say>` (twiml/sounds.ts). */
  speak?: (text: string, language: string) => Promise<Buffer>;
  /** Told of every finished call: its history row, as both backends write it (src/contracts). */
  onCallEnded?: (record: CallRecord) => void;
  /**
   * Told, synchronously and before anyone hears of it, of each change to a live call worth keeping
   * (placed, routed, answered, each trail step): the row it gets if the server dies now (`dropped`),
   * for the app to journal so a crash loses no call. `onCallEnded` follows for every call told here.
   */
  onCallProgress?: (record: CallRecord) => void;
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
  /**
   * The id of the call (its history row's `callSid`) that `identity` is or was on as `callSid`, live
   * or ended in the last minute. Throws {@link CallControlError} (403 not theirs, 404 unknown).
   */
  callOfParty(identity: string, callSid: string): string;
  /**
   * From now on, calls placed by the SDK run `application`'s TwiML (its Voice URL asked as Twilio
   * asks it) and tokens are Twilio's, signed by its API key: Twilio mode on the twins.
   */
  useApplication(application: TwimlApplication): void;
  /**
   * In Twilio mode on the twins: answers Twilio's Voice REST API for the application's calls at
   * `/twilio/api/2010-04-01/…` (where the `twilio` package's requests go, server/twilio/client.ts);
   * false for any other request, or when no application is in use.
   */
  handleRest(req: IncomingMessage, res: ServerResponse): boolean;
  /** Live calls, for tests and diagnostics. */
  activeCalls(): { id: string; from: string; to: string; state: CallState }[];
  close(): Promise<void>;
}

export function createVoiceService(options: VoiceServiceOptions): VoiceService {
  const vs: VoiceState = {
    options,
    now: options.now ?? Date.now,
    log: options.log ?? ((m: string) => console.error(m)),
    secret: loadOrCreateSecret(options.dataDir, 'voice-secret'),
    ringTimeoutMs: options.ringTimeoutMs ?? 30_000,
    parkTimeoutMs: options.parkTimeoutMs ?? 180_000,
    voicemailMaxMs: options.voicemailMaxMs ?? 120_000,
    music: options.holdMusic ?? holdMusic(),
    rate: options.rate ?? { perSecond: 20, burst: 60 },
    logFrames: options.logFrames ?? process.env.SWITCHBOARD_VOICE_LOG === '1',
    conns: new Set(),
    calls: new Map(),
    bySid: new Map(),
    ended: new Map(),
    pickedUp: new Map(),
    busyCount: new Map(),
    app: null,
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  const heartbeat = setInterval(() => {
    for (const conn of vs.conns) if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send('\n');
    const cutoff = vs.now() - 60_000;
    for (const [key, value] of vs.ended) if (value.at < cutoff) vs.ended.delete(key);
    for (const [key, value] of vs.pickedUp) if (value.at < cutoff) vs.pickedUp.delete(key);
  }, options.heartbeatMs ?? 5000);
  heartbeat.unref();

  let closed = false;
  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== SIGNAL_PATH) return false;
      if (closed) {
        socket.destroy();
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(vs, ws));
      return true;
    },
    mintToken(identity, ttlSeconds = 3600, sessionRef) {
      return mintVoiceToken(
        vs.secret,
        identity,
        Math.floor(vs.now() / 1000),
        ttlSeconds,
        sessionRef,
      );
    },
    disconnect(identity) {
      for (const conn of socketsOf(vs, identity))
        refuse(vs, conn, 31204, 'JWT is invalid: access withdrawn');
    },
    revokeSession(sessionRef) {
      for (const conn of [...vs.conns])
        if (conn.sessionRef === sessionRef)
          refuse(vs, conn, 31204, 'JWT is invalid: its session has ended');
    },
    isRegistered: (identity) => registeredSocketsOf(vs, identity).length > 0,
    isOnCall: (identity) => (vs.busyCount.get(identity) ?? 0) > 0,
    hold: (identity, callSid, on) => hold(vs, identity, callSid, on),
    park: (identity, callSid) => park(vs, identity, callSid),
    callOfParty: (identity, callSid) => callOfParty(vs, identity, callSid),
    transfer: (identity, callSid, to, mode) => transfer(vs, identity, callSid, to, mode),
    completeTransfer: (identity, callSid) => completeTransfer(vs, identity, callSid),
    cancelTransfer: (identity, callSid) => cancelTransfer(vs, identity, callSid),
    parked: () =>
      [...vs.calls.values()].flatMap((c) =>
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
    handleRest(req, res) {
      if (!vs.app || !(req.url ?? '').startsWith(REST_MOUNT + '/2010-04-01/')) return false;
      req.url = (req.url ?? '').slice(REST_MOUNT.length);
      void vs.app.rest(req, res);
      return true;
    },
    useApplication(application) {
      vs.app = appMode(vs, application);
    },
    activeCalls() {
      return [...vs.calls.values()].map((c) => ({
        id: c.id,
        from: c.from,
        to: c.to,
        state: c.state,
      }));
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      for (const call of [...vs.calls.values()]) {
        const answered = call.state === 'answered' || call.state === 'parked';
        endCall(
          vs,
          call,
          answered ? 'answered' : 'abandoned',
          'The server stopped.',
          answered ? parkedEnd(call) : { caller: 'hangup' },
        );
      }
      for (const conn of [...vs.conns]) {
        dropConn(vs, conn, true);
        conn.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
