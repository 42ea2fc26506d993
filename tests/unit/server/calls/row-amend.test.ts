/**
 * A call's history row on Twilio gets every report, also one that comes while the row is appended:
 * Bob's browser reported its quality while Ann's hang-up was writing the row, and the row kept only
 * Ann's (the call-quality e2e on the twins, CI of stop 33).
 */
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../../src/contracts/records/call';
import type { CallQuality } from '../../../../src/contracts/records/call-quality';
import { createCallLog, historyItem } from '../../../../server/calls/call-log';
import { createRowWriter } from '../../../../server/calls/fallback';
import { createCallQuality } from '../../../../server/calls/quality';
import type { SyncRest } from '../../../../server/twilio/sync-rest';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function fakeRest() {
  const pushes: { data: CallRecord; gate: ReturnType<typeof deferred> }[] = [];
  const updates: { index: number; data: CallRecord; gate: ReturnType<typeof deferred> }[] = [];
  const rest = {
    pushListItem: async (_list: string, data: CallRecord) => {
      const gate = deferred();
      pushes.push({ data, gate });
      await gate.promise;
      return 7;
    },
    updateListItem: async (_list: string, index: number, data: CallRecord) => {
      const gate = deferred();
      updates.push({ index, data, gate });
      await gate.promise;
    },
  } as unknown as SyncRest;
  return { rest, pushes, updates };
}

const report = (by: string): CallQuality => ({
  by,
  samples: 10,
  mosMin: 4,
  mosAvg: 4.2,
  lossPercent: 0,
  jitterAvgMs: 1,
  jitterP95Ms: 2,
  rttAvgMs: 20,
  codec: 'opus',
  warnings: [],
});

const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function setup() {
  const now = () => 1_000_000;
  const calls = createCallLog(now);
  const state = calls.open('CA1', () => ({
    startedAt: 1,
    direction: 'outbound',
    from: 'client:ann',
    to: 'client:bob',
    user: 'ann@example.com',
  }));
  calls.party('CA1', 'CA1', 'ann@example.com');
  calls.party('CA2', 'CA1', 'bob@example.com');
  const { rest, pushes, updates } = fakeRest();
  const log: string[] = [];
  const deps = { rest, log: (m: string) => log.push(m), now, historyTtlSeconds: 60 };
  const writeRow = createRowWriter(deps as unknown as Parameters<typeof createRowWriter>[0]);
  const quality = createCallQuality({ calls, rest, log: deps.log });
  return { calls, state, writeRow, quality, pushes, updates, log };
}

describe("a call's history row on Twilio", () => {
  it('gets a quality report that came while the row was being appended', async () => {
    const t = setup();
    t.quality.addQuality('CA1', report('ann@example.com'));
    t.state.writing = true;
    const written = t.writeRow(t.state, historyItem(t.state, 2, 'completed'));
    await settle();
    expect(t.pushes[0]!.data.quality.map((q) => q.by)).toEqual(['ann@example.com']);
    // Bob's report, while the append is on its way.
    t.quality.addQuality(
      t.quality.callOfParty('bob@example.com', 'CA2'),
      report('bob@example.com'),
    );
    t.pushes[0]!.gate.resolve();
    await settle();
    expect(t.updates).toHaveLength(1);
    expect(t.updates[0]!.index).toBe(7);
    expect(t.updates[0]!.data.quality.map((q) => q.by)).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    t.updates[0]!.gate.resolve();
    await written;
    expect(t.log).toEqual([]);
  });

  it('sends its updates one after another, so the last one written has every report', async () => {
    const t = setup();
    void t.writeRow(t.state, historyItem(t.state, 2, 'completed'));
    await settle();
    t.pushes[0]!.gate.resolve();
    await settle();
    expect(t.updates).toHaveLength(0); // nothing came meanwhile: no update
    t.quality.addQuality('CA1', report('ann@example.com'));
    t.quality.addQuality('CA1', report('bob@example.com'));
    await settle();
    // The second waits for the first.
    expect(t.updates).toHaveLength(1);
    t.updates[0]!.gate.resolve();
    await settle();
    expect(t.updates).toHaveLength(2);
    expect(t.updates[1]!.data.quality.map((q) => q.by)).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
  });
});
