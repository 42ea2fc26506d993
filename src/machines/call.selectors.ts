import type { SnapshotFrom } from 'xstate';
import type { callMachine } from './call.machine';
import { describeEndReason, type CallEndReason, type Remote } from './call.types';
import type { CallDirection, RoutingNote } from './call.setup';
import { CALL_PARAMETERS, PLACED_CALL_PARAMETERS } from '../contracts/call-parameters';

type CallSnapshot = SnapshotFrom<typeof callMachine>;

export type CallStatus =
  'connecting' | 'ringing' | 'incoming' | 'answering' | 'open' | 'reconnecting' | 'ended';

/** One word for the call's screen: `ringing` is their phone ringing, `incoming` ours. */
export function selectCallStatus(s: CallSnapshot): CallStatus {
  if (s.matches('ended')) return 'ended';
  if (s.matches({ open: { link: 'reconnecting' } })) return 'reconnecting';
  if (s.matches('open')) return 'open';
  if (s.matches({ incoming: 'answering' })) return 'answering';
  if (s.matches('incoming')) return 'incoming';
  if (s.matches({ outgoing: 'ringing' })) return 'ringing';
  return 'connecting';
}

export const selectCallId = (s: CallSnapshot): string => s.context.callId;
export const selectCallDirection = (s: CallSnapshot): CallDirection => s.context.direction;
export const selectCallRemote = (s: CallSnapshot): Remote => s.context.remote;
export const selectCallLive = (s: CallSnapshot): boolean => s.hasTag('live');
export const selectCallMuted = (s: CallSnapshot): boolean =>
  s.matches({ open: { audio: 'muted' } });
export type HoldStatus = 'off' | 'holding' | 'onHold' | 'resuming';
/** Whether we hold the other side: asking, holding, or asking to resume. */
export function selectCallHold(s: CallSnapshot): HoldStatus {
  for (const h of ['holding', 'onHold', 'resuming'] as const)
    if (s.matches({ open: { hold: h } })) return h;
  return 'off';
}
/** Whether they put us on hold (or parked us). */
export const selectCallHeldByThem = (s: CallSnapshot): boolean =>
  s.matches({ open: { them: 'holdingUs' } });
export const selectCallParking = (s: CallSnapshot): boolean =>
  s.matches({ open: { park: 'parking' } });
export type TransferStatus = 'idle' | 'sending' | 'consulting' | 'completing' | 'cancelling';
export function selectCallTransferStatus(s: CallSnapshot): TransferStatus {
  for (const t of ['sending', 'consulting', 'completing', 'cancelling'] as const)
    if (s.matches({ open: { transfer: t } })) return t;
  return 'idle';
}
export const selectCallProblem = (s: CallSnapshot): string | null => s.context.problem;
/** A ring group call's routing decisions so far (the same array until one is added). */
export const selectCallRouting = (s: CallSnapshot): readonly RoutingNote[] => s.context.routing;
/** The SDK's quality warnings active now (the same array until one is raised or cleared). */
export const selectCallWarnings = (s: CallSnapshot): readonly string[] => s.context.warnings;
export const selectCallDigits = (s: CallSnapshot): string => s.context.digits;
export const selectCallEndReason = (s: CallSnapshot): CallEndReason | null => s.context.endReason;
/** Why the call ended, in a sentence; null while it is live. */
export const selectCallEndMessage = (s: CallSnapshot): string | null =>
  s.context.endReason === null ? null : describeEndReason(s.context.endReason);

/**
 * Time in call (ms) at `now` (the view clock): from answer to end, or to `now` while open; null
 * when the call was never answered.
 */
export const selectCallDuration =
  (now: number) =>
  (s: CallSnapshot): number | null =>
    s.context.answeredAt === null
      ? null
      : Math.max(0, (s.context.endedAt ?? now) - s.context.answeredAt);

/** Codes a refused call ends with (not found, unavailable, busy, declined): its text is shown. */
const SERVICE_SENTENCE_CODES: readonly number[] = [31404, 31480, 31486, 31603];

/**
 * End reasons the SDK reports without saying why (only a code, or a plain hang-up): the call's
 * history row may say better.
 */
const UNEXPLAINED_ENDS: readonly CallEndReason[] = [
  'hungUpByThem',
  'noAnswer',
  'busy',
  'declined',
  'notFound',
  'failed',
  'gatewayError',
];

/**
 * Whether the call ended for a reason the SDK cannot put in the person's words: the history row's
 * sentence is then shown (the SDK has only a code or Twilio's title, "Busy Here", on every
 * backend).
 */
export function selectCallEndUnexplained(s: CallSnapshot): boolean {
  const reason = s.context.endReason;
  return reason !== null && UNEXPLAINED_ENDS.includes(reason);
}

/**
 * Why the call ended as the person should read it: the SDK's message for a refused call's code
 * (Twilio's title, "Busy Here") when it gave one, else the end reason's; null while the call is
 * live. The card shows the history row's sentence over it once the row is in
 * (src/ui/phone/rowReason.ts).
 */
