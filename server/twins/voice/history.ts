/**
 * What the twin tells the app about calls: a finished call's history row (the call record both
 * backends write, src/contracts/records/call.ts), and who is on a call (presence).
 */
import { CALL_REASONS } from '../../../src/domain/calls/reasons';
import { CallControlError, sid, type Call, type VoiceState } from './model';
import { finishRecording } from './voicemail';
import {
  DROPPED_REASON,
  type CallRecord,
  type Outcome,
  type TrailStep,
} from '../../../src/contracts/records/call';
import type { RelayLeg } from '../../../src/contracts/records/call-quality';

/** Counts a person's live calls; presence hears when the count goes from or to zero. */
export function setBusy(vs: VoiceState, identity: string, delta: number): void {
  const before = vs.busyCount.get(identity) ?? 0;
  const after = Math.max(0, before + delta);
  if (after === 0) vs.busyCount.delete(identity);
  else vs.busyCount.set(identity, after);
  if ((before === 0) !== (after === 0)) vs.options.onBusyChanged?.(identity, after > 0);
}

/** The row a call has now if it ends with `outcome` at `endedAt` (a message left, if any). */
function rowOf(
  call: Call,
  outcome: Outcome,
  reason: string,
  endedAt: number,
  message: CallRecord['voicemail'],
): CallRecord {
  return {
    callSid: call.id,
    direction: 'outbound',
    from: call.from,
    to: call.to,
    user: call.from,
    callee: call.callee,
    group: call.route?.groupId ?? null,
    groupName: call.route?.groupName ?? null,
    handledBy: call.answeredAt === null ? null : call.handledBy,
    trail: [...call.trail],
    startedAt: call.startedAt,
    answeredAt: call.answeredAt,
    endedAt,
    duration: call.answeredAt === null ? 0 : Math.round((endedAt - call.answeredAt) / 1000),
    outcome,
    reason,
    routing: [...(call.route?.steps ?? [])],
    voicemail: message,
    forwardedTo: null,
    test: call.route?.test ?? false,
    quality: [],
    relay: [],
  };
}

/**
 * Tells `onCallProgress` what is known of a live call now (who, when it started, answered or not,
 * its group, routing and trail so far), as the row it gets if the server dies: called, synchronously,
 * after each change worth keeping and before anyone is told of it.
 */
export function noteProgress(vs: VoiceState, call: Call): void {
  if (call.state === 'ended' || !vs.options.onCallProgress) return;
  try {
    vs.options.onCallProgress(rowOf(call, 'dropped', DROPPED_REASON, vs.now(), null));
  } catch (err) {
    vs.log(`voice: keeping call ${call.id} in the journal failed: ${String(err)}`);
  }
}

/** A step of the call's trail (hold, resume, park, pick-up, transfer, ring-back), kept at once. */
export function addTrail(vs: VoiceState, call: Call, step: TrailStep): void {
  call.trail.push(step);
  noteProgress(vs, call);
}

/**
 * A finished call's history row, handed to `onCallEnded`: what it was, who had it, its trail and,
 * for a ring group's call, its routing and any message left (a message being left is kept now:
 * the caller hanging up is how a message ends).
 */
export function recordEnd(vs: VoiceState, call: Call, outcome: Outcome, reason: string): void {
  const message = call.route ? finishRecording(vs, call) : null;
  let finalOutcome = outcome;
  let finalReason = reason;
  if (message && call.answeredAt === null) {
    finalOutcome = 'voicemail';
    finalReason = CALL_REASONS.leftVoicemail(message.seconds);
  } else if (
    (call.route?.steps.at(-1)?.kind === 'voicemail' ||
      call.route?.steps.at(-1)?.kind === 'recording') &&
    (outcome === 'abandoned' || outcome === 'voicemail')
  ) {
    finalOutcome = 'missed';
    finalReason = CALL_REASONS.noMessage;
  }
  try {
    vs.options.onCallEnded?.({
      ...rowOf(call, finalOutcome, finalReason, vs.now(), message),
      relay: relayView(call),
    });
  } catch (err) {
    vs.log(`voice: recording call ${call.id} failed: ${String(err)}`);
  }
}

/** The relay's count of each side's audio (legs keep their counts once closed). */
function relayView(call: Call): RelayLeg[] {
  const sides = [
    ['caller', call.caller],
    ['callee', call.calleeSide],
  ] as const;
  return sides.flatMap(([side, s]) =>
    s.leg
      ? [
          {
            side,
            identity: s.identity ?? '',
            received: s.leg.packetsIn,
            sent: s.leg.packetsOut,
            lostAtBrowser: Math.max(0, s.leg.lostAtBrowser),
            codec: s.leg.codec,
          },
        ]
      : [],
  );
}

/** A call that ended before it was set up (nobody to ring): its row, with nothing but why. */
export function recordAttempt(
  vs: VoiceState,
  attempt: { caller: string; to: string; startedAt: number },
  outcome: Outcome,
  reason: string,
  callee: string | null,
): void {
  const { caller, to, startedAt } = attempt;
  try {
    vs.options.onCallEnded?.({
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
      endedAt: vs.now(),
      duration: 0,
      outcome,
      reason,
      routing: [],
      voicemail: null,
      forwardedTo: null,
      test: false,
      quality: [],
      relay: [],
    });
  } catch (err) {
    vs.log(`voice: recording a failed call failed: ${String(err)}`);
  }
}

/**
 * The id of the call `identity` was on as `callSid` (the id of its history row), for a quality
 * report: a live call they are on (their report may come before the hangup does), or one that ended
 * in the last minute with them on it. Throws {@link CallControlError}: 403 when they were not on
 * it, 404 when no call is known by that id.
 */
export function callOfParty(vs: VoiceState, identity: string, callSid: string): string {
  const live = vs.bySid.get(callSid);
  if (live) {
    const people = [
      live.from,
      live.callee,
      live.handledBy,
      live.caller.identity,
      live.calleeSide.identity,
      live.transfer?.party?.identity,
    ];
    if (people.includes(identity)) return live.id;
    throw new CallControlError(403, 'not_your_call', 'You were not on this call.');
  }
  const ended = vs.ended.get(callSid);
  if (ended && ended.callId !== '') {
    if (ended.people.has(identity)) return ended.callId;
    throw new CallControlError(403, 'not_your_call', 'You were not on this call.');
  }
  throw new CallControlError(404, 'no_such_call', 'No call is known by that id.');
}
