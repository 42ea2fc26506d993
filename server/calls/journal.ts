/**
 * Nothing lost in a crash while the voice twin runs in this process (embedded, `twilio-twins`: its
 * calls end with the server, and Twilio reports nothing of them afterwards): every call in
 * progress is journalled in app.db, as
 * the history row it gets if the server dies now (outcome `dropped`, "The server restarted.", with
 * who, when it started, whether and when it was answered, its group, routing and trail so far). The
 * voice service hands each change over synchronously, before anyone hears of it, and the row is
 * forgotten once the call's real history row is written. At the next start every call left in the
 * journal becomes its history row, ended when the server was last seen alive with it.
 *
 * Writing the row and forgetting the call are two commits in two databases: a crash between them
 * leaves the call in the journal with its row already written. Recovery therefore writes a row only
 * when none with the call's id (`callSid`) is among the newest rows, so no call gets two.
 */
import { callRecord, DROPPED_REASON, type CallRecord } from '../../src/contracts/records/call';
import type { AppDatabase } from '../identity/database';

export interface CallJournal {
  /** Keeps a live call's row (replacing the last one kept for it), committed before it returns. */
  keep(row: CallRecord): void;
  /** The call's history row is written: the journal forgets it. */
  forget(callSid: string): void;
  /** The server is alive with the calls it keeps: none of them ended before `at`. */
  seen(at: number): void;
  /** How many calls are journalled now. */
  size(): number;
  /** The calls left over by a server that died, each ended when it was last seen alive. */
  leftOver(): CallRecord[];
}

export function createCallJournal(db: AppDatabase, now: () => number): CallJournal {
  const put = db.prepare<[string, string, number]>(
    `INSERT INTO live_calls (id, row, seen_at) VALUES (?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET row = excluded.row, seen_at = excluded.seen_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM live_calls WHERE id = ?');
  const touch = db.prepare<[number]>('UPDATE live_calls SET seen_at = max(seen_at, ?)');
  const all = db.prepare<[], { id: string; row: string; seen_at: number }>(
    'SELECT id, row, seen_at FROM live_calls ORDER BY rowid',
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM live_calls');
  return {
    keep: (row) => void put.run(row.callSid, JSON.stringify(row), now()),
    forget: (callSid) => void remove.run(callSid),
    seen: (at) => void touch.run(at),
    size: () => count.get()!.n,
    leftOver: () =>
      all.all().map(({ id, row, seen_at }) =>
        // Read as the contract reads a stored row: what cannot be read takes its fallback.
        droppedAt({ ...callRecord.read(parsed(row)), callSid: id }, seen_at),
      ),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The row of a call dropped when the server died, ended at the last moment it was known live. */
function droppedAt(row: CallRecord, seenAt: number): CallRecord {
  const last = Math.max(
    seenAt,
    row.startedAt,
    row.answeredAt ?? 0,
    ...row.trail.map((s) => s.at ?? 0),
    ...row.routing.map((s) => s.at),
  );
  return {
    ...row,
    outcome: 'dropped',
    reason: DROPPED_REASON,
    endedAt: last,
    duration: row.answeredAt === null ? 0 : Math.round((last - row.answeredAt) / 1000),
  };
}

/** How many of the newest history rows recovery looks through for a row it already wrote. */
const SEARCHED_ROWS = 1000;

/** The `calls` history as recovery reads and writes it (through Sync's REST API). */
export interface HistoryRows {
  /** The call ids (`callSid`) of the newest `count` rows. */
  recentIds(count: number): Promise<string[]>;
  /** Appends a finished call's row. */
  record(row: CallRecord): Promise<void>;
}

/**
 * Writes the history row of every call the journal still holds (a server that died with calls in
 * progress), unless the row is already there, then forgets them. Resolves with how many rows it
 * wrote; a row that cannot be written stays in the journal for the next start.
 */
export async function recoverDroppedCalls(
  journal: CallJournal,
  history: HistoryRows,
  log: (message: string) => void,
): Promise<number> {
  const left = journal.leftOver();
  if (left.length === 0) return 0;
  const written = new Set(await history.recentIds(SEARCHED_ROWS));
  let count = 0;
  for (const row of left) {
    if (!written.has(row.callSid)) {
      await history.record(row);
      count += 1;
    }
    journal.forget(row.callSid);
  }
  log(`calls: ${count} call(s) in progress when the server stopped were recorded as dropped`);
  return count;
}
