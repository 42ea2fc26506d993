/**
 * What the Twilio backend keeps per call: who is on a call (one count per answered leg), how long a
 * call's state is kept, and the outcome its history row gets.
 */
import { describe, expect, it } from 'vitest';
import { createCallLog, historyItem, type CallStart } from '../../../../server/twilio/calls';

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

  it('keeps a call 30 minutes after its row is written, six hours at most otherwise', () => {
    let now = 0;
    const log = createCallLog(() => now);
    log.open('CA1', start()).written = { index: 0, data: {}, at: 0 };
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
    [{ voicemail: { recordingSid: 'RE', url: '/x', seconds: 3 } }, 'completed', 'missed'],
    [{ rangOut: true }, 'completed', 'missed'],
    [{ rangOut: true, declined: true, callee: 'b' }, 'completed', 'rejected'],
    [{}, 'completed', 'abandoned'],
    [{}, 'busy', 'busy'],
    [{}, 'failed', 'failed'],
    [{ followed: false }, 'completed', undefined],
  ])('%o, call %s: %s', (over, status, expected) => {
    expect(outcome(over, status)).toBe(expected);
  });

  it('talk time counts from the answer', () => {
    const state = createCallLog(() => 0).open('CA1', start());
    state.answeredAt = 30_000;
    expect(historyItem(state, 90_400, 'completed').duration).toBe(60);
  });
});
