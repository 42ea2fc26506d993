import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { selectCallSummary } from '../../../src/machines/call.selectors';
import type { CallDirection } from '../../../src/machines/call.setup';
import { remoteFromAddress } from '../../../src/machines/call.types';

const summaryOf = (direction: CallDirection, params: Record<string, string>) => {
  const actor = createActor(callMachine, {
    input: {
      direction,
      callId: 'CA1',
      remote: remoteFromAddress('client:ann'),
      params,
      now: () => 0,
    },
  }).start();
  const summary = selectCallSummary(actor.getSnapshot());
  actor.stop();
  return summary;
};

describe('a call rung back', () => {
  it("says why, in the voice service's words", () => {
    const s = summaryOf('incoming', {
      RingBack: '1',
      RingBackReason: 'The call was parked too long',
      Group: 'Front desk',
    });
    expect(s.ringBack).toBe('The call was parked too long');
    expect(s.group).toBe('Front desk');
  });

  it('says it comes back when no reason came with it', () => {
    expect(summaryOf('incoming', { RingBack: '1' }).ringBack).toBe('A call coming back to you');
    expect(summaryOf('incoming', { RingBack: '1', RingBackReason: '  ' }).ringBack).toBe(
      'A call coming back to you',
    );
  });

  it('is none for a first ring or a call we place', () => {
    expect(summaryOf('incoming', {}).ringBack).toBeNull();
    expect(summaryOf('outgoing', { RingBack: '1' }).ringBack).toBeNull();
  });
});
