/** How a `presence` map item reads to a person (PRODUCT.md: available, on a call, away, offline). */
import type { JsonObject } from '../contracts/record';

export type PresenceState = 'available' | 'onCall' | 'away' | 'offline';

export const PRESENCE_LABELS: Readonly<Record<PresenceState, string>> = {
  available: 'Available',
  onCall: 'On a call',
  away: 'Away',
  offline: 'Offline',
};

/** No item (never written, or its ttl lapsed) is Offline; the on-call flag outranks the status. */
export function presenceOf(data: JsonObject | undefined): PresenceState {
  if (data === undefined) return 'offline';
  if (data.onCall === true) return 'onCall';
  if (data.status === 'away') return 'away';
  if (data.status === 'available') return 'available';
  return 'offline';
}

/** Sort rank for the directory: reachable people first. */
export const PRESENCE_RANK: Readonly<Record<PresenceState, number>> = {
  available: 0,
  onCall: 1,
  away: 2,
  offline: 3,
};
