import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { and, createMachine, not, setup } from 'xstate';
import {
  chartFor,
  eventLabel,
  guardName,
  loadMachines,
  renderAll,
} from '../../../scripts/statecharts';

const demo = setup({
  guards: { isReady: () => true, isFresh: () => true },
  delays: { autoDismiss: 5000 },
}).createMachine({
  id: 'demo',
  description: 'A demo machine.',
  initial: 'idle',
  states: {
    idle: {
      description: 'Waiting for work.',
      on: { 'work.start': { target: 'busy', guard: 'isReady' } },
    },
    busy: {
      tags: ['busy'],
      after: { autoDismiss: 'idle' },
      on: {
        'work.stop': { target: 'idle', guard: and(['isReady', not('isFresh')]) },
        'work.poke': {},
      },
    },
  },
});

describe('statechart generation', () => {
  it('draws every state, description, event and guard name of a machine', () => {
    const chart = chartFor('demo', demo);
    expect(chart.states).toBe(2);
    expect(chart.transitions).toBe(4);
    expect(chart.markdown).toContain('stateDiagram-v2');
    expect(chart.markdown).toContain('[*] --> idle');
    expect(chart.markdown).toContain('idle : Waiting for work.');
    expect(chart.markdown).toContain('idle --> busy : work.start [isReady]');
    expect(chart.markdown).toContain('busy --> idle : after autoDismiss');
    expect(chart.markdown).toContain('busy --> idle : work.stop [(isReady && !isFresh)]');
    expect(chart.markdown).toContain('busy --> busy : work.poke');
    expect(chart.markdown).toContain('A demo machine.');
  });

  it('names guards and internal events readably', () => {
    expect(guardName('x')).toBe('x');
    expect(guardName({ type: 'y', params: {} })).toBe('y');
    expect(guardName(not('z'))).toBe('!z');
    expect(eventLabel('xstate.done.actor.restore')).toBe('done: restore');
    expect(eventLabel('xstate.error.actor.restore')).toBe('error: restore');
    expect(eventLabel('xstate.after.autoDismiss.toast.shown')).toBe('after autoDismiss');
  });

  it('writes an index linking every machine', () => {
    const files = renderAll([
      chartFor('demo', demo),
      chartFor('plain', createMachine({ initial: 'a', states: { a: {} } })),
    ]);
    expect(files.get('README.md')).toContain('[demo](./demo.md)');
    expect(files.get('README.md')).toContain('[plain](./plain.md)');
  });

  it('has committed charts identical to a fresh generation from src/machines', async () => {
    const root = resolve(import.meta.dirname, '../../..');
    const machines = await loadMachines(join(root, 'src/machines'));
    const files = renderAll(machines.map(({ name, machine }) => chartFor(name, machine)));
    for (const [file, text] of files) {
      const path = join(root, 'docs/statecharts', file);
      expect(existsSync(path), `${file} is missing: run npm run charts`).toBe(true);
      expect(readFileSync(path, 'utf8'), `${file} is stale: run npm run charts`).toBe(text);
    }
  });
});
