/**
 * What the server writes about calls on the embedded backend, each the record the catalogue gives
 * (src/contracts): history rows in `calls` with their ttl, parked calls in `holds`, emptied at start.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALLS, HOLDS } from '../../../../src/contracts/objects';
import { callRecord, type CallRecord } from '../../../../src/contracts/records/call';
import { holdRecord } from '../../../../src/contracts/records/hold';
import { createCallHistory } from '../../../../server/calls/history';
import { createParkedCalls } from '../../../../server/calls/holds';
import { createSyncService, type SyncService } from '../../../../server/twins/sync/service';
import { removeDir, tempDir } from '../support';

let dir: string;
let sync: SyncService;
beforeEach(() => {
  dir = tempDir();
  sync = createSyncService({ dataDir: dir, log: () => {} });
});
afterEach(async () => {
  await sync.close();
  removeDir(dir);
});

const CALL: CallRecord = {
  callSid: 'CA0123456789abcdef0123456789abcdef',
  direction: 'outbound',
  from: 'ann@x.io',
  to: '700',
  user: 'ann@x.io',
  callee: null,
  group: 'grp-sales',
  groupName: 'Sales',
  handledBy: 'bob@x.io',
  trail: [{ action: 'parked', by: 'bob@x.io', at: 2000 }],
  startedAt: 1000,
  answeredAt: 1500,
  endedAt: 9000,
  duration: 8,
  outcome: 'answered',
  reason: '',
  routing: [{ kind: 'ring', text: 'Ringing Bob.', at: 1100 }],
  voicemail: null,
  forwardedTo: null,
  test: false,
  quality: [],
  relay: [],
};

describe('call history', () => {
  it('opens the list for everyone, then appends each row as given, kept for the retention', () => {
    const history = createCallHistory(sync.internal, 30);
    history.open();
    expect(sync.internal!.listItems(CALLS.name)).toEqual([]);
    history.record(CALL);
    const [row] = sync.internal!.listItems(CALLS.name);
    expect(row).toEqual(CALL);
    expect(callRecord.check(row)).toMatchObject({ ok: true, value: CALL });
  });
});

describe('parked calls', () => {
  it('writes the hold record keyed by the call, removes it, and starts empty', () => {
    const holds = createParkedCalls(sync.internal);
    holds.parked({ callId: 'CA1', caller: 'Ann', parkedBy: 'bob@x.io', parkedAt: 5000 });
    const item = sync.internal!.getMapItem(HOLDS.name, 'CA1');
    expect(item).toEqual({ caller: 'Ann', parkedBy: 'bob@x.io', parkedAt: 5000 });
    expect(holdRecord.check(item)).toMatchObject({ ok: true });
    holds.unparked('CA1');
    expect(sync.internal!.mapItems(HOLDS.name).size).toBe(0);
    holds.parked({ callId: 'CA2', caller: 'Cy', parkedBy: 'bob@x.io', parkedAt: 6000 });
    // A restart: nothing is parked any more.
    createParkedCalls(sync.internal).clear();
    expect(sync.internal!.mapItems(HOLDS.name).size).toBe(0);
  });
});
