/**
 * The device machine over fake ports: voice tokens, registration checks and the tab lock are
 * promises the test settles by hand; the adapter actions (device and call) are recorded in order.
 */
import {
  createActor,
  fromPromise,
  SimulatedClock,
  type EventObject,
  type InspectionEvent,
} from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { deviceMachine } from '../../../src/machines/device.machine';
import { callAdapterActions } from './callAdapter';
import { deferred, settle } from './syncModelSupport';
import {
  RECONNECT_TIMEOUT_MS,
  TOKEN_EXPIRY_MS,
  UNREGISTER_TIMEOUT_MS,
  renewBackoffMs,
} from '../../../src/machines/device.setup';

type Deferred<T> = ReturnType<typeof deferred<T>>;

interface Ports {
  asked: Array<[string, unknown]>;
  pending: {
    registrationToken: Array<Deferred<string>>;
    renewalToken: Array<Deferred<string>>;
    checkRegistration: Array<Deferred<'registered' | 'unregistered'>>;
    acquireLock: Array<Deferred<void>>;
  };
}

/**
 * Each harness's ports, by its actor system: the machines below are provided once (a `provide` builds
 * a whole machine again, a quarter of the model walk's time when every path made its own) and find
 * the ports of the actor that runs them.
 */
const portsBySystem = new WeakMap<object, Ports>();
const portsOf = (system: object): Ports => {
  const ports = portsBySystem.get(system);
  if (!ports) throw new Error('a device machine ran outside deviceHarness');
  return ports;
};
const record =
  (name: string) =>
  ({ system }: { system: object }, params: unknown) => {
    portsOf(system).asked.push(params === undefined ? [name, null] : [name, params]);
  };
/** A pending port call; dropped from its queue when XState cancels it (its state was left). */
function hold<T>(queue: Array<Deferred<T>>, signal: AbortSignal): Promise<T> {
  const d = deferred<T>();
  queue.push(d);
  signal.addEventListener('abort', () => queue.splice(queue.indexOf(d), 1));
  return d.promise;
}
const providedCall = callMachine.provide({ actions: callAdapterActions(record) });
const providedDevice = deviceMachine.provide({
  actors: {
    fetchVoiceToken: fromPromise(({ self, system, signal }) => {
      const { pending } = portsOf(system);
      return hold(
        self.id === 'renewalToken' ? pending.renewalToken : pending.registrationToken,
        signal,
      );
    }),
    checkRegistration: fromPromise(({ system, signal }) =>
      hold(portsOf(system).pending.checkRegistration, signal),
    ),
    acquireLock: fromPromise(({ system, signal }) =>
      hold(portsOf(system).pending.acquireLock, signal),
    ),
    call: providedCall,
  },
  actions: {
    register: record('register'),
    updateToken: record('updateToken'),
    unregister: record('unregister'),
    releaseLock: record('releaseLock'),
  },
});

export function deviceHarness(
  options: { owner?: boolean; inspect?: (e: InspectionEvent) => void } = {},
) {
  const clock = new SimulatedClock();
  clock.set(5_000_000);
  const ports: Ports = {
    asked: [],
    pending: { registrationToken: [], renewalToken: [], checkRegistration: [], acquireLock: [] },
  };
  const actor = createActor(providedDevice, {
    clock,
    input: { owner: options.owner ?? true, now: () => clock.now() },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  portsBySystem.set(actor.system, ports);
  actor.start();
  const { asked, pending } = ports;
  return { actor, clock, asked, pending, snap: () => actor.getSnapshot() };
}

export type DeviceSut = ReturnType<typeof deviceHarness>;
/** A device event as the model names it: the machine's own, a timer's, or a settled port's. */
export type DeviceModelEvent = EventObject & Record<string, unknown>;

/** The event XState raises when a delayed transition of `state` fires. */
export const deviceTimer = (delay: string, state: string) =>
  `xstate.after.${delay}.device.${state}`;

const TIMERS: Record<string, number | ((sut: DeviceSut) => number)> = {
  [deviceTimer('TOKEN_EXPIRY', 'owner.token.renewing')]: TOKEN_EXPIRY_MS,
  [deviceTimer('RENEW_BACKOFF', 'owner.token.renewing.waiting')]: (sut) =>
    renewBackoffMs(sut.snap().context.renewAttempts),
  [deviceTimer('RECONNECT_TIMEOUT', 'owner.registration.reconnecting')]: RECONNECT_TIMEOUT_MS,
  [deviceTimer('UNREGISTER_TIMEOUT', 'releasing')]: UNREGISTER_TIMEOUT_MS,
  [deviceTimer('UNREGISTER_TIMEOUT', 'signingOut')]: UNREGISTER_TIMEOUT_MS,
};

/**
 * Makes the harness's live actor take a model event: a timer's event moves the clock by its delay,
 * a settled port's event settles the oldest pending call of that port, a call's done event hangs
 * that call up; any other event is sent.
 */
export async function replayDeviceEvent(sut: DeviceSut, e: DeviceModelEvent): Promise<void> {
  const timer = TIMERS[e.type];
  const settled = /^xstate\.(done|error)\.actor\.([\w-]+)$/.exec(e.type);
  const port = settled?.[2] as keyof DeviceSut['pending'] | undefined;
  if (timer !== undefined) {
    sut.clock.increment(typeof timer === 'number' ? timer : timer(sut));
  } else if (settled && port !== undefined && port in sut.pending) {
    const pending = sut.pending[port].shift();
    if (!pending) throw new Error(`${e.type} with no pending ${port}`);
    if (settled[1] === 'done') pending.resolve(e.output as never);
    else pending.reject(e.error);
    await settle(); // only a settled promise needs the microtasks to run
  } else if (settled) {
    // A call's done event: make the live call end (we hang up), and XState reports it.
    sut.snap().context.calls[settled[2]!]!.send({ type: 'call.hangUp' });
  } else {
    sut.actor.send(e as never);
  }
}
