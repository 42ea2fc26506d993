/** A parked call as /hold lists it: the `holds` map item read by its contract, with its key. */
import type { JsonObject } from '../../../contracts/record';
import { holdRecord, type Hold } from '../../../contracts/records/hold';

/** A hold and the parked call's id (the map key). */
export type ParkedCall = Hold & { callId: string };

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

/** mm:ss since `parkedAt` (hh:mm:ss past an hour); a clock behind the parker's shows 00:00. */
export function formatWaiting(parkedAt: number, now: number): string {
  const total = Math.max(0, Math.floor((now - parkedAt) / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}
