/**
 * One item of the `calls` list as /history shows it: read by the call's contract
 * (src/contracts/records/call.ts), with what the contract could not read as stored shown as
 * unknown: a direction, an outcome, a time or a duration that was dropped or breaks a rule reads
 * as null, a voicemail that is not one as none. The trail is kept whole (its first 50 steps).
 */
import type { JsonObject } from '../../../contracts/record';
import {
  callRecord,
  type CallRecord,
  type Direction,
  type Outcome,
} from '../../../contracts/records/call';
import type { ListItem } from '../../../machines/syncPorts';
import { formatDuration as timeText } from '../../components/duration';

export type { Direction, Outcome } from '../../../contracts/records/call';

/** The fields shown as unknown (null) when the stored value could not be read as it should. */
type MaybeUnknown =
  'direction' | 'outcome' | 'startedAt' | 'answeredAt' | 'endedAt' | 'duration' | 'voicemail';

/** A call in the list: its record, its position, and null for what could not be read. */
export type Call = Omit<CallRecord, MaybeUnknown> & {
  index: number;
  direction: Direction | null;
  outcome: Outcome | null;
  /** Epoch ms, or null when absent or unreadable. */
  startedAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  /** Seconds. */
  duration: number | null;
  /** The message the caller left, if any: its id (for /api/voicemail/{id}) and length. */
  voicemail: CallRecord['voicemail'];
};

export function callFromData(index: number, data: JsonObject): Call {
  const { value, issues } = callRecord.decode(data);
  const unreadable = new Set(issues.map((issue) => issue.field.split('.')[0]));
  const known = <K extends MaybeUnknown>(field: K): CallRecord[K] | null =>
    unreadable.has(field) ? null : value[field];
  return {
    ...value,
    index,
    direction: known('direction'),
    outcome: known('outcome'),
    startedAt: known('startedAt'),
    answeredAt: known('answeredAt') ?? null,
    endedAt: known('endedAt'),
    duration: known('duration'),
    voicemail: known('voicemail') ?? null,
    trail: value.trail.slice(0, 50),
  };
}

const cache = new WeakMap<ListItem, Call>();

/** Parsed once per list item object (replaced only when that item changes). */
export function callOf(item: ListItem): Call {
  let call = cache.get(item);
  if (!call) {
    call = callFromData(item.index, item.data);
    cache.set(item, call);
  }
  return call;
}

export const FILTERS = ['all', 'inbound', 'outbound', 'missed', 'voicemail'] as const;
export type Filter = (typeof FILTERS)[number];

/** The `filter` query parameter; anything unknown means all calls. */
export function filterFrom(value: string | null): Filter {
  return (FILTERS as readonly string[]).includes(value ?? '') ? (value as Filter) : 'all';
}

export function passes(call: Call, filter: Filter, me: string | null = null): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'inbound':
    case 'outbound':
      return directionFor(call, me) === filter;
    case 'missed':
      // Nobody answered: a message left is a missed call too.
      return call.outcome === 'missed' || call.outcome === 'voicemail' || call.voicemail !== null;
    case 'voicemail':
      return call.voicemail !== null || call.outcome === 'voicemail';
  }
}

/** "4:05", "1:02:03" (the one time format, see components/duration.ts); null for an unknown duration. */
export function formatDuration(seconds: number | null): string | null {
  return seconds === null ? null : timeText(Math.round(seconds) * 1000);
}

/**
 * Whether the call was placed by a colleague from a browser: the server writes such a call's `from`
 * as its `user`.
 */
export const placedByColleague = (call: Call) => call.user !== '' && call.from === call.user;

/**
 * The call's direction as `me` sees it: a call to a colleague (it names a callee) or to a ring group
 * placed by a colleague is inbound to everyone but the one who placed it; other calls keep the
 * direction they were written with.
 */
export function directionFor(call: Call, me: string | null): Direction | null {
  if (call.direction === null) return null;
  if (call.callee && !call.group) return call.callee === me ? 'inbound' : 'outbound';
  if (call.group && placedByColleague(call)) return call.user === me ? 'outbound' : 'inbound';
  return call.direction;
}
