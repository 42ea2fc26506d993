import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createActor,
  fromPromise,
  getNextSnapshot,
  SimulatedClock,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { callAdapterActions } from './callAdapter';
import { remoteFromAddress } from '../../../src/machines/call.types';
import { Coverage, walkEdges } from './syncModelSupport';
import {
  RING_TIMEOUT_MS,
  type CallDirection,
  type CallInput,
} from '../../../src/machines/call.setup';

type Snap = SnapshotFrom<typeof callMachine>;
type ModelEvent = EventObject & Record<string, unknown>;

const RING_TIMEOUT = 'xstate.after.RING_TIMEOUT.call.incoming.ringing';

/** Every event the call knows, with both outcomes of each guard; the model keeps those it takes. */
const candidates: ModelEvent[] = [
  { type: 'call.ringing' },
  { type: 'call.accepted' },
  { type: 'call.cancelled' },
  { type: 'call.disconnected' },
  { type: 'call.reconnecting' },
  { type: 'call.reconnected' },
  { type: 'call.error', code: 31486, message: 'Busy Here' },
  { type: 'call.accept' },
  { type: 'call.reject' },
  { type: 'call.hangUp' },
  { type: 'call.mute' },
  { type: 'call.unmute' },
  { type: 'call.digits', digits: '1#' },
  { type: 'call.digits', digits: 'x' },
  { type: RING_TIMEOUT },
  { type: 'call.hold' },
  { type: 'call.resume' },
  { type: 'call.park' },
  { type: 'call.heldByThem' },
  { type: 'call.resumedByThem' },
  { type: 'call.transfer', to: 'cat', mode: 'blind' },
  { type: 'call.transfer', to: 'cat', mode: 'consult' },
  { type: 'call.transfer', to: '  ', mode: 'blind' },
  { type: 'call.consultAnswered' },
  { type: 'call.consultEnded', reason: 'cat declined.' },
  { type: 'call.completeTransfer' },
  { type: 'call.cancelTransfer' },
  // The server's answers to each control (the invoked controlCall settling).
  ...(
    ['hold', 'resume', 'park', 'transfer', 'completeTransfer', 'cancelTransfer'] as const
  ).flatMap((id) => [
    { type: `xstate.done.actor.${id}`, output: undefined },
    { type: `xstate.error.actor.${id}`, error: new Error(`No ${id} (test)`) },
  ]),
];
/** How many of the open call's parallel regions are away from their first state. */
function regionsAway(s: Snap): number {
  if (!s.matches('open')) return 0;
  const v = (s.value as { open: Record<string, string> }).open;
  const home: Record<string, string> = {
    audio: 'unmuted',
    hold: 'off',
    them: 'present',
    park: 'idle',
    transfer: 'idle',
    link: 'connected',
  };
  return Object.entries(home).filter(([region, first]) => v[region] !== first).length;
}

/**
 * Digits once only: each send lengthens `digits`, which would make the model endless. The open
 * call's five regions are walked one at a time (at most one away from its first state): every
 * state and transition is still reached, without walking every product of them.
 */
const eventsFor = (s: Snap): ModelEvent[] =>
  candidates.filter(
    (e) =>
      s.can(e as never) &&
      !(e.type === 'call.digits' && s.context.digits !== '') &&
      regionsAway(getNextSnapshot(callMachine, s, e as never)) <= 1,
  );

const inputFor = (direction: CallDirection, now: () => number): CallInput => ({
  direction,
  callId: 'CA1',
  remote: remoteFromAddress('client:bob'),
  params: {},
  now,
});

/** What must agree between model and live actor (times only as set or not: clocks differ). */
const view = (s: Snap) =>
  JSON.stringify([
    s.value,
    s.status,
    s.context.endReason,
    s.context.error,
    s.context.digits,
    s.context.problem,
    s.context.transfer,
    s.context.answeredAt !== null,
    s.context.endedAt !== null,
  ]);

const coverage = new Coverage(callMachine);

function live(direction: CallDirection) {
  const clock = new SimulatedClock();
  const sent: string[] = [];
  const machine = callMachine.provide({
    actions: callAdapterActions((name) => () => sent.push(name)),
    // The server's answer never comes by itself: the walk sends it as the done or error event.
    actors: { controlCall: fromPromise(() => new Promise<void>(() => {})) },
  });
  const actor = createActor(machine, {
    clock,
    input: inputFor(direction, () => clock.now()),
    inspect: coverage.inspect,
  }).start();
  return { actor, clock, sent };
}

describe('call model (every reachable state, then every edge out of it)', () => {
  afterAll(() => console.log(coverage.report('call model')));

  it.each(['outgoing', 'incoming'] as const)(
    'the live %s call agrees with the model on every path and edge',
    async (direction) => {
      const input = inputFor(direction, () => 0);
      const paths = getShortestPaths(callMachine, {
        input,
        events: (s) => eventsFor(s) as never,
        serializeState: (s) => view(s),
      });
      expect(paths.length).toBeGreaterThan(5);
      await walkEdges<Snap, ModelEvent, ReturnType<typeof live>>({
        paths: paths,
        eventsFor,
        next: (s, e) => getNextSnapshot(callMachine, s, e as never),
        start: () => live(direction),
        replay: (sut, e) => {
          if (e.type === RING_TIMEOUT) sut.clock.increment(RING_TIMEOUT_MS);
          else sut.actor.send(e as never);
          return Promise.resolve();
        },
        read: (sut) => sut.actor.getSnapshot(),
        view,
        stop: (sut) => sut.actor.stop(),
        coverage,
        check: (actual, expected, where) => expect(actual, where).toEqual(expected),
      });
    },
    // Hundreds of paths replayed on a live actor: seconds of CPU, more on a shared, busy machine.
    60_000,
  );

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions(), coverage.missingTransitions().join('\n')).toEqual([]);
  });
});
