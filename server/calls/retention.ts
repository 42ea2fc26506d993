/**
 * How long call history and voicemail are kept (SWITCHBOARD_HISTORY_DAYS), on every backend: each
 * `calls` row is written with a ttl, so Sync deletes it by itself, and the recordings (the
 * voicemail messages) are deleted by this server with their rows, since a Sync ttl deletes the row
 * without telling anyone and Twilio keeps a recording until it is deleted.
 *
 * - Sync's ttl is "an integer between 0 and 31 536 000 (1 year)" (error 54011,
 *   https://www.twilio.com/docs/api/errors/54011); it "is fixed and does not advance automatically
 *   with data updates" (https://www.twilio.com/docs/sync/objects-ttl), so a voicemail added to a row
 *   later does not extend it.
 * - A recording is deleted with `DELETE /2010-04-01/Accounts/{AccountSid}/Recordings/{Sid}.json`
 *   (https://www.twilio.com/docs/voice/api/recording#delete-a-recording-resource).
 *
 * The sweep runs at start and every hour: every row past the retention has its recording deleted,
 * then the row itself. A row's ttl is a day longer than the retention (within Sync's year), so the
 * sweep sees it before Sync drops it, even after a server's day off; at the full year the sweep
 * deletes a day early instead.
 */
import type { SyncRest } from '../twilio/sync-rest';
import { CALLS } from '../../src/contracts/objects';
import { callRecord } from '../../src/contracts/records/call';

const DAY = 86_400;
/** The longest ttl Sync takes. */
export const MAX_TTL_SECONDS = 31_536_000;
/** How often the sweep runs. */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** The ttl of a `calls` row when history is kept `days` days. */
export const historyTtlSeconds = (days: number): number =>
  Math.min(MAX_TTL_SECONDS, (days + 1) * DAY);

/** Rows that ended before this instant have their recordings (and themselves) deleted. */
export const sweepCutoff = (days: number, now: number): number =>
  now - Math.min(days * DAY, historyTtlSeconds(days) - DAY) * 1000;

export interface Retention {
  /** The ttl every new `calls` row gets. */
  rowTtlSeconds: number;
  /** Deletes the rows past the retention and their recordings; resolves with how many. */
  sweep(): Promise<number>;
  start(): void;
  stop(): void;
}

export function createRetention(deps: {
  rest: SyncRest;
  /** Deletes a recording; nothing when it is already gone. */
  deleteRecording: (recordingSid: string) => Promise<void>;
  days: number;
  now: () => number;
  log: (message: string) => void;
}): Retention {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function sweepOnce(): Promise<number> {
    const cutoff = sweepCutoff(deps.days, deps.now());
    let removed = 0;
    for (const { index, data } of await deps.rest.listItems(CALLS.name, 5000, 'asc')) {
      const row = callRecord.read(data);
      if (row.endedAt > cutoff) continue;
      // The recording first: a row whose recording could not go stays, and is tried next time.
      if (row.voicemail) await deps.deleteRecording(row.voicemail.id);
      await deps.rest.removeListItem(CALLS.name, index);
      removed++;
    }
    return removed;
  }

  const sweep = (): Promise<number> =>
    (running ??= sweepOnce().finally(() => {
      running = null;
    }));

  const tick = () =>
    void sweep().catch((err: unknown) =>
      deps.log(
        `Twilio history retention: sweep failed: ${err instanceof Error ? err.message : String(err)}`,
      ),
    );

  return {
    rowTtlSeconds: historyTtlSeconds(deps.days),
    sweep,
    start() {
      tick();
      timer = setInterval(tick, SWEEP_EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
