/**
 * What the Twilio backend keeps per call: who is on a call (one count per answered leg), how long a
 * call's state is kept, and the outcome its history row gets.
 */
import { describe, expect, it } from 'vitest';
import { callRecord } from '../../../../src/contracts/records/call';
import { createCallLog, historyItem, type CallStart } from '../../../../server/calls/call-log';

const start =
  (over: Partial<CallStart> = {}): (() => CallStart) =>
  () => ({
    startedAt: 0,
    direction: 'inbound',
    from: '+447700900123',
    to: '+442079460000',
    user: '',
    ...over,
  });

describe('CallLog', () => {
  it('counts answered legs per person; a leg reported twice counts once', () => {
    const log = createCallLog(() => 0);
    log.legAnswered('a', 'CA1');
    log.legAnswered('a', 'CA1');
    log.legAnswered('a', 'CA2');
    log.legEnded('CA1');
    expect(log.isOnCall('a')).toBe(true);
    log.legEnded('CA2');
    log.legEnded('CA2');
    expect(log.isOnCall('a')).toBe(false);
  });

  it('a leg it never knew that ends has its person looked at again; its own legs as before', () => {
    const looked: string[] = [];
    const log = createCallLog(
      () => 0,
      (identity) => looked.push(identity),
    );
    // Before a restart, say: Ann's leg is not in this log.
    log.legEnded('CA9', 'ann');
    expect(looked).toEqual(['ann']);
    // An outside caller's leg (no colleague), and a leg of someone still on another call here.
    log.legEnded('CA8', null);
    log.legAnswered('bob', 'CA1');
    log.legEnded('CA7', 'bob');
    expect(looked).toEqual(['ann', 'bob']);
    log.legEnded('CA1', 'bob');
    expect(looked).toEqual(['ann', 'bob', 'bob']);
    expect(log.isOnCall('bob')).toBe(false);
    // Each end is remembered (Twilio's list of calls in progress may not have caught up yet).
    expect(['CA9', 'CA1', 'CA2'].map((sid) => log.hasEnded(sid))).toEqual([true, true, false]);
  });

  it('keeps a call 30 minutes after its row is written, six hours at most otherwise', () => {
    let now = 0;
    const log = createCallLog(() => now);
    const first = log.open('CA1', start());
    first.written = { index: 0, data: historyItem(first, 0, 'completed'), at: 0 };
    log.open('CA2', start());
    log.legAnswered('b', 'CA2');
    now = 31 * 60_000;
    log.sweep();
    expect(log.get('CA1')).toBeUndefined();
    expect(log.get('CA2')).toBeDefined();
    now = 6 * 3600_000 + 1;
    log.sweep();
    expect(log.size()).toBe(0);
    expect(log.isOnCall('b')).toBe(false);
  });

  it('opening a call again (a retried webhook) keeps what was learnt', () => {
    const log = createCallLog(() => 0);
    log.open('CA1', start()).answeredBy = 'a';
    expect(log.open('CA1', start({ from: 'other' })).answeredBy).toBe('a');
  });
});

describe('historyItem outcomes', () => {
  const outcome = (over: Record<string, unknown>, status = 'completed') => {
    const state = createCallLog(() => 0).open('CA1', start());
    Object.assign(state, over);
    return historyItem(state, 90_000, status).outcome;
  };
  it.each([
    [{ answeredBy: 'a', answeredAt: 1000 }, 'completed', 'answered'],
    [
      { answeredBy: '+15551230000', answeredAt: 1000, forwardedTo: '+15551230000' },
      'completed',
      'forwarded',
    ],
    [{ voicemail: { id: `RE${'0'.repeat(32)}`, seconds: 3 } }, 'completed', 'voicemail'],
    [{ rangOut: true }, 'completed', 'missed'],
    [{ rangOut: true, declined: true, callee: 'b' }, 'completed', 'rejected'],
    [{}, 'completed', 'abandoned'],
    [{}, 'busy', 'busy'],
    [{}, 'failed', 'failed'],
    [{ followed: false }, 'completed', 'unknown'],
  ])('%o, call %s: %s', (over, status, expected) => {
    expect(outcome(over, status)).toBe(expected);
  });

  it('is the call record both backends write, group by id and name', () => {
    const state = createCallLog(() => 0).open(
      'CA1',
      start({ groupId: 'grp-sales', groupName: 'Sales' }),
    );
    Object.assign(state, {
      answeredBy: 'bob@example.com',
      answeredAt: 1000,
      voicemail: { id: `RE${'a'.repeat(32)}`, seconds: 14 },
      forwardedTo: '+15551230000',
    });
    const row = historyItem(state, 90_000, 'completed');
    expect(callRecord.check(row)).toMatchObject({ ok: true, value: row });
    expect(row).toMatchObject({ group: 'grp-sales', groupName: 'Sales' });
    const direct = historyItem(createCallLog(() => 0).open('CA2', start()), 1000, 'failed');
    expect(callRecord.check(direct)).toMatchObject({ ok: true, value: direct });
    expect(direct).toMatchObject({ group: null, groupName: null, outcome: 'failed' });
  });

  it('talk time counts from the answer', () => {
    const state = createCallLog(() => 0).open('CA1', start());
    state.answeredAt = 30_000;
    expect(historyItem(state, 90_400, 'completed').duration).toBe(60);
  });
});
