/** A parked call as /hold lists it: the `holds` map item read by its contract, with its key. */
import type { JsonObject } from '../../../contracts/record';
import { holdRecord, type ParkedCall } from '../../../contracts/records/hold';
import { formatDuration } from '../../components/duration';

/**
 * The hold in an item's data, or null when the data is not a hold (no caller or no time: it is
 * then not listed). An ISO 8601 `parkedAt` reads as its instant.
 */
export function holdFrom(callId: string, data: JsonObject): ParkedCall | null {
  const hold = holdRecord.read(data);
  if (hold === null) return null;
  return {
    callId,
    ...hold,
    caller: hold.caller.trim(),
    claimedBy: hold.claimedBy === '' ? null : hold.claimedBy,
  };
}

/** Time waiting since `parkedAt`, as every timer reads (m:ss); a clock behind the parker's shows 0:00. */
export function formatWaiting(parkedAt: number, now: number): string {
  return formatDuration(now - parkedAt);
}
