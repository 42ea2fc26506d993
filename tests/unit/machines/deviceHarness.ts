/**
 * The device machine over fake ports: voice tokens, registration checks and the tab lock are
 * promises the test settles by hand; the adapter actions (device and call) are recorded in order.
 */
import { createActor, fromPromise, SimulatedClock, type InspectionEvent } from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { deviceMachine } from '../../../src/machines/device.machine';
import { deferred } from './syncModelSupport';

type Deferred<T> = ReturnType<typeof deferred<T>>;

export function deviceHarness(
  options: { owner?: boolean; inspect?: (e: InspectionEvent) => void } = {},
) {
  const clock = new SimulatedClock();
  clock.set(5_000_000);
  const asked: Array<[string, unknown]> = [];
  const pending = {
    registrationToken: [] as Array<Deferred<string>>,
    renewalToken: [] as Array<Deferred<string>>,
    checkRegistration: [] as Array<Deferred<'registered' | 'unregistered'>>,
    acquireLock: [] as Array<Deferred<void>>,
  };
  const record = (name: string) => (_: unknown, params: unknown) => {
    asked.push(params === undefined ? [name, null] : [name, params]);
  };
  const call = callMachine.provide({
    actions: {
      placeCall: record('placeCall'),
      acceptCall: record('acceptCall'),
      rejectCall: record('rejectCall'),
      ignoreCall: record('ignoreCall'),
      hangUpCall: record('hangUpCall'),
      setMuted: record('setMuted'),
      sendDigits: record('sendDigits'),
    },
  });
  /** A pending port call; dropped from its queue when XState cancels it (its state was left). */
  function hold<T>(queue: Array<Deferred<T>>, signal: AbortSignal): Promise<T> {
    const d = deferred<T>();
    queue.push(d);
    signal.addEventListener('abort', () => queue.splice(queue.indexOf(d), 1));
    return d.promise;
  }
  const machine = deviceMachine.provide({
    actors: {
      fetchVoiceToken: fromPromise(({ self, signal }) =>
        hold(self.id === 'renewalToken' ? pending.renewalToken : pending.registrationToken, signal),
      ),
      checkRegistration: fromPromise(({ signal }) => hold(pending.checkRegistration, signal)),
      acquireLock: fromPromise(({ signal }) => hold(pending.acquireLock, signal)),
      call,
    },
    actions: {
      register: record('register'),
      updateToken: record('updateToken'),
      unregister: record('unregister'),
      releaseLock: record('releaseLock'),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: { owner: options.owner ?? true, now: () => clock.now() },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  }).start();
  return { actor, clock, asked, pending, snap: () => actor.getSnapshot() };
}