export function selectCallEndText(s: CallSnapshot): string | null {
  if (s.context.endReason === null) return null;
  const error = s.context.error;
  if (error && error.code !== null && SERVICE_SENTENCE_CODES.includes(error.code) && error.message)
    return error.message;
  return describeEndReason(s.context.endReason);
}

/**
 * Everything a call's card shows, as plain data: what the tab holding the phone sends to the
 * person's other tabs, and what the card itself renders.
 */
export interface CallSummary {
  callId: string;
  /** The call's CallSid once known (call.setup.ts `sid`). */
  sid: string | null;
  /** The browser's own id for a call it placed (its `Attempt` parameter), or null. */
  attempt: string | null;
  direction: CallDirection;
  status: CallStatus;
  remote: Remote;
  muted: boolean;
  hold: HoldStatus;
  heldByThem: boolean;
  parking: boolean;
  /** Why the last hold, resume, park or transfer was refused (or ended). */
  problem: string | null;
  transferStatus: TransferStatus;
  /** Who the transfer under way goes to, how, and whether they answered. */
  transfer: { to: string; mode: 'blind' | 'consult'; answered: boolean } | null;
  digits: string;
  /** Epoch ms (the provided clock) when answered / ended, or null. */
  answeredAt: number | null;
  endedAt: number | null;
  endText: string | null;
  /** The end text is the SDK's generic one: the history row's sentence is shown instead once there. */
  endUnexplained: boolean;
  /** A ring group call's latest routing decision, in words (outgoing). */
  routingNote: string | null;
  /** The ring group an incoming call came through. */
  group: string | null;
  /**
   * Why an incoming call rings again, when it is a call coming back (a park that waited too long, a
   * transfer nobody took): the server's sentence (a call parameter), or a plain one when it gave
   * none.
   */
  ringBack: string | null;
  /** The SDK's quality warnings active now (`high-rtt`, `low-mos`, …). */
  warnings: readonly string[];
}

export function selectCallSummary(s: CallSnapshot): CallSummary {
  return {
    callId: s.context.callId,
    sid: s.context.sid,
    attempt:
      s.context.direction === 'outgoing'
        ? (s.context.params[PLACED_CALL_PARAMETERS.attempt] ?? null)
        : null,
    direction: s.context.direction,
    status: selectCallStatus(s),
    remote: s.context.remote,
    muted: selectCallMuted(s),
    hold: selectCallHold(s),
    heldByThem: selectCallHeldByThem(s),
    parking: selectCallParking(s),
    problem: s.context.problem,
    transferStatus: selectCallTransferStatus(s),
    transfer: s.context.transfer,
    digits: s.context.digits,
    answeredAt: s.context.answeredAt,
    endedAt: s.context.endedAt,
    endText: selectCallEndText(s),
    endUnexplained: selectCallEndUnexplained(s),
    routingNote: s.context.routing.at(-1)?.text ?? null,
    group:
      s.context.direction === 'incoming' ? (s.context.params[CALL_PARAMETERS.group] ?? null) : null,
    ringBack: ringBackOf(s.context.direction, s.context.params),
    warnings: s.context.warnings,
  };
}

function ringBackOf(direction: CallDirection, params: Record<string, string>): string | null {
  if (direction !== 'incoming' || params[CALL_PARAMETERS.ringBack] !== '1') return null;
  const reason = params[CALL_PARAMETERS.ringBackReason]?.trim();
  return reason ? reason : 'A call coming back to you';
}

/** Two summaries show the same card. */
export function sameCallSummary(a: CallSummary, b: CallSummary): boolean {
  return (
    a.callId === b.callId &&
    a.sid === b.sid &&
    a.attempt === b.attempt &&
    a.direction === b.direction &&
    a.status === b.status &&
    a.remote.identity === b.remote.identity &&
    a.remote.number === b.remote.number &&
    a.remote.displayName === b.remote.displayName &&
    a.muted === b.muted &&
    a.hold === b.hold &&
    a.heldByThem === b.heldByThem &&
    a.parking === b.parking &&
    a.problem === b.problem &&
    a.transferStatus === b.transferStatus &&
    a.transfer?.to === b.transfer?.to &&
    a.transfer?.mode === b.transfer?.mode &&
    a.transfer?.answered === b.transfer?.answered &&
    a.digits === b.digits &&
    a.answeredAt === b.answeredAt &&
    a.endedAt === b.endedAt &&
    a.endText === b.endText &&
    a.endUnexplained === b.endUnexplained &&
    a.routingNote === b.routingNote &&
    a.group === b.group &&
    a.ringBack === b.ringBack &&
    a.warnings.length === b.warnings.length &&
    a.warnings.every((w, i) => b.warnings[i] === w)
  );
}

/** Time in call (ms) at `now` for a summary: from answer to end (or now); null if never answered. */
export function summaryDuration(summary: CallSummary, now: number): number | null {
  return summary.answeredAt === null
    ? null
    : Math.max(0, (summary.endedAt ?? now) - summary.answeredAt);
}
