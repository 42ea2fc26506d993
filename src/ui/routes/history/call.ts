/**
 * One item of the `calls` list, read defensively (other clients and later features write it):
 * a field of the wrong type reads as absent, an unknown direction or outcome as "unknown".
 */
import type { JsonObject, ListItem } from '../../../machines/syncPorts';

export type Direction = 'inbound' | 'outbound';
export type Outcome =
  'answered' | 'missed' | 'forwarded' | 'abandoned' | 'rejected' | 'busy' | 'failed' | 'voicemail';

export interface Call {
  index: number;
  direction: Direction | null;
  from: string;
  to: string;
  user: string;
  /** The colleague who was called (calls between people), or ''. */
  callee: string;
  /** The ring group dialled (its id), or ''. */
  group: string;
  /** That group's name when the call was made, or ''. */
  groupName: string;
  /** The message the caller left, if any: its id (for /api/voicemail/{id}) and length. */
  voicemail: { id: string; seconds: number } | null;
  /** Epoch ms, or null when absent or unreadable. */
  startedAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  /** Seconds. */
  duration: number | null;
  outcome: Outcome | null;
  /** Who had the call last (a picker after a park), or ''. */
  handledBy: string;
  /** What happened after the answer: parked, picked up, rung back (holds are left out). */
  trail: TrailStep[];
}

export interface TrailStep {
  action: 'parked' | 'pickedUp' | 'rangBack' | 'transferred';
  by: string;
  /** For `transferred`: who took the call. */
  to?: string;
}

const TRAIL_ACTIONS: readonly string[] = ['parked', 'pickedUp', 'rangBack', 'transferred'];

function trailOf(value: unknown): TrailStep[] {
  if (!Array.isArray(value)) return [];
  const steps: TrailStep[] = [];
  for (const step of value.slice(0, 50)) {
    if (typeof step !== 'object' || step === null) continue;
    const { action, by, to } = step as { action?: unknown; by?: unknown; to?: unknown };
    if (typeof action === 'string' && TRAIL_ACTIONS.includes(action) && typeof by === 'string')
      steps.push({
        action: action as TrailStep['action'],
        by,
        ...(typeof to === 'string' ? { to } : {}),
      });
  }
  return steps;
}

const TRAIL_TEXT: Record<Exclude<TrailStep['action'], 'transferred'>, string> = {
  parked: 'Parked by',
  pickedUp: 'Picked up by',
  rangBack: 'Rang back to',
};

/** The trail as a person reads it: "Parked by bob@… · Picked up by cat@…". */
export function describeTrail(trail: readonly TrailStep[]): string {
  return trail
    .map((step) =>
      step.action === 'transferred'
        ? `Transferred to ${step.to ?? 'someone'} by ${step.by}`
        : `${TRAIL_TEXT[step.action]} ${step.by}`,
    )
    .join(' · ');
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function time(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value !== '') {
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

const OUTCOMES: readonly string[] = [
  'answered',
  'missed',
  'forwarded',
  'abandoned',
  'rejected',
  'busy',
  'failed',
  'voicemail',
];

function voicemailOf(value: unknown): Call['voicemail'] {
  if (typeof value !== 'object' || value === null) return null;
  const { id, seconds } = value as { id?: unknown; seconds?: unknown };
  return typeof id === 'string' &&
    /^vm-[a-z0-9]{16}$/.test(id) &&
    typeof seconds === 'number' &&
    Number.isFinite(seconds) &&
    seconds >= 0
    ? { id, seconds }
    : null;
}

export function callFromData(index: number, data: JsonObject): Call {
  const duration = data.duration;
  return {
    index,
    direction:
      data.direction === 'inbound' || data.direction === 'outbound' ? data.direction : null,
    from: text(data.from),
    to: text(data.to),
    user: text(data.user),
    callee: text(data.callee),
    group: text(data.group),
    groupName: text(data.groupName),
    voicemail: voicemailOf(data.voicemail),
    startedAt: time(data.startedAt),
    answeredAt: time(data.answeredAt),
    endedAt: time(data.endedAt),
    duration:
      typeof duration === 'number' && Number.isFinite(duration) && duration >= 0 ? duration : null,
    outcome:
      typeof data.outcome === 'string' && OUTCOMES.includes(data.outcome)
        ? (data.outcome as Outcome)
        : null,
    handledBy: text(data.handledBy),
    trail: trailOf(data.trail),
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

export const FILTERS = ['all', 'inbound', 'outbound', 'missed'] as const;
export type Filter = (typeof FILTERS)[number];

/** The `filter` query parameter; anything unknown means all calls. */
export function filterFrom(value: string | null): Filter {
  return (FILTERS as readonly string[]).includes(value ?? '') ? (value as Filter) : 'all';
}

/**
 * The call's direction as `me` sees it: a call between colleagues (it names a callee) is inbound to
 * the callee and outbound to everyone else; other calls keep the direction they were written with.
 */
export function directionFor(call: Call, me: string | null): Direction | null {
  if (call.callee !== '' && call.direction !== null)
    return call.callee === me ? 'inbound' : 'outbound';
  return call.direction;
}

export function passes(call: Call, filter: Filter, me: string | null = null): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'inbound':
    case 'outbound':
      return directionFor(call, me) === filter;
    case 'missed':
      return call.outcome === 'missed';
  }
}

/** "4:05", "1:02:03"; null for an unknown duration. */
export function formatDuration(seconds: number | null): string | null {
  if (seconds === null) return null;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
