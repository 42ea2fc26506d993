/**
 * A call's history row brought up to what was reported after it was written: the browsers' quality
 * reports (quality.ts), a recording (progress.ts) and the media server's view (relay.ts). A report that comes while the row is being
 * appended is added once the append returns (fallback.ts `createRowWriter`), and the updates of one
 * row go out one after another, so the last one written is the one with every report.
 */
import { CALLS } from '../../src/contracts/objects';
import type { CallRecord } from '../../src/contracts/records/call';
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import type { CallState } from './call-log';
import type { SyncRest } from '../twilio/sync-rest';

/** `row` with the call's reports as they are now. */
export function amendedRow(row: CallRecord, state: CallState): CallRecord {
  const voicemail = state.voicemail ?? row.voicemail;
  return {
    ...row,
    quality: state.quality,
    relay: state.relay,
    voicemail,
    // A message left on a call nobody answered makes it a voicemail call.
    ...(voicemail && row.handledBy === null && ['abandoned', 'missed'].includes(row.outcome)
      ? { outcome: 'voicemail' as const, reason: CALL_REASONS.leftVoicemail(voicemail.seconds) }
      : {}),
  };
}

/** True when the row as written lacks a report the call has now. */
export const rowBehind = (row: CallRecord, state: CallState): boolean =>
  row.quality !== state.quality ||
  row.relay !== state.relay ||
  (state.voicemail?.id ?? null) !== (row.voicemail?.id ?? null);

const queues = new WeakMap<CallState, Promise<void>>();

/** Updates the written row of `state` to its reports, after any update of it still under way. */
export function createRowAmender(deps: { rest: SyncRest; log: (message: string) => void }) {
  return function amend(state: CallState): Promise<void> {
    if (!state.written) return Promise.resolve(); // being written: the writer amends it after
    const { index, data, at } = state.written;
    if (!rowBehind(data, state)) return queues.get(state) ?? Promise.resolve();
    const updated = amendedRow(data, state);
    state.written = { index, data: updated, at };
    const next = (queues.get(state) ?? Promise.resolve())
      .then(() => deps.rest.updateListItem(CALLS.name, index, updated))
      .then(
        () => undefined,
        (err: unknown) =>
          deps.log(
            `call ${state.callSid}: updating its history row failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
      );
    queues.set(state, next);
    return next;
  };
}
