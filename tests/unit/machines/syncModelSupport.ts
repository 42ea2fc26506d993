/**
 * Support for model-based tests: paths come from @xstate/graph traversals of a machine; each path
 * is replayed against a real actor driven through fake ports, and we check the actor agrees with
 * the model after every step. Coverage of the machine's states and transitions is collected from
 * the live actor's microsteps (so eventless and invoke transitions count too).
 */
import { getStateNodes } from '@xstate/graph';
import type { AnyStateMachine, AnyTransitionDefinition, InspectionEvent } from 'xstate';

type Node = {
  id: string;
  transitions: Map<string, AnyTransitionDefinition[]>;
  always?: AnyTransitionDefinition[];
};

/**
 * A transition's identity that survives `machine.provide()` (which rebuilds the node objects):
 * source state id, event type, and position among that source's transitions for the event.
 */
function keyOf(t: AnyTransitionDefinition): string {
  const source = t.source as unknown as Node;
  const list = t.eventType ? source.transitions.get(t.eventType) : undefined;
  const index = list?.indexOf(t) ?? -1;
  if (index >= 0) return `${source.id} --${t.eventType}#${index}--> ${targets(t)}`;
  return `${source.id} --always#${source.always?.indexOf(t) ?? -1}--> ${targets(t)}`;
}

const targets = (t: AnyTransitionDefinition) => (t.target ?? []).map((n) => n.id).join(',');

export class Coverage {
  readonly allStates: Set<string>;
  readonly allTransitions: Set<string>;
  readonly states = new Set<string>();
  readonly transitions = new Set<string>();
  paths = 0;
  steps = 0;

  constructor(machine: AnyStateMachine) {
    const nodes = getStateNodes(machine.root) as unknown as Node[];
    this.allStates = new Set(nodes.map((n) => n.id));
    this.allTransitions = new Set(
      nodes.flatMap((n) => [...[...n.transitions.values()].flat(), ...(n.always ?? [])]).map(keyOf),
    );
  }

  /** Pass as `createActor(machine, { inspect: coverage.inspect })`. */
  readonly inspect = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep') return;
    for (const t of event._transitions) {
      const key = keyOf(t);
      if (!this.allTransitions.has(key)) continue;
      this.transitions.add(key);
      this.states.add(t.source.id);
      for (const target of t.target ?? []) this.states.add(target.id);
    }
    const nodes = (event.snapshot as { _nodes?: Array<{ id: string }> })._nodes ?? [];
    for (const n of nodes) if (this.allStates.has(n.id)) this.states.add(n.id);
  };

  missingStates(): string[] {
    return [...this.allStates].filter((s) => !this.states.has(s));
  }

  missingTransitions(): string[] {
    return [...this.allTransitions].filter((t) => !this.transitions.has(t));
  }

  report(name: string): string {
    return (
      `${name}: ${this.paths} paths, ${this.steps} steps; states ${this.states.size}/${this.allStates.size}, ` +
      `transitions ${this.transitions.size}/${this.allTransitions.size}`
    );
  }
}

/** Lets fake ports settle and actors react. */
export async function settle(times = 20) {
  for (let i = 0; i < times; i += 1) await Promise.resolve();
}

/** A promise a test resolves or rejects from outside, standing for one pending SDK call. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Walks every edge of a model: for each shortest path (one per model state) and each event the
 * model offers in its end state, a fresh live actor replays the path and then the event. After
 * every step the live actor's view must equal the model's. This covers every transition the
 * traversal can reach, not only the ones that lead somewhere new.
 */
export async function walkEdges<TSnap, TEvent extends { type: string }, TSut>(options: {
  paths: Array<{
    state: TSnap;
    steps: Array<{ event: TEvent; state: TSnap }>;
    description?: string;
  }>;
  eventsFor: (state: TSnap) => TEvent[];
  next: (state: TSnap, event: TEvent) => TSnap;
  start: () => TSut;
  replay: (sut: TSut, event: TEvent) => Promise<void>;
  read: (sut: TSut) => TSnap;
  view: (state: TSnap) => unknown;
  stop: (sut: TSut) => void;
  coverage: Coverage;
  check: (actual: unknown, expected: unknown, where: string) => void;
}) {
  for (const path of options.paths) {
    const extras: Array<TEvent | null> = options.eventsFor(path.state);
    if (extras.length === 0) extras.push(null);
    const label = path.steps.map((s) => s.event.type).join(' > ');
    // With a coarse state key the path's snapshots are representatives, so the expected states
    // are recomputed along this very path from the model itself: once, for every extra event.
    const expected: TSnap[] = [];
    for (const step of path.steps) {
      const before = expected[expected.length - 1];
      expected.push(
        step.event.type === 'xstate.init' || before === undefined
          ? step.state
          : options.next(before, step.event),
      );
    }
    const expectedViews = expected.map(options.view);
    const last = expected[expected.length - 1];
    for (const extra of extras) {
      const sut = options.start();
      options.coverage.paths += 1;
      for (const [i, step] of path.steps.entries()) {
        if (i > 0 && step.event.type !== 'xstate.init') await options.replay(sut, step.event);
        options.coverage.steps += 1;
        options.check(options.view(options.read(sut)), expectedViews[i], label);
      }
      if (extra && last !== undefined) {
        await options.replay(sut, extra);
        options.coverage.steps += 1;
        options.check(
          options.view(options.read(sut)),
          options.view(options.next(last, extra)),
          `${label} > ${extra.type}`,
        );
      }
      options.stop(sut);
    }
  }
}
