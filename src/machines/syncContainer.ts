/** Ordering rules shared by the container machines (seed section 4). */
import type { ContainerMeta } from './syncPorts';

/**
 * Advances the container descriptor: the last event id and the revision move only forward (the
 * revision is opaque, so it follows the event id it came with), and date_updated only moves later.
 * Returns the same object when nothing moved, so selectors keep their reference.
 */
export function advanceMeta(
  meta: ContainerMeta,
  mark: {
    lastEventId: number;
    revision?: string | undefined;
    dateUpdated?: number | null | undefined;
  },
): ContainerMeta {
  const forward = mark.lastEventId > meta.lastEventId;
  const date = mark.dateUpdated ?? null;
  const later = date !== null && (meta.dateUpdated === null || date > meta.dateUpdated);
  if (!forward && !later) return meta;
  // Written out field by field: this runs once per pushed event, and a spread is several times slower.
  return {
    sid: meta.sid,
    uniqueName: meta.uniqueName,
    revision: forward && mark.revision ? mark.revision : meta.revision,
    lastEventId: forward ? mark.lastEventId : meta.lastEventId,
    dateUpdated: later ? date : meta.dateUpdated,
    dateExpires: meta.dateExpires,
  };
}

/**
 * {@link advanceMeta} for one pushed event: the SDK's container mark (if any) and the event's own
 * id and date, folded into at most one new descriptor.
 */
export function advanceMetaByEvent(
  meta: ContainerMeta,
  mark: { lastEventId: number; revision: string; dateUpdated: number | null } | undefined,
  eventId: number | null,
  dateUpdated: number | null,
): ContainerMeta {
  const markAhead = mark !== undefined && mark.lastEventId >= (eventId ?? -1);
  const lastEventId = Math.max(mark?.lastEventId ?? -1, eventId ?? -1);
  const date = Math.max(mark?.dateUpdated ?? -1, dateUpdated ?? -1);
  return advanceMeta(meta, {
    lastEventId,
    revision: markAhead ? mark.revision : undefined,
    dateUpdated: date < 0 ? null : date,
  });
}

/** Compares map keys in plain code-unit order, as the service sorts them ("B" < "a" < "aa" < "b"). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
