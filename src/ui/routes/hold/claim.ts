/**
 * Picking up a parked call when several people may click at once. The claim is a conditional
 * write: `mutate` reads the item, and the service applies the change only if the item's revision is
 * still the one read (If-Match). Of two clicks on the same revision exactly one write lands; the
 * other gets 412, re-reads, finds the call claimed (or gone) and gives up. The winner then removes
 * the item, so it disappears for everyone.
 */
import type { ItemMetadata, JsonObject, MapItem, Mutator } from '../../../sync/ports';

/** The two map commands a claim needs (the holds map actor, or a port in tests). */
export interface ClaimTarget {
  mutate(key: string, mutator: Mutator, metadata?: ItemMetadata): Promise<MapItem>;
  remove(key: string): Promise<void>;
}

export type ClaimOutcome = 'won' | 'taken';

export const TAKEN_MESSAGE = 'A colleague already picked up this call.';

/**
 * A claimed hold lives at most this long: if the winner's removal never lands (their browser
 * closed in between), the call still leaves everyone's list instead of showing "being picked up"
 * forever.
 */
export const CLAIM_TTL_SECONDS = 60;

/**
 * The mutator: claims a hold nobody has claimed. It returns null (no write) when the item is
 * already claimed by someone else, or is not a hold any more: the SDK hands a mutator `{}` when the
 * item was removed, and writing then would bring the call back from the dead.
 */
export function claimMutator(me: string): Mutator {
  return (current: JsonObject) => {
    if (typeof current.caller !== 'string') return null;
    if (typeof current.claimedBy === 'string' && current.claimedBy !== '') return null;
    return { ...current, claimedBy: me };
  };
}

/** Claims the hold `callId` for `me`: 'won' (and removed) or 'taken' by someone else. */
export async function claimHold(
  target: ClaimTarget,
  callId: string,
  me: string,
): Promise<ClaimOutcome> {
  let item: MapItem;
  try {
    item = await target.mutate(callId, claimMutator(me), { ttl: CLAIM_TTL_SECONDS });
  } catch (error) {
    // Gone before we could read it: someone else picked it up first.
    if (isNotFound(error)) return 'taken';
    throw error;
  }
  if (item.data.claimedBy !== me) return 'taken';
  try {
    await target.remove(callId);
  } catch (error) {
    // Already removed (our own retry, or a second tab of ours): the claim still stands.
    if (!isNotFound(error)) throw error;
  }
  return 'won';
}

function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { status?: unknown; reason?: unknown; code?: unknown };
  return e.status === 404 || e.code === 54201 || e.reason === 'notFound';
}
