/**
 * How a `presence` map item reads to a person (PRODUCT.md: available, on a call, away, offline; and
 * do not disturb). Away and do not disturb take a person out of group calls (the routing plan skips
 * them); do not disturb also turns direct calls away.
 */
import type { JsonObject } from '../contracts/record';
import { presenceRecord } from '../contracts/records/presence';

export type PresenceState = 'available' | 'onCall' | 'away' | 'doNotDisturb' | 'offline';

export const PRESENCE_LABELS: Readonly<Record<PresenceState, string>> = {
  available: 'Available',
  onCall: 'On a call',
  away: 'Away',
  doNotDisturb: 'Do not disturb',
  offline: 'Offline',
};

/** Whether group calls ring them (only when available). */
export function ringsForGroups(state: PresenceState): boolean {
  return state === 'available';
}

/**
 * No item (never written, or its ttl lapsed) is Offline; the on-call flag outranks do not disturb,
 * which outranks the status; a status the contract does not know reads as Offline rather than a guess.
 */
export function presenceOf(data: JsonObject | undefined): PresenceState {
  if (data === undefined) return 'offline';
  const { value, issues } = presenceRecord.decode(data);
  if (value.onCall) return 'onCall';
  if (value.doNotDisturb) return 'doNotDisturb';
  if (issues.some((issue) => issue.field === 'status')) return 'offline';
  return value.status;
}

/** Sort rank for the directory: reachable people first. */
export const PRESENCE_RANK: Readonly<Record<PresenceState, number>> = {
  available: 0,
  onCall: 1,
  away: 2,
  doNotDisturb: 3,
  offline: 4,
};
