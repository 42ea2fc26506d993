/**
 * The journal of calls in progress (the twins in this process): each change kept in app.db at once, forgotten
 * when the call's row is written, and what a server that died left behind written as `dropped` rows
 * at the next start, once each, even when the previous recovery died between writing and forgetting.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  callRecord,
  DROPPED_REASON,
  type CallRecord,
} from '../../../../src/contracts/records/call';
import {
  createCallJournal,
  recoverDroppedCalls,
  type HistoryRows,
} from '../../../../server/calls/journal';
import { openAppDatabase, type AppDatabase } from '../../../../server/identity/database';
import { removeDir, tempDir } from '../support';

let dir: string;
let db: AppDatabase;
const clock = 10_000;
const now = () => clock;
beforeEach(() => {
  dir = tempDir();
  db = openAppDatabase(dir);
});
afterEach(() => {
  db.close();
  removeDir(dir);
});

/** The `calls` list as recovery sees it: rows in the order written. */
function history(): HistoryRows & { rows: CallRecord[] } {
  const rows: CallRecord[] = [];
  return {
    rows,
    recentIds: (count) => Promise.resolve(rows.slice(-count).map((r) => r.callSid)),
    record: (row) => {
      rows.push(row);
      return Promise.resolve();
    },
  };
}

const LIVE: CallRecord = {
  callSid: 'CA0123456789abcdef0123456789abcdef',
  attempt: '',
  direction: 'outbound',
  from: 'ann@x.io',
  to: '700',
  user: 'ann@x.io',
  callee: 'bob@x.io',
  group: 'grp-sales',
  groupName: 'Sales',
  handledBy: 'bob@x.io',
  trail: [{ action: 'held', by: 'bob@x.io', at: 3000 }],
  startedAt: 1000,
  answeredAt: 2000,
  endedAt: 3000,
  duration: 1,
  outcome: 'dropped',
  reason: DROPPED_REASON,
  routing: [{ kind: 'answered', text: 'Bob answered.', at: 2000 }],
  voicemail: null,
  forwardedTo: null,
  test: false,
  quality: [],
  relay: [],
};

describe('the journal of calls in progress', () => {
  it('keeps the latest row of each live call and forgets a call once its row is written', () => {
    const journal = createCallJournal(db, now);
    journal.keep({ ...LIVE, trail: [] });
    journal.keep(LIVE);
    journal.keep({ ...LIVE, callSid: 'CA2' });
    expect(journal.size()).toBe(2);
    journal.forget('CA2');
    expect(journal.leftOver().map((r) => r.callSid)).toEqual([LIVE.callSid]);
    // Kept on disk: another connection (the next start) reads it.
    const reopened = openAppDatabase(dir);
    expect(createCallJournal(reopened, now).leftOver()[0]?.trail).toEqual(LIVE.trail);
    reopened.close();
  });

  it('ends a left-over call when the server was last seen with it, talk time counted', () => {
    const journal = createCallJournal(db, now);
    journal.keep(LIVE);
    journal.seen(62_000);
    journal.seen(5_000); // never moves back
    const [row] = journal.leftOver();
    expect(row).toMatchObject({ outcome: 'dropped', reason: DROPPED_REASON, endedAt: 62_000 });
    expect(row!.duration).toBe(60);
    expect(callRecord.check(row)).toMatchObject({ ok: true });
  });

  it('writes each left-over call’s history row once, then nothing is left', async () => {
    const calls = history();
    const journal = createCallJournal(db, now);
    journal.keep(LIVE);
    journal.keep({ ...LIVE, callSid: 'CA2', answeredAt: null, handledBy: null, trail: [] });
    const lines: string[] = [];
    expect(await recoverDroppedCalls(journal, calls, (l) => lines.push(l))).toBe(2);
    const rows = calls.rows;
    expect(rows.map((r) => [r.callSid, r.outcome, r.answeredAt])).toEqual([
      [LIVE.callSid, 'dropped', 2000],
      ['CA2', 'dropped', null],
    ]);
    for (const row of rows) expect(callRecord.check(row)).toMatchObject({ ok: true, value: row });
    expect(journal.size()).toBe(0);
    expect(lines.join('\n')).toContain('2 call(s)');
    expect(await recoverDroppedCalls(journal, calls, () => {})).toBe(0);
  });

  it('does not write a row twice when the last recovery died before forgetting the call', async () => {
    const calls = history();
    const journal = createCallJournal(db, now);
    journal.keep(LIVE);
    await calls.record(journal.leftOver()[0]!); // written, then the server died
    await calls.record({ ...LIVE, callSid: 'CA-other', outcome: 'answered' });
    expect(await recoverDroppedCalls(journal, calls, () => {})).toBe(0);
    expect(calls.rows).toHaveLength(2);
    expect(journal.size()).toBe(0);
  });
});
