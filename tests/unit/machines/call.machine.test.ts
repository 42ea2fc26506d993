import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { callAdapterActions } from './callAdapter';
import {
  selectCallDigits,
  selectCallDuration,
  selectCallEndMessage,
  selectCallEndReason,
  selectCallMuted,
  selectCallRouting,
  selectCallStatus,
  selectCallSummary,
  selectCallWarnings,
} from '../../../src/machines/call.selectors';
import {
  addressOf,
  describeDeviceError,
  describeEndReason,
  endReasonForCode,
  remoteFromAddress,
} from '../../../src/machines/call.types';
import {
  MAX_ROUTING_NOTES,
  MAX_WARNINGS,
  RING_TIMEOUT_MS,
  isValidDigits,
  type CallDirection,
} from '../../../src/machines/call.setup';

/** One call over a fake adapter that records what the machine asked of it. */
function startCall(direction: CallDirection, remote = remoteFromAddress('client:bob')) {
  const clock = new SimulatedClock();
  clock.set(1_000_000);
  const asked: Array<[string, unknown]> = [];
  const record = (name: string) => (_: unknown, params: unknown) => {
    asked.push([name, params]);
  };
  const machine = callMachine.provide({ actions: callAdapterActions(record) });
  const actor = createActor(machine, {
    clock,
    input: { direction, callId: 'CA1', remote, params: { team: 'sales' }, now: () => clock.now() },
  }).start();
  const status = () => selectCallStatus(actor.getSnapshot());
  return { actor, clock, asked, status, snap: () => actor.getSnapshot() };
}

describe('call machine: outgoing', () => {
  it('dials the remote address with the params, then rings, then opens', () => {
    const c = startCall('outgoing', remoteFromAddress('+441632960001'));
    expect(c.status()).toBe('connecting');
    expect(c.asked).toEqual([
      ['placeCall', { callId: 'CA1', to: '+441632960001', params: { team: 'sales' } }],
    ]);
    c.actor.send({ type: 'call.ringing' });
    expect(c.status()).toBe('ringing');
    expect(c.snap().hasTag('ringing')).toBe(true);
    c.clock.increment(4_000);
    c.actor.send({ type: 'call.accepted' });
    expect(c.status()).toBe('open');
    expect(c.snap().context.answeredAt).toBe(1_004_000);
  });

  it('opens straight from connecting when the answer comes without ringing', () => {
    const c = startCall('outgoing');
    c.actor.send({ type: 'call.accepted' });
    expect(c.status()).toBe('open');
  });

  it('ends busy when the SDK reports 31486 then disconnects', () => {
    const c = startCall('outgoing');
    c.actor.send({ type: 'call.ringing' });
    c.actor.send({ type: 'call.error', code: 31486, message: 'Busy Here' });
    expect(c.status()).toBe('ringing');
    c.actor.send({ type: 'call.disconnected' });
    expect(c.status()).toBe('ended');
    expect(selectCallEndReason(c.snap())).toBe('busy');
    expect(selectCallEndMessage(c.snap())).toBe('Busy: they are on another call.');
    expect(selectCallDuration(2_000_000)(c.snap())).toBeNull();
  });

  it('ends with "no answer" when the other side ends an unanswered call without an error', () => {
    const c = startCall('outgoing');
    c.actor.send({ type: 'call.disconnected' });
    expect(selectCallEndReason(c.snap())).toBe('noAnswer');
  });

  it('hangs up while dialling: tells the adapter and ends as hung up by you', () => {
    const c = startCall('outgoing');
    c.actor.send({ type: 'call.hangUp' });
    expect(c.asked.at(-1)).toEqual(['hangUpCall', { callId: 'CA1' }]);
    expect(selectCallEndReason(c.snap())).toBe('hungUpByYou');
    expect(c.snap().status).toBe('done');
  });
});

