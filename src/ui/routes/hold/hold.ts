/** The `holds` map item (PRODUCT.md: caller, parked by, parked at), read defensively. */
import type { JsonObject } from '../../../machines/syncPorts';

export interface Hold {
  /** The map key: the parked call's id. */
  callId: string;
  /** Who is waiting: a name or a number. */
  caller: string;
  /** The identity of whoever parked the call. */
  parkedBy: string;
  /** Epoch milliseconds. */
  parkedAt: number;
  /** Set by the pick-up claim; the winner removes the item right after. */
  claimedBy: string | null;
}

/** `parkedAt` is epoch milliseconds; an ISO 8601 string is accepted too. */
function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** The hold in an item's data, or null when the data is not a hold (it is then not listed). */
export function holdFrom(callId: string, data: JsonObject): Hold | null {
  const { caller, parkedBy, parkedAt, claimedBy } = data;
  const at = timeOf(parkedAt);
  if (typeof caller !== 'string' || caller.trim() === '' || at === null) return null;
  return {
    callId,
    caller: caller.trim(),
    parkedBy: typeof parkedBy === 'string' ? parkedBy : '',
    parkedAt: at,
    claimedBy: typeof claimedBy === 'string' && claimedBy !== '' ? claimedBy : null,
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
