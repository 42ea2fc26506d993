import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, getNextSnapshot, type EventObject } from 'xstate';
import {
  editorMachine,
  type Revisioned,
  type SaveRequest,
} from '../../../src/machines/editor.machine';
import type { JsonObject } from '../../../src/machines/syncPorts';
import { Coverage, deferred, settle } from './syncModelSupport';

type ModelEvent = EventObject & { output?: Revisioned; error?: unknown; values?: JsonObject };

const validate = (v: JsonObject) => (v.name === '' ? { name: 'Enter a name.' } : {});
const input = { validate };
const rev = (name: string, revision: string): Revisioned => ({ values: { name }, revision });
const conflictError = Object.assign(new Error('changed elsewhere'), {
  status: 412,
  current: rev('Theirs', 't'),
});

const byState: Record<string, ModelEvent[]> = {
  loading: [
    { type: 'xstate.done.actor.load', output: rev('Stored', '1') },
    { type: 'xstate.error.actor.load', error: new Error('gone') },
  ],
  loadFailed: [{ type: 'editor.retry' }],
  editing: [
    { type: 'editor.change', values: { name: 'Mine' } },
    { type: 'editor.change', values: { name: '' } },
    { type: 'editor.save' },
    { type: 'editor.remoteChanged', current: rev('Remote', 'r') } as ModelEvent,
    { type: 'editor.reload' },
  ],
  saving: [
    { type: 'xstate.done.actor.save', output: rev('Saved', '2') },
    { type: 'xstate.error.actor.save', error: conflictError },
    { type: 'xstate.error.actor.save', error: new Error('offline') },
  ],
  conflict: [
    { type: 'editor.reload' },
    { type: 'editor.overwrite' },
    { type: 'editor.change', values: { name: 'Again' } },
    { type: 'editor.remoteChanged', current: rev('Newer', 'n') } as ModelEvent,
  ],
};

const coverage = new Coverage(editorMachine);

/** The live machine, with load and save calls the test settles by hand. */
function live() {
  const pending: Record<'load' | 'save', Array<ReturnType<typeof deferred<Revisioned>>>> = {
    load: [],
    save: [],
  };
  const call = (kind: 'load' | 'save') => (): Promise<Revisioned> => {
    const d = deferred<Revisioned>();
    pending[kind].push(d);
    return d.promise;
  };
  const machine = editorMachine.provide({
    actors: {
      load: fromPromise<Revisioned>(call('load')),
      save: fromPromise<Revisioned, SaveRequest>(call('save')),
    },
  });
  const actor = createActor(machine, { input, inspect: coverage.inspect }).start();
  const replay = async (event: ModelEvent): Promise<void> => {
    if (event.type.startsWith('xstate.done') || event.type.startsWith('xstate.error')) {
      const kind = event.type.endsWith('.load') ? 'load' : 'save';
      const pendingCall = pending[kind].shift();
      expect(pendingCall, `a pending ${kind}`).toBeDefined();
      if (event.type.startsWith('xstate.done')) pendingCall!.resolve(event.output!);
      else pendingCall!.reject(event.error);
      await settle();
    } else if (event.type !== 'xstate.init') {
      actor.send(event as never);
    }
  };
  return { actor, replay };
}

const full = (s: {
  value: unknown;
  context: { draft: JsonObject | null; base: Revisioned | null; theirs: Revisioned | null };
}): string => JSON.stringify([s.value, s.context.draft, s.context.base, s.context.theirs]);

describe('editor model (every reachable state, then every edge out of it)', () => {
  afterAll(() => console.log(coverage.report('editor model')));

  it('the live machine agrees with the model on every path and every edge', async () => {
    const events = (state: { value: unknown }) => (byState[String(state.value)] ?? []) as never;
    const paths = getShortestPaths(editorMachine, { input, events, serializeState: full });
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      for (const extra of [null, ...byState[String(path.state.value)]!]) {
        const sut = live();
        coverage.paths += 1;
        const label = path.steps.map((x) => x.event.type).join(' > ');
        for (const step of path.steps) {
          await sut.replay(step.event);
          coverage.steps += 1;
          expect(full(sut.actor.getSnapshot()), label).toBe(full(step.state));
        }
        if (extra) {
          await sut.replay(extra);
          coverage.steps += 1;
          const expected = getNextSnapshot(editorMachine, path.state, extra as never);
          expect(full(sut.actor.getSnapshot()), `${label} > ${extra.type}`).toBe(full(expected));
        }
        sut.actor.stop();
      }
    }
  });

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions(), coverage.missingTransitions().join('\n')).toEqual([]);
  });
});
