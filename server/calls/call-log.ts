/**
 * What this server learns about a Twilio call while its webhooks arrive (who called whom, through
 * which group, who answered, whether it was forwarded or left a voicemail), turned into one `calls`
 * history item when Twilio reports the call over. Kept in memory for the call's life: with several
 * servers, Twilio's requests for one call must reach the same one (or the row says less, below).
 *
 * Also who is on a call right now, from the legs Twilio reports answered and completed: routing
 * skips them (Sync's presence item is the browser's to write, so it may not say so yet).
 */
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import type {
  CallRecord,
  Outcome,
  RoutingStep,
  TrailStep,
  Voicemail,
} from '../../src/contracts/records/call';
import type { CallQuality, RelayLeg } from '../../src/contracts/records/call-quality';

export interface CallState {
  callSid: string;
  startedAt: number;
  /** As the team sees it: a call from outside is inbound, a call from a browser outbound. */
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  /** The person who placed it (a call from a browser), or ''. */
  user: string;
  /** The placing browser's own id for it (its `Attempt` parameter), or ''. */
  attempt: string;
  /** The colleague called directly, or null. */
  callee: string | null;
  groupId: string | null;
  groupName: string;
  answeredBy: string | null;
  answeredAt: number | null;
  /** A ring or dial ended unanswered (nobody answered, or everyone declined). */
  rangOut: boolean;
  declined: boolean;
  /** The colleague called directly is in do not disturb: the call was refused for that. */
  doNotDisturb: boolean;
  /** Sent on by a forwarding rule, and where (the last one). */
  forwardedTo: string | null;
  /** The message left: its Recording SID (the id GET /api/voicemail/{id} plays) and length. */
  voicemail: Voicemail | null;
  /** The last sentence the routing gave (why voicemail, why nobody rang). */
  reason: string;
  /** False for a call this server first heard of when it ended: its outcome is not known. */
  followed: boolean;
  /** Once written: its index in `calls`, what was written (a late recording updates it), and when. */
  written: { index: number; data: CallRecord; at: number } | null;
  writing: boolean;
  /** An admin's Test this group call. */
  test: boolean;
  /** A group call's routing steps as the caller was told them (src/domain/routing/steps.ts). */
  routing: RoutingStep[];
  /** The seconds the ring under way rings (its "Nobody answered in … s." step). */
  ringSeconds: number | null;
  /** The browsers' quality reports (POST /api/calls/{sid}/quality), one per person. */
  quality: CallQuality[];
  /** Hold, park, pick-up, ring-back and transfer, in order (control.ts). */
  trail: TrailStep[];
  /** The media server's view of each browser side, from Voice Insights once ready (relay.ts). */
  relay: RelayLeg[];
}

/** Who was on a call as one of its sids: the caller's own call, or a `<Dial>` leg they answered. */
export interface Party {
  callSid: string;
  identity: string;
  at: number;
}

/** How long a call's state is kept at most (a status callback that never came). */
const KEEP_MS = 6 * 60 * 60 * 1000;
/** How long it is kept once its row is written: a recording may still be reported. */
const KEEP_WRITTEN_MS = 30 * 60 * 1000;

/** What a call's first webhook says; the rest starts empty. */
export type CallStart = Pick<CallState, 'startedAt' | 'direction' | 'from' | 'to' | 'user'> &
  Partial<Pick<CallState, 'groupId' | 'groupName' | 'reason' | 'followed' | 'attempt'>>;

