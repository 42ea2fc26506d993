/** Ordering rules shared by the container machines (seed section 4). */
import type { ContainerMeta } from '../sync/ports';

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
  const revision = forward && mark.revision ? mark.revision : meta.revision;
  return {
    ...meta,
    lastEventId: forward ? mark.lastEventId : meta.lastEventId,
    revision,
    dateUpdated: later ? date : meta.dateUpdated,
  };
}

/** Compares map keys in plain code-unit order, as the service sorts them ("B" < "a" < "aa" < "b"). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
