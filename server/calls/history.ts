/**
 * Call history on the embedded backend: one row per finished call in the `calls` list, as the voice
 * service hands it over (src/contracts/records/call.ts, the same record the Twilio backend writes),
 * kept for the history retention (the row's ttl). Only the server writes it, so nobody can forge
 * history; the list exists from the start so every screen can open it.
 */
import { CALLS } from '../../src/contracts/objects';
import type { CallRecord } from '../../src/contracts/records/call';
import type { InternalSync } from '../sync/internal';

const DAY_SECONDS = 24 * 60 * 60;

export interface CallHistory {
  /** Makes the list if it is missing (browsers may not create it). */
  open(): void;
  /** Appends a finished call's row. */
  record(call: CallRecord): void;
  /** The call ids (`callSid`) of the newest `count` rows. */
  recentIds(count: number): string[];
}

export function createCallHistory(sync: InternalSync | undefined, days: number): CallHistory {
  return {
    open: () => sync?.ensureList(CALLS.name),
    record: (call) => void sync?.pushListItem(CALLS.name, call, days * DAY_SECONDS),
    recentIds: (count) =>
      (sync?.listItems(CALLS.name, count, 'desc') ?? []).flatMap((row) =>
        typeof row.callSid === 'string' ? [row.callSid] : [],
      ),
  };
}
