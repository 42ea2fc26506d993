import type { SnapshotFrom } from 'xstate';
import type { callMachine, CallDirection } from './call.machine';
import { describeEndReason, type CallEndReason, type Remote } from './call.types';

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
