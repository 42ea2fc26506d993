import { describe, expect, it } from 'vitest';
import { DROPPED_REASON } from '../../../../../src/contracts/records/call';
import { outcomeText } from '../../../../../src/ui/routes/history/CallList';

describe('a call row’s outcome', () => {
  it('says why a call was dropped, in words', () => {
    expect(outcomeText({ outcome: 'dropped', reason: DROPPED_REASON })).toBe(
      'Dropped: the server restarted',
    );
    expect(outcomeText({ outcome: 'dropped', reason: '' })).toBe('Dropped');
  });

  it('keeps other outcomes to their label, and an unreadable one as unknown', () => {
    expect(outcomeText({ outcome: 'answered', reason: 'Ann hung up.' })).toBe('Answered');
    expect(outcomeText({ outcome: 'rejected', reason: '' })).toBe('Declined');
    expect(outcomeText({ outcome: null, reason: '' })).toBe('Unknown');
  });
});