describe('call machine: incoming', () => {
  it('rings, is accepted, opens only when the SDK says accept', () => {
    const c = startCall('incoming');
    expect(c.status()).toBe('incoming');
    expect(c.asked).toEqual([]);
    c.actor.send({ type: 'call.accept' });
    expect(c.status()).toBe('answering');
    expect(c.asked).toEqual([['acceptCall', { callId: 'CA1' }]]);
    c.actor.send({ type: 'call.accepted' });
    expect(c.status()).toBe('open');
  });

  it('is missed after RING_TIMEOUT, and stops ringing here without telling the caller', () => {
    const c = startCall('incoming');
    c.clock.increment(RING_TIMEOUT_MS - 1);
    expect(c.status()).toBe('incoming');
    c.clock.increment(1);
    expect(c.status()).toBe('ended');
    expect(selectCallEndReason(c.snap())).toBe('missed');
    expect(c.asked).toEqual([['ignoreCall', { callId: 'CA1' }]]);
    expect(c.snap().context.endedAt).toBe(1_000_000 + RING_TIMEOUT_MS);
  });

  it('is not missed once accepted', () => {
    const c = startCall('incoming');
    c.actor.send({ type: 'call.accept' });
    c.clock.increment(RING_TIMEOUT_MS * 2);
    expect(c.status()).toBe('answering');
  });

  it('is rejected by us (reject, or hang up while it rings)', () => {
    for (const type of ['call.reject', 'call.hangUp'] as const) {
      const c = startCall('incoming');
      c.actor.send({ type });
      expect(c.asked).toEqual([['rejectCall', { callId: 'CA1' }]]);
      expect(selectCallEndReason(c.snap())).toBe('rejected');
    }
  });

  it('is cancelled by the caller', () => {
    const c = startCall('incoming');
    c.actor.send({ type: 'call.cancelled' });
    expect(selectCallEndMessage(c.snap())).toBe('The caller hung up before you answered.');
    expect(c.asked).toEqual([]);
  });

  it('is cancelled by the caller while we answer, or once open when our answer never reached the service', () => {
    // Seen in Chromium (tests/model/call.model.test.ts): the caller hangs up while the microphone
    // prompt is still open here, or while our uplink stalls after our media opened. The SDK then
    // emits only `cancel`; the call used to stay "Connecting…" or "On call" for good.
    const answering = startCall('incoming');
    answering.actor.send({ type: 'call.accept' });
    answering.actor.send({ type: 'call.cancelled' });
    expect(answering.status()).toBe('ended');
    expect(selectCallEndReason(answering.snap())).toBe('cancelled');
    expect(answering.snap().hasTag('live')).toBe(false);

    const open = startCall('incoming');
    open.actor.send({ type: 'call.accept' });
    open.actor.send({ type: 'call.accepted' });
    open.clock.increment(2_000);
    open.actor.send({ type: 'call.cancelled' });
    expect(open.status()).toBe('ended');
    expect(selectCallEndReason(open.snap())).toBe('cancelled');
    expect(selectCallDuration(0)(open.snap())).toBe(2_000);
  });

  it('ends with the microphone reason when accepting fails on the microphone', () => {
    const c = startCall('incoming');
    c.actor.send({ type: 'call.accept' });
    c.actor.send({ type: 'call.error', code: 31401, message: 'Permission denied' });
    c.actor.send({ type: 'call.disconnected' });
    expect(selectCallEndReason(c.snap())).toBe('microphoneBlocked');
  });
});

describe('call machine: in call', () => {
  function openCall() {
    const c = startCall('incoming');
    c.actor.send({ type: 'call.accept' });
    c.actor.send({ type: 'call.accepted' });
    c.asked.length = 0;
    return c;
  }

  it('mutes and unmutes, telling the adapter each time', () => {
    const c = openCall();
    c.actor.send({ type: 'call.mute' });
    expect(selectCallMuted(c.snap())).toBe(true);
    c.actor.send({ type: 'call.mute' });
    c.actor.send({ type: 'call.unmute' });
    expect(selectCallMuted(c.snap())).toBe(false);
    expect(c.asked).toEqual([
      ['setMuted', { callId: 'CA1', muted: true }],
      ['setMuted', { callId: 'CA1', muted: false }],
    ]);
  });

  it('sends valid keypad digits and drops anything else', () => {
    const c = openCall();
    c.actor.send({ type: 'call.digits', digits: '12#' });
    c.actor.send({ type: 'call.digits', digits: '9a' });
    c.actor.send({ type: 'call.digits', digits: '' });
    c.actor.send({ type: 'call.digits', digits: 'w*' });
    expect(c.asked).toEqual([
      ['sendDigits', { callId: 'CA1', digits: '12#' }],
      ['sendDigits', { callId: 'CA1', digits: 'w*' }],
    ]);
    expect(selectCallDigits(c.snap())).toBe('12#w*');
  });

  it('goes reconnecting and back, keeping mute', () => {
    const c = openCall();
    c.actor.send({ type: 'call.mute' });
    c.actor.send({ type: 'call.reconnecting' });
    expect(c.status()).toBe('reconnecting');
    c.actor.send({ type: 'call.reconnected' });
    expect(c.status()).toBe('open');
    expect(selectCallMuted(c.snap())).toBe(true);
  });

  it('ends "reconnect failed" when the SDK gives up with 31209', () => {
    const c = openCall();
    c.actor.send({ type: 'call.reconnecting' });
    c.actor.send({ type: 'call.error', code: 31209, message: 'Reconnect attempt failed' });
    c.actor.send({ type: 'call.disconnected' });
    expect(selectCallEndReason(c.snap())).toBe('reconnectFailed');
  });

  it('counts the duration from answer to end on the provided clock', () => {
    const c = openCall();
    const answeredAt = c.snap().context.answeredAt!;
    c.clock.increment(65_000);
    expect(selectCallDuration(c.clock.now())(c.snap())).toBe(65_000);
    c.actor.send({ type: 'call.disconnected' });
    expect(selectCallEndReason(c.snap())).toBe('hungUpByThem');
    expect(selectCallDuration(answeredAt + 999_999)(c.snap())).toBe(65_000);
  });

  it('hangs up: the adapter is told and the call is over', () => {
    const c = openCall();
    c.actor.send({ type: 'call.hangUp' });
    expect(c.asked).toEqual([['hangUpCall', { callId: 'CA1' }]]);
    expect(selectCallEndReason(c.snap())).toBe('hungUpByYou');
    expect(c.snap().status).toBe('done');
  });
});

