import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { getNextSnapshot, type SnapshotFrom } from 'xstate';
import { remoteFromAddress } from '../../../src/machines/call.types';
import { deviceMachine } from '../../../src/machines/device.machine';
import {
  deviceHarness,
  deviceTimer as after,
  replayDeviceEvent,
  type DeviceModelEvent as ModelEvent,
  type DeviceSut as Sut,
} from './deviceHarness';
import { Coverage, walkEdges } from './syncModelSupport';

type Snap = SnapshotFrom<typeof deviceMachine>;

const fixed: ModelEvent[] = [
  { type: 'device.takeOver' },
  { type: 'device.release' },
  { type: 'device.signOut' },
  { type: 'device.retry' },
  { type: 'device.registered' },
  { type: 'device.unregistered' },
  { type: 'device.error', code: 53001, message: 'Signaling connection lost' },
  { type: 'device.error', code: 20104, message: 'AccessTokenExpired' },
  { type: 'device.error', code: 31401, message: 'Permission denied' },
  { type: 'device.tokenWillExpire' },
  { type: 'page.visible' },
  { type: 'xstate.done.actor.registrationToken', output: 'token-a' },
  { type: 'xstate.error.actor.registrationToken', error: new Error('503') },
  { type: 'xstate.done.actor.renewalToken', output: 'token-b' },
  { type: 'xstate.done.actor.checkRegistration', output: 'registered' },
  { type: 'xstate.done.actor.checkRegistration', output: 'unregistered' },
  { type: 'xstate.error.actor.checkRegistration', error: new Error('no device') },
  { type: 'xstate.done.actor.acquireLock' },
  { type: 'xstate.error.actor.acquireLock', error: new Error('held') },
];

/**
 * The events the model offers in a state, kept finite: one call at a time, one dial ever, one failed
 * renewal in a row. A timer is offered only when no shorter timer could fire first in the live
 * actor (a backoff before expiry; a ringing call's RING_TIMEOUT before the reconnect timeout).
 */
function eventsFor(s: Snap): ModelEvent[] {
  // Signed out is final: the live actor has stopped, whatever the root's `on` would still take.
  if (s.status !== 'active') return [];
  const { calls, ended, renewAttempts, dialled } = s.context;
  const ids = Object.keys(calls);
  const live = ids.filter((id) => !ended.includes(id));
  const list: ModelEvent[] = [...fixed];
  if (renewAttempts < 1) {
    list.push({ type: 'xstate.error.actor.renewalToken', error: new Error('503') });
  }
  if (ids.length === 0) {
    list.push({
      type: 'device.incoming',
      callId: 'CA1',
      from: 'client:carol',
      to: 'client:alice',
      params: {},
    });
    if (dialled === 0)
      list.push({ type: 'device.dial', to: remoteFromAddress('+15005550006'), params: {} });
  }
  for (const id of live) {
    list.push({ type: 'device.call', callId: id, event: { type: 'call.ringing' } });
    list.push({ type: `xstate.done.actor.${id}` });
  }
  for (const id of ended) list.push({ type: 'device.dismissCall', callId: id });
  const reconnecting = s.matches({ owner: { registration: 'reconnecting' } });
  const renewing = s.matches({ owner: { token: 'renewing' } });
  if (s.matches({ owner: { token: { renewing: 'fetching' } } }) && !reconnecting) {
    list.push({ type: after('TOKEN_EXPIRY', 'owner.token.renewing') });
  }
  if (!reconnecting) list.push({ type: after('RENEW_BACKOFF', 'owner.token.renewing.waiting') });
  if (!renewing && live.length === 0) {
    list.push({ type: after('RECONNECT_TIMEOUT', 'owner.registration.reconnecting') });
  }
  list.push({ type: after('UNREGISTER_TIMEOUT', 'releasing') });
  list.push({ type: after('UNREGISTER_TIMEOUT', 'signingOut') });
  // While a call is in context, only what concerns calls (and leaving): every other transition is
  // already walked without calls, and the product of both would make the model slow.
  const withCalls = new Set([
    'device.call',
    'device.dismissCall',
    'device.release',
    'device.signOut',
  ]);
  return list.filter(
    (e) =>
      s.can(e as never) &&
      (ids.length === 0 ||
        withCalls.has(e.type) ||
        e.type.startsWith('xstate.done.actor.') ||
        !s.matches('owner')),
  );
}

/** What must agree between model and live actor. Call actors are compared by id. */
const view = (s: Snap) =>
  JSON.stringify([
    s.value,
    s.status,
    Object.keys(s.context.calls),
    s.context.ended,
    s.context.lastError,
    s.context.tokenError,
    s.context.renewAttempts,
    s.context.dialled,
  ]);

/**
 * The traversal's state key: coarser than the view (errors and counters folded), so the model stays
 * small; walkEdges recomputes the exact expected view along each path.
 */
const key = (s: Snap) =>
  JSON.stringify([
    s.value,
    s.status,
    Object.keys(s.context.calls),
    s.context.ended,
    s.context.renewAttempts,
    s.context.lastError === null,
    s.context.tokenError !== null,
    s.context.dialled > 0,
  ]);

const coverage = new Coverage(deviceMachine);

describe('device model (every reachable state, then every edge out of it)', () => {
  afterAll(() => console.log(coverage.report('device model')));

  it.each([true, false])(
    'the live device (owner at start: %s) agrees with the model on every path and edge',
    async (owner) => {
      const input = { owner, now: () => 0 };
      const paths = getShortestPaths(deviceMachine, {
        input,
        events: (s) => eventsFor(s) as never,
        serializeState: (s) => key(s),
      });
      expect(paths.length).toBeGreaterThan(20);
      await walkEdges<Snap, ModelEvent, Sut>({
        paths: paths,
        eventsFor,
        next: (s, e) => getNextSnapshot(deviceMachine, s, e as never),
        start: () => deviceHarness({ owner, inspect: coverage.inspect }),
        replay: replayDeviceEvent,
        read: (sut) => sut.snap(),
        view,
        stop: (sut) => sut.actor.stop(),
        coverage,
        check: (actual, expected, where) => expect(actual, where).toEqual(expected),
      });
    },
    120_000,
  );

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions(), coverage.missingTransitions().join('\n')).toEqual([]);
  });
});
