/**
 * Plans model paths over real actions. A browser test cannot send a machine event: it clicks, cuts
 * a socket or waits, and one such action makes the real app take one or several machine events,
 * sometimes on two machines (the caller's call and the callee's). So the model walked here is a
 * small world of machine snapshots whose moves are those actions; the world says what each action
 * does to the machines, by feeding their events to the machines themselves.
 *
 * @xstate/graph gives the shortest action path to every world state; every action enabled at the
 * end of such a path is a candidate. The world names the edges each candidate takes (for the call,
 * each machine's state, the event and the state it leads to), and for every edge any candidate
 * takes, the shortest candidate taking it is kept: every state each machine reaches, then every
 * event out of it, as the unit model tests walk. Candidates that are prefixes of kept ones are
 * dropped.
 */
import { getShortestPaths } from '@xstate/graph';
import { fromTransition } from 'xstate';

export interface ActionWorld<W, A extends string> {
  initial: W;
  /** Actions the real app can take from this world. */
  enabled: (world: W) => A[];
  apply: (world: W, action: A) => W;
  /** Worlds with the same key are the same state for planning. */
  key: (world: W) => string;
  /** The edges a sequence of actions takes, from the start. */
  edgesOf: (actions: A[]) => Set<string>;
}

export interface ActionPlan<A extends string> {
  paths: A[][];
  /** Every edge some path takes. */
  edges: Set<string>;
  /** World states reached. */
  worldStates: number;
}

export function planPaths<W, A extends string>(world: ActionWorld<W, A>): ActionPlan<A> {
  const logic = fromTransition(
    (w: W, event: { type: A }) => world.apply(w, event.type),
    world.initial,
  );
  const toStates = getShortestPaths(logic, {
    events: (snapshot) => world.enabled(snapshot.context).map((type) => ({ type })),
    serializeState: (snapshot) => world.key(snapshot.context),
  });
  const candidates: A[][] = [];
  for (const path of toStates) {
    const actions = path.steps
      .map((step) => step.event.type)
      .filter((type): type is A => !type.startsWith('xstate.'));
    for (const next of world.enabled(path.state.context)) candidates.push([...actions, next]);
  }
  candidates.sort((x, y) => x.length - y.length);

  const chosen = new Map<string, A[]>();
  for (const candidate of candidates) {
    for (const edge of world.edgesOf(candidate)) if (!chosen.has(edge)) chosen.set(edge, candidate);
  }
  const unique = [...new Map([...chosen.values()].map((p) => [p.join(' > '), p])).values()];
  const isPrefix = (p: A[], q: A[]) => p.length < q.length && p.every((a, i) => q[i] === a);
  const paths = unique.filter((p) => !unique.some((q) => isPrefix(p, q)));
  paths.sort((x, y) => x.join(' ').localeCompare(y.join(' ')));
  return { paths, edges: new Set(chosen.keys()), worldStates: toStates.length };
}
