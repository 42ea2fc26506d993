/**
 * "On a call" in presence, on every backend: Sync knows nothing of calls, so this server writes
 * `onCall` into the person's presence item (through the REST API) when their first call begins and
 * their last ends, as the voice webhooks report them (call-log.ts). A status written through
 * /api/presence keeps the value the item holds (identity/presence.ts). Only an item that exists is
 * changed (an offline person gets none), its ttl kept; writes for one person go one after another,
 * each with the state as it is when it runs. The write is conditional on the revision read
 * (If-Match: https://www.twilio.com/docs/sync/api/map-item-resource), so a status the person picks
 * between the read and the write is read again and kept, never overwritten with the copy read
 * before it.
 *
 * A write that fails (Sync down, after the client's own retries) is tried again later, as a history
 * row is ({@link laterRetryMs}), with the state as it is then: left as it was, a person whose call ended
 * during an outage would stay "on a call", and routing would never ring them again (issue 24).
 *
 * "Off the call" is decided with Twilio, not with this server alone: the item says "on a call" and
 * this server knows no call of theirs, so it asks Twilio's Calls resource for a call of theirs in
 * progress (any server's, behind a load balancer; Twilio's list is the one record of every call) and
 * clears the flag only when there is none. So a leg this server never knew (it restarted during the
 * call, and its memory of who was on what went with it) clears the flag when Twilio reports that leg
 * over (call-log.ts, `legEnded` with the leg's person), and another server's call keeps it.
 */
import { PRESENCE } from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import { LATER_RETRIES, laterRetryMs } from '../twilio/client';
import type { SyncRest } from '../twilio/sync-rest';

/** Reads and conditional writes before giving up on an item that keeps changing under them. */
const WRITE_TRIES = 5;

export function createOnCallWriter(deps: {
  rest: Pick<SyncRest, 'getMapItem' | 'updateMapItemIf'>;
  isOnCall: (identity: string) => boolean;
  /**
   * Whether Twilio lists a call of theirs in progress, whichever server carries it (index.ts: the
   * Calls resource, `Status=in-progress`, `To` and `From` their client address). Without it, this
   * server's own calls decide alone.
   */
  hasLiveCall?: (identity: string) => Promise<boolean>;
  log: (message: string) => void;
  /**
   * Told each write that Sync took (the item's data as written): routing's copy of presence takes it
   * at once rather than when Sync's webhook of it arrives (routing-data.ts, {@link RoutingData.wrote}).
   */
  written?: (identity: string, data: JsonObject) => void;
  /** Waits before a failed write is tried again (tests shorten it). */
  retryMs?: (attempt: number) => number;
}): (identity: string) => void {
  const retryMs = deps.retryMs ?? laterRetryMs;
  const queues = new Map<string, Promise<void>>();
  /** Per person, the write tried again later (one at a time: it reads the state when it runs). */
  const later = new Map<string, NodeJS.Timeout>();
  const write = async (identity: string): Promise<void> => {
    for (let tries = 0; tries < WRITE_TRIES; tries++) {
      const item = await deps.rest.getMapItem(PRESENCE.name, identity);
      // The state after the read: a read that Sync kept waiting (its retries) may have outlasted
      // the call, and "on a call" written then would stand until the next write got through.
      const onCall = deps.isOnCall(identity);
      if (!item || item.data.onCall === onCall) return;
      // Off, by this server's account: unless Twilio has a call of theirs that another server (or
      // this one before a restart) carries.
      if (!onCall && deps.hasLiveCall && (await deps.hasLiveCall(identity))) return;
      const data = { ...item.data, onCall };
      const done = await deps.rest.updateMapItemIf(PRESENCE.name, identity, data, item.revision);
      if (done === 'written') deps.written?.(identity, data);
      if (done !== 'changed') return;
    }
    throw new Error(`the item kept changing (${WRITE_TRIES} tries)`);
  };
  const changed = (identity: string, attempt = 0): void => {
    const before = queues.get(identity) ?? Promise.resolve();
    const next = before.then(() =>
      write(identity).catch((err: unknown) => {
        const last = attempt >= LATER_RETRIES;
        deps.log(
          `presence of ${identity}: on a call not written${last ? ', given up' : ', tried again later'}: ${err instanceof Error ? err.message : String(err)}`,
        );
        if (last || later.has(identity)) return;
        const timer = setTimeout(() => {
          later.delete(identity);
          changed(identity, attempt + 1);
        }, retryMs(attempt));
        timer.unref();
        later.set(identity, timer);
      }),
    );
    queues.set(identity, next);
    void next.then(() => {
      if (queues.get(identity) === next) queues.delete(identity);
    });
  };
  return (identity) => changed(identity);
}
