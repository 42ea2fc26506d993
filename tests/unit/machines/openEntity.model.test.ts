import { getSimplePaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type EventObject } from 'xstate';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import type { Opened, OpenRequest } from '../../../src/machines/syncPorts';
import { FakeList, conflict, notFound, serverError } from './syncFakes';
import { Coverage, deferred, settle } from './syncModelSupport';

type ModelEvent = EventObject & { output?: Opened; error?: Error };

const opened: Opened = { port: new FakeList('ES1', 'calls'), source: null };
const onOpen: ModelEvent[] = [
  { type: 'xstate.done.actor.open', output: opened },
  { type: 'xstate.error.actor.open', error: notFound() },
  { type: 'xstate.error.actor.open', error: serverError() },
];
const onCreate: ModelEvent[] = [
  { type: 'xstate.done.actor.create', output: opened },
  { type: 'xstate.error.actor.create', error: conflict() },
  { type: 'xstate.error.actor.create', error: serverError() },
];

/** The system under test: the machine with open/create calls the test settles by hand. */
function system() {
  const pending: Record<'open' | 'create', Array<ReturnType<typeof deferred<Opened>>>> = {
    open: [],
    create: [],
  };
  const call = (kind: 'open' | 'create') =>
    fromPromise<Opened, OpenRequest>(() => {
      const d = deferred<Opened>();
      pending[kind].push(d);
      return d.promise;
    });
  const machine = openEntityMachine.provide({
    actors: { open: call('open'), create: call('create') },
  });
  return { machine, pending };
}

const coverage = new Coverage(openEntityMachine);

describe('openEntity model (all simple paths, every mode)', () => {
  afterAll(() => {
    console.log(coverage.report('openEntity model'));
  });

  const requests: Array<[string, OpenRequest]> = [
    ['open_or_create', { kind: 'list', id: 'calls', mode: 'open_or_create' }],
    ['open_existing', { kind: 'list', id: 'calls', mode: 'open_existing' }],
    ['create_new', { kind: 'list', id: 'calls', mode: 'create_new' }],
    ['open_existing without an id', { kind: 'list', mode: 'open_existing' }],
  ];
  it.each(requests)(
    'the live machine follows every simple path of the %s model',
    async (_, request) => {
      const input = { request };
      const paths = getSimplePaths(openEntityMachine, {
        input,
        events: (state) =>
          (state.matches('opening') ? onOpen : state.matches('creating') ? onCreate : []) as never,
        serializeState: (s) => JSON.stringify([s.value, s.context.reopens]),
      });
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        const { machine, pending } = system();
        const actor = createActor(machine, { input, inspect: coverage.inspect }).start();
        coverage.paths += 1;
        for (const step of path.steps) {
          const event = step.event as ModelEvent;
          if (event.type.startsWith('xstate.') && event.type !== 'xstate.init') {
            const kind = event.type.endsWith('.open') ? 'open' : 'create';
            const call = pending[kind].shift();
            expect(call, `a pending ${kind} call`).toBeDefined();
            if (event.type.startsWith('xstate.done')) call!.resolve(event.output!);
            else call!.reject(event.error);
            await settle();
            coverage.steps += 1;
          }
          const live = actor.getSnapshot();
          expect(live.value).toEqual(step.state.value);
          expect(live.context.reopens).toBe(step.state.context.reopens);
          expect(live.context.error?.message).toBe(step.state.context.error?.message);
        }
        actor.stop();
      }
    },
  );

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions()).toEqual([]);
  });
});