export interface CallLog {
  /** The call's state, created from `start()` on its first webhook. */
  open(callSid: string, start: () => CallStart): CallState;
  get(callSid: string): CallState | undefined;
  /** A leg answered or ended: who is on a call. */
  legAnswered(identity: string, legSid: string): void;
  /**
   * A leg ended. `identity`, when the leg was a colleague's (the webhook's client address): one this
   * server did not know (it started before a restart, or another server carried it) still has their
   * "On a call" looked at again, since it may be this leg's (on-call.ts decides with Twilio).
   */
  legEnded(legSid: string, identity?: string | null): void;
  isOnCall: (identity: string) => boolean;
  /** Whether Twilio reported leg `legSid` over to this server (in the last six hours). */
  hasEnded(legSid: string): boolean;
  /**
   * Whether a status callback is to be taken: false when one of the same stream (`stream`: the
   * callback's path and CallSid) with this `SequenceNumber` or a later one was taken already. Twilio
   * numbers a call's callbacks in the order the events were fired, but "there is no guarantee they
   * will arrive in the same order" (https://www.twilio.com/docs/voice/api/call-resource#statuscallbackevent),
   * and one may come twice. A callback without a number is taken.
   */
  inOrder(stream: string, sequence: string | undefined): boolean;
  /** Notes that `identity` is on call `callSid` as `sid` (their browser's id for it). */
  party(sid: string, callSid: string, identity: string): void;
  /** Who was on a call as `sid`, for an hour after. */
  partyOf(sid: string): Party | undefined;
  /** Everyone noted on call `callSid`, each with the sid they were on it as, first noted first. */
  partiesOf(callSid: string): (Party & { sid: string })[];
  /** Forgets ended calls' state and stale legs. */
  sweep(): void;
  /**
   * Hands each live call's row as it stands, when it changed, to the journal (while the voice twin
   * runs in this process: a call the server dies with gets its row at the next start), and tells it
   * which calls got their real row since. Called after every webhook and call control.
   */
  checkpoint(): void;
  /** Calls this server is following now. */
  size(): number;
}

/** Where live calls' rows are kept until their real one is written (server/calls/journal.ts). */
export interface LiveCallJournal {
  keep(row: CallRecord): void;
  forget(callSid: string): void;
}

export function createCallLog(
  now: () => number = Date.now,
  /** Someone's first call began or their last ended (presence says "On a call"). */
  onBusyChanged: (identity: string) => void = () => {},
  journal: LiveCallJournal | null = null,
): CallLog {
  const calls = new Map<string, CallState>();
  /** What the journal holds for each call, as compared (the row without its moving end). */
  const kept = new Map<string, string>();
  const unkeep = (callSid: string): void => {
    if (kept.delete(callSid)) journal?.forget(callSid);
  };
  /** Leg sid → who is on it, and since when. */
  const legs = new Map<string, { identity: string; at: number }>();
  const busy = new Map<string, number>();
  const parties = new Map<string, Party>();
  /** Legs reported over, and when. */
  const ended = new Map<string, number>();
  /** The highest SequenceNumber taken per callback stream, and when. */
  const sequences = new Map<string, { n: number; at: number }>();
  const legEnded = (legSid: string, identity?: string | null): void => {
    ended.set(legSid, now());
    const leg = legs.get(legSid);
    if (!leg) {
      if (identity && !busy.has(identity)) onBusyChanged(identity);
      return;
    }
    legs.delete(legSid);
    const left = (busy.get(leg.identity) ?? 1) - 1;
    if (left <= 0) {
      busy.delete(leg.identity);
      onBusyChanged(leg.identity);
    } else busy.set(leg.identity, left);
  };

  return {
    open(callSid, start) {
      let state = calls.get(callSid);
      if (!state) {
        state = {
          callee: null,
          attempt: '',
          groupId: null,
          groupName: '',
          answeredBy: null,
          answeredAt: null,
          rangOut: false,
          declined: false,
          doNotDisturb: false,
          forwardedTo: null,
          voicemail: null,
          reason: '',
          followed: true,
          ...start(),
          callSid,
          written: null,
          writing: false,
          quality: [],
          trail: [],
          relay: [],
          routing: [],
          ringSeconds: null,
          test: false,
        };
        calls.set(callSid, state);
      }
      return state;
    },
    get: (callSid) => calls.get(callSid),
    legAnswered(identity, legSid) {
      // A leg reported over is never on a call again: its answer arrived late.
      if (legs.has(legSid) || ended.has(legSid)) return;
      legs.set(legSid, { identity, at: now() });
      busy.set(identity, (busy.get(identity) ?? 0) + 1);
      if (busy.get(identity) === 1) onBusyChanged(identity);
    },
    legEnded,
    isOnCall: (identity) => busy.has(identity),
    hasEnded: (legSid) => ended.has(legSid),
    inOrder(stream, sequence) {
      const n = Number(sequence);
      if (sequence === undefined || sequence === '' || !Number.isSafeInteger(n)) return true;
      const taken = sequences.get(stream);
      if (taken && n <= taken.n) return false;
      sequences.set(stream, { n, at: now() });
      return true;
    },
    party(sid, callSid, identity) {
      if (!parties.has(sid)) parties.set(sid, { callSid, identity, at: now() });
    },
    partyOf: (sid) => parties.get(sid),
    partiesOf: (callSid) =>
      [...parties].flatMap(([sid, p]) => (p.callSid === callSid ? [{ ...p, sid }] : [])),
    sweep() {
      for (const [sid, p] of parties) if (p.at < now() - KEEP_MS) parties.delete(sid);
      const cutoff = now() - KEEP_MS;
      for (const [sid, state] of calls)
        if (
          state.startedAt < cutoff ||
          (state.written && state.written.at < now() - KEEP_WRITTEN_MS)
        ) {
          calls.delete(sid);
          unkeep(sid);
        }
      for (const [sid, leg] of legs) if (leg.at < cutoff) legEnded(sid);
      for (const [sid, at] of ended) if (at < cutoff) ended.delete(sid);
      for (const [stream, taken] of sequences) if (taken.at < cutoff) sequences.delete(stream);
    },
    size: () => calls.size,
    checkpoint() {
      if (!journal) return;
      for (const state of calls.values()) {
        if (state.written) {
          unkeep(state.callSid);
          continue;
        }
        // A row being written is kept as it was until it is (a write retried later may not be).
        if (state.writing || !state.followed) continue;
        const row = historyItem(state, state.startedAt, '');
        const compared = JSON.stringify(row);
        if (kept.get(state.callSid) === compared) continue;
        kept.set(state.callSid, compared);
        journal.keep(row);
      }
    },
  };
}