describe('call error codes', () => {
  it.each([
    [31480, 'noAnswer'],
    [31486, 'busy'],
    [31603, 'declined'],
    [31404, 'notFound'],
    [31209, 'reconnectFailed'],
    [31003, 'connectionLost'],
    [53405, 'connectionLost'],
    [31005, 'gatewayError'],
    [31401, 'microphoneBlocked'],
    [31402, 'microphoneMissing'],
    [99999, 'failed'],
  ] as const)('maps %i to %s', (code, reason) => {
    expect(endReasonForCode(code)).toBe(reason);
    expect(describeEndReason(reason)).toMatch(/\.$/);
  });

  it('describes device errors in words, falling back to the SDK message', () => {
    expect(describeDeviceError(20104)).toBe('Your voice sign-in expired. Try again.');
    expect(describeDeviceError(31401)).toMatch(/blocked the microphone/);
    expect(describeDeviceError(53001)).toMatch(/connection .* was lost/);
    expect(describeDeviceError(31009, 'Transport unavailable')).toBe(
      'The phone had a problem (31009). Transport unavailable',
    );
    expect(describeDeviceError(null)).toBe('The phone had a problem.');
  });

  it('reads addresses both ways', () => {
    expect(remoteFromAddress('client:alice', 'Alice')).toEqual({
      identity: 'alice',
      number: null,
      displayName: 'Alice',
    });
    expect(addressOf(remoteFromAddress('client:alice'))).toBe('client:alice');
    expect(addressOf(remoteFromAddress('+15005550006'))).toBe('+15005550006');
  });

  it('accepts only keypad characters as digits', () => {
    expect(isValidDigits('0123456789*#wW')).toBe(true);
    expect(isValidDigits('1-2')).toBe(false);
    expect(isValidDigits('')).toBe(false);
  });
});

describe("call machine: a ring group call's routing", () => {
  it('keeps the decisions in order whatever the call is doing, at most 50, and changes no state', () => {
    const c = startCall('outgoing', remoteFromAddress('500'));
    c.actor.send({ type: 'call.routed', kind: 'situation', text: 'Sales is open.' });
    expect(c.status()).toBe('connecting');
    c.actor.send({ type: 'call.accepted' });
    c.actor.send({ type: 'call.routed', kind: 'ring', text: 'Ringing Ann at once.' });
    expect(c.status()).toBe('open');
    expect(selectCallRouting(c.snap())).toEqual([
      { kind: 'situation', text: 'Sales is open.' },
      { kind: 'ring', text: 'Ringing Ann at once.' },
    ]);
    for (let i = 0; i < 60; i++) c.actor.send({ type: 'call.routed', kind: 'ring', text: `${i}` });
    expect(selectCallRouting(c.snap())).toHaveLength(MAX_ROUTING_NOTES);
    c.actor.send({ type: 'call.hangUp' });
    expect(c.status()).toBe('ended');
  });
});

describe("call machine: the SDK's quality warnings", () => {
  it('keeps the warnings raised and not cleared, each once, in any state, and none once ended', () => {
    const c = startCall('outgoing');
    c.actor.send({ type: 'call.quality.warning', name: 'high-rtt' });
    expect(c.status()).toBe('connecting');
    c.actor.send({ type: 'call.accepted' });
    c.actor.send({ type: 'call.quality.warning', name: 'high-packet-loss' });
    c.actor.send({ type: 'call.quality.warning', name: 'high-packet-loss' });
    c.actor.send({ type: 'call.quality.warning', name: 'low-mos' });
    expect(selectCallWarnings(c.snap())).toEqual(['high-rtt', 'high-packet-loss', 'low-mos']);
    c.actor.send({ type: 'call.quality.cleared', name: 'high-rtt' });
    c.actor.send({ type: 'call.quality.cleared', name: 'never-raised' });
    expect(selectCallSummary(c.snap()).warnings).toEqual(['high-packet-loss', 'low-mos']);
    c.actor.send({ type: 'call.mute' });
    expect(selectCallWarnings(c.snap())).toEqual(['high-packet-loss', 'low-mos']);
    expect(c.status()).toBe('open');
    for (let i = 0; i < 30; i++) c.actor.send({ type: 'call.quality.warning', name: `w-${i}` });
    expect(selectCallWarnings(c.snap())).toHaveLength(MAX_WARNINGS);
    c.actor.send({ type: 'call.hangUp' });
    expect(c.status()).toBe('ended');
    expect(selectCallWarnings(c.snap())).toEqual([]);
  });

  it('an unchanged warning list is the same array (the card does not re-render)', () => {
    const c = startCall('incoming');
    const before = selectCallWarnings(c.snap());
    c.actor.send({ type: 'call.quality.cleared', name: 'high-rtt' });
    expect(selectCallWarnings(c.snap())).toBe(before);
  });
});
