import type { CallSummary } from '../../../../src/machines/call.selectors';

/** A ringing incoming call from Ann, as the mirror and the shortcuts see it; `over` changes it. */
export const callSummary = (over: Partial<CallSummary> = {}): CallSummary => ({
  callId: 'CA1',
  sid: 'CA1',
  attempt: null,
  direction: 'incoming',
  status: 'incoming',
  remote: { identity: 'ann', number: null, displayName: 'Ann' },
  muted: false,
  hold: 'off',
  heldByThem: false,
  parking: false,
  problem: null,
  transferStatus: 'idle',
  transfer: null,
  digits: '',
  answeredAt: null,
  endedAt: null,
  endText: null,
  endUnexplained: false,
  routingNote: null,
  group: null,
  ringBack: null,
  warnings: [],
  ...over,
});
