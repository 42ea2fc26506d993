/**
 * Call history on the embedded backend: one row per finished call in the `calls` list, as the voice
 * service hands it over (src/contracts/records/call.ts, the same record the Twilio backend writes),
 * kept for the history retention (the row's ttl). Only the server writes it, so nobody can forge
 * history; the list exists from the start so every screen can open it.
 *
 * Quality: each browser on a call reports how it sounded when its call ends (POST
 * /api/calls/:sid/quality). The report may come before the row is written (the page hung up and its
 * report overtook the hangup) or after: it waits for the row, or is merged into the row written
 * moments ago (rows are remembered for {@link RECENT_MS}).
 */
import { CALLS } from '../../src/contracts/objects';
import type { CallRecord } from '../../src/contracts/records/call';
import type { CallQuality } from '../../src/contracts/records/call-quality';
import type { InternalSync } from '../twins/sync/internal';

const DAY_SECONDS = 24 * 60 * 60;
/** How long a written row takes reports, and how long a report waits for its row. */
export const RECENT_MS = 10 * 60_000;
const WAIT_MS = 24 * 60 * 60_000;
/** At most this many rows remembered and calls waiting, the oldest forgotten first. */
const MAX_KEPT = 1000;
/** At most this many reports a row keeps (one per person). */
const MAX_REPORTS = 10;

export interface CallHistory {
  /** Makes the list if it is missing (browsers may not create it). */
  open(): void;
  /** Appends a finished call's row. */
  record(call: CallRecord): void;
  /** The call ids (`callSid`) of the newest `count` rows. */
  recentIds(count: number): string[];
  /** Adds one person's quality report to the row of call `callSid` (now, or once it is written). */
  addQuality(callSid: string, report: CallQuality): void;
}

/** A call's quality reports with `report` added: one per person (their latest), at most ten. */
export const mergedQuality = (
  reports: readonly CallQuality[],
  report: CallQuality,
): CallQuality[] => [...reports.filter((r) => r.by !== report.by), report].slice(-MAX_REPORTS);

function remember<V extends { at: number }>(
  map: Map<string, V>,
  key: string,
  value: V,
  now: number,
  ttl: number,
): void {
  for (const [k, v] of map)
    if (v.at < now - ttl || map.size >= MAX_KEPT) map.delete(k);
    else break;
  map.delete(key);
  map.set(key, value);
}

export function createCallHistory(
  sync: InternalSync | undefined,
  days: number,
  now: () => number = Date.now,
): CallHistory {
  const written = new Map<string, { index: number; row: CallRecord; at: number }>();
  const waiting = new Map<string, { reports: CallQuality[]; at: number }>();
  return {
    open: () => sync?.ensureList(CALLS.name),
    record(call) {
      if (!sync) return;
      const early = waiting.get(call.callSid);
      waiting.delete(call.callSid);
      let row = call;
      for (const report of early?.reports ?? [])
        row = { ...row, quality: mergedQuality(row.quality, report) };
      const index = sync.pushListItem(CALLS.name, row, days * DAY_SECONDS);
      remember(written, call.callSid, { index, row, at: now() }, now(), RECENT_MS);
    },
    addQuality(callSid, report) {
      if (!sync) return;
      const known = written.get(callSid);
      if (known && known.at >= now() - RECENT_MS) {
        known.row = { ...known.row, quality: mergedQuality(known.row.quality, report) };
        sync.updateListItem(CALLS.name, known.index, known.row);
        return;
      }
      const early = waiting.get(callSid);
      remember(
        waiting,
        callSid,
        { reports: mergedQuality(early?.reports ?? [], report), at: early?.at ?? now() },
        now(),
        WAIT_MS,
      );
    },
    recentIds: (count) =>
      (sync?.listItems(CALLS.name, count, 'desc') ?? []).flatMap((row) =>
        typeof row.callSid === 'string' ? [row.callSid] : [],
      ),
  };
}