/**
 * The `calls` item for a finished call (src/contracts/records/call.ts), on every backend, with the
 * group's id in `group` and its name then in `groupName`. `endedAt` is when Twilio reported it
 * over; `duration` is the talk time (seconds from the answer), 0 when nobody answered. A call this
 * server did not follow from its start has the outcome `unknown`.
 */
export function historyItem(state: CallState, endedAt: number, parentStatus: string): CallRecord {
  const answeredAt = state.answeredAt;
  return {
    callSid: state.callSid,
    attempt: state.attempt,
    direction: state.direction,
    from: state.from,
    to: state.to,
    user: state.user,
    callee: state.callee,
    group: state.groupId,
    groupName: state.groupId === null ? null : state.groupName || null,
    handledBy: state.answeredBy,
    trail: state.trail,
    startedAt: state.startedAt,
    answeredAt,
    endedAt,
    duration: answeredAt === null ? 0 : Math.max(0, Math.round((endedAt - answeredAt) / 1000)),
    outcome: state.followed ? outcomeOf(state, parentStatus) : 'unknown',
    // A message left is the reason given ("Left a voicemail (N s).").
    reason:
      state.followed && state.answeredBy === null && state.voicemail
        ? CALL_REASONS.leftVoicemail(state.voicemail.seconds)
        : state.reason,
    routing: state.routing,
    voicemail: state.voicemail,
    forwardedTo: state.forwardedTo,
    test: state.test,
    quality: state.quality,
    relay: state.relay,
  };
}

function outcomeOf(state: CallState, parentStatus: string): Outcome {
  // Refused with <Reject reason="busy">, so Twilio reports the call busy: it was their wish, not a line.
  if (state.doNotDisturb) return 'doNotDisturb';
  if (parentStatus === 'busy') return 'busy';
  if (parentStatus === 'failed') return 'failed';
  if (state.answeredBy !== null)
    return state.forwardedTo !== null && state.answeredBy === state.forwardedTo
      ? 'forwarded'
      : 'answered';
  if (state.voicemail) return 'voicemail';
  if (state.declined && state.callee !== null) return 'rejected';
  if (state.rangOut || parentStatus === 'no-answer') return 'missed';
  return 'abandoned';
}
