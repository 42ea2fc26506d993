import { TestModel, type StatePath } from '@xstate/graph';
import type { AnyStateMachine, EventObject, Snapshot } from 'xstate';

type AnySnapshot = Snapshot<unknown> & { value: unknown };

export interface PlannedPath {
  name: string;
  steps: Array<{ event: EventObject; state: string }>;
}

export interface Plan {
  paths: PlannedPath[];
  states: { covered: number; total: number };
  transitions: { covered: number; total: number };
  summary: string;
}

/** A state value as a dotted leaf path: `shown.timed`, `signedIn`. */
export function stateKey(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}.${stateKey(v)}`)
      .join('+');
  }
  return String(value);
}

/** How an event variant is told apart in names and coverage (type plus its distinguishing field). */
export type EventName = (event: EventObject) => string;

function toPlanned(path: StatePath<AnySnapshot, EventObject>, eventName: EventName): PlannedPath {
  const steps = path.steps.map((s) => ({ event: s.event, state: stateKey(s.state.value) }));
  return { name: steps.map((s) => `${eventName(s.event)} → ${s.state}`).join(', '), steps };
}

/**
 * Shortest and simple paths of `machine` under the given event variants, plus, for any transition
 * neither reaches, the shortest path to its source followed by that transition. The result covers
 * every reachable state and every transition (edge of the adjacency map) of the machine.
 */
export function planPaths(
  machine: AnyStateMachine,
  events: EventObject[],
  eventName: EventName,
): Plan {
  // TestModel rather than createTestModel: the latter refuses machines with `after` transitions,
  // which these tests drive with a controlled clock.
  // Only events the state handles: an ignored event is not a transition of the machine.
  const enabled = (snapshot: AnySnapshot): EventObject[] =>
    events.filter((e) => (snapshot as unknown as { can: (e: EventObject) => boolean }).can(e));
  // States are told apart by value alone: context (messages, redirects) is checked by the drivers.
  const model = new TestModel(machine as never, {
    events: enabled as never,
    serializeState: ((snapshot: AnySnapshot) => stateKey(snapshot.value)) as never,
  });
  const edge = (from: string, e: EventObject, to: string): string =>
    `${from} --${eventName(e)}--> ${to}`;

  const adjacency = model.getAdjacencyMap() as Record<
    string,
    { state: AnySnapshot; transitions: Record<string, { event: EventObject; state: AnySnapshot }> }
  >;
  const allStates = new Set<string>();
  const allEdges = new Set<string>();
  for (const { state, transitions } of Object.values(adjacency)) {
    allStates.add(stateKey(state.value));
    for (const t of Object.values(transitions)) {
      allStates.add(stateKey(t.state.value));
      allEdges.add(edge(stateKey(state.value), t.event, stateKey(t.state.value)));
    }
  }

  const shortest = model.getShortestPaths() as unknown as Array<
    StatePath<AnySnapshot, EventObject>
  >;
  const simple = model.getSimplePaths() as unknown as Array<StatePath<AnySnapshot, EventObject>>;
  const planned = [...shortest, ...simple].map((p) => toPlanned(p, eventName));

  const coveredEdges = new Set<string>();
  const coveredStates = new Set<string>();
  const record = (p: PlannedPath): void => {
    p.steps.forEach((s, i) => {
      coveredStates.add(s.state);
      if (i > 0) coveredEdges.add(edge(p.steps[i - 1]!.state, s.event, s.state));
    });
  };
  planned.forEach(record);

  // Transition cover: shortest path to the edge's source, then the edge.
  let coverAdded = 0;
  const toState = new Map<string, PlannedPath>();
  const allShortest = model.getShortestPaths({ allowDuplicatePaths: true }) as unknown as Array<
    StatePath<AnySnapshot, EventObject>
  >;
  for (const p of allShortest.map((x) => toPlanned(x, eventName))) {
    const last = p.steps.at(-1)!.state;
    if (!toState.has(last) || toState.get(last)!.steps.length > p.steps.length)
      toState.set(last, p);
  }
  for (const { state, transitions } of Object.values(adjacency)) {
    const from = stateKey(state.value);
    for (const t of Object.values(transitions)) {
      const to = stateKey(t.state.value);
      if (coveredEdges.has(edge(from, t.event, to))) continue;
      const prefix = toState.get(from);
      if (!prefix) continue;
      const extra: PlannedPath = {
        name: `${prefix.name}, ${eventName(t.event)} → ${to}`,
        steps: [...prefix.steps, { event: t.event, state: to }],
      };
      planned.push(extra);
      coverAdded += 1;
      record(extra);
    }
  }

  // Drop exact duplicates (same names) while keeping order.
  const seen = new Set<string>();
  const paths = planned.filter((p) => (seen.has(p.name) ? false : (seen.add(p.name), true)));
  const states = {
    covered: [...allStates].filter((s) => coveredStates.has(s)).length,
    total: allStates.size,
  };
  const transitions = {
    covered: [...allEdges].filter((e) => coveredEdges.has(e)).length,
    total: allEdges.size,
  };
  const summary =
    `${machine.id}: ${paths.length} paths (${shortest.length} shortest + ${simple.length} simple + ` +
    `${coverAdded} transition cover, ${planned.length - paths.length} duplicates dropped); ` +
    `states ${states.covered}/${states.total}; transitions ${transitions.covered}/${transitions.total}`;
  return { paths, states, transitions, summary };
}

/** How a model test drives its system under test along one planned path. */
export interface PathDriver<Run> {
  open: () => Promise<Run>;
  exec: (run: Run, event: EventObject) => Promise<void>;
  check: (run: Run, state: string) => Promise<void>;
  close: (run: Run) => Promise<void>;
}

/** Opens a fresh run, checks the first state, then executes and checks each step; always closes. */
export async function drivePath<Run>(path: PlannedPath, driver: PathDriver<Run>): Promise<void> {
  const run = await driver.open();
  try {
    for (const [i, step] of path.steps.entries()) {
      if (i > 0) await driver.exec(run, step.event);
      await driver.check(run, step.state);
    }
  } finally {
    await driver.close(run);
  }
}
