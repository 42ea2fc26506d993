/**
 * Model-based tests of the syncList and syncMap machines against the real server's Sync twin (its
 * ACL off: modelSupport.ts).
 *
 * The model below names what a person or a second client can do to a container (open it when it
 * is free, already filled beyond one page, or missing; write locally or remotely; lose the socket;
 * remove it locally, remotely, or find it gone on a ttl). @xstate/graph gives its shortest and
 * simple paths plus a transition cover (tests/model/support/plan.ts); each path runs with a fresh
 * container name: client A is the machine actor on the real SDK, client B a plain SDK client, and
 * sockets are dropped through the service's test hook. After every step the machine's view must
 * equal every item the service holds, read over all pages by a fresh client (while a first page is
 * still partial: every held item equals the service's, and the first page is there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachine, type EventObject } from 'xstate';
import { ask } from '../../../src/machines/syncCommand';
import { syncListMachine } from '../../../src/machines/syncList.machine';
import { syncMapMachine } from '../../../src/machines/syncMap.machine';
import { planPaths, type PlannedPath } from '../../model/support/plan';
import { Coverage } from '../../unit/machines/syncModelSupport';
import { shutdownClients } from '../sync/support';
import {
  openContainer,
  remoteHandle,
  serviceItems,
  type Container,
  type Kind,
  type Pairs,
  type Remote,
} from './containerDriver';
import {
  dropSockets,
  startWorld,
  unique,
  waitFor,
  exists,
  withFreshReader,
  type World,
} from './modelSupport';

const PAGE_SIZE = 3;

/** What can happen to one container, as the model the paths are drawn from. */
const containerModel = createMachine({
  id: 'containerModel',
  initial: 'opening',
  states: {
    opening: {
      on: {
        'open.free': 'ready.complete',
        'open.filled': 'ready.partial',
        'open.missing': 'failed',
        'open.invalid': 'rejected',
      },
    },
    rejected: {
      type: 'final',
      description: 'A bad page size: refused before anything was sent.',
    },
    failed: { on: { 'retry.created': 'ready.complete' } },
    ready: {
      initial: 'complete',
      states: {
        partial: {
          description: 'More than one page on the service; only the first is loaded.',
          on: {
            loadMore: 'complete',
            'remote.add': 'partial',
            'local.update': 'partial',
          },
        },
        complete: {
          on: {
            'local.add': 'complete',
            'local.update': 'complete',
            'local.remove': 'complete',
            'local.invalid': 'complete',
            'local.other': 'complete',
            'remote.add': 'complete',
            'remote.update': 'complete',
            'remote.remove': 'complete',
            drop: 'offline',
            'local.removeContainer': '#containerModel.removed',
            'remote.removeContainer': '#containerModel.removed',
            'local.ttlOnGone': '#containerModel.removed',
          },
        },
        offline: {
          description: "Client A's socket was dropped; B may write meanwhile.",
          on: { 'remote.add': 'offline', reconnect: 'complete' },
        },
      },
    },
    removed: { type: 'final' },
  },
});

const modelEvents: EventObject[] = [
  'open.free',
  'open.filled',
  'open.missing',
  'open.invalid',
  'retry.created',
  'loadMore',
  'local.add',
  'local.update',
  'local.remove',
  'local.invalid',
  'local.other',
  'remote.add',
  'remote.update',
  'remote.remove',
  'drop',
  'reconnect',
  'local.removeContainer',
  'remote.removeContainer',
  'local.ttlOnGone',
].map((type) => ({ type }));

/** One command of every type that seed 5 refuses (sent nothing, answered 400). */
const invalidCommands = (kind: Kind): Array<EventObject & Record<string, unknown>> =>
  kind === 'list'
    ? [
        { type: 'list.push', data: [] },
        { type: 'list.set', index: -1, data: {} },
        { type: 'list.update', index: 0.5, data: {} },
        { type: 'list.mutate', index: 0, mutator: null },
        { type: 'list.remove', index: -2 },
        { type: 'list.get', index: Number.NaN },
        { type: 'list.getItems', order: 'sideways' },
        { type: 'list.setTtl', ttl: -1 },
        { type: 'list.setItemTtl', index: 0, ttl: -1 },
      ]
    : [
        { type: 'map.set', key: '', data: {} },
        { type: 'map.update', key: 'k', data: 'text' },
        { type: 'map.mutate', key: 'k', mutator: null },
        { type: 'map.remove', key: '' },
        { type: 'map.get', key: '' },
        { type: 'map.getItems', order: 'sideways' },
        { type: 'map.setTtl', ttl: 1.5 },
        { type: 'map.setItemTtl', key: 'k', ttl: -1 },
      ];

/** One valid command of every type (what a container refuses while opening or failed). */
const anyCommands = (kind: Kind): Array<EventObject & Record<string, unknown>> =>
  kind === 'list'
    ? [
        { type: 'list.push', data: {} },
        { type: 'list.set', index: 0, data: {} },
        { type: 'list.update', index: 0, data: {} },
        { type: 'list.mutate', index: 0, mutator: (d: object) => d },
        { type: 'list.remove', index: 0 },
        { type: 'list.get', index: 0 },
        { type: 'list.getItems' },
        { type: 'list.setTtl', ttl: 0 },
        { type: 'list.setItemTtl', index: 0, ttl: 0 },
        { type: 'list.removeList' },
      ]
    : [
        { type: 'map.set', key: 'k', data: {} },
        { type: 'map.update', key: 'k', data: {} },
        { type: 'map.mutate', key: 'k', mutator: (d: object) => d },
        { type: 'map.remove', key: 'k' },
        { type: 'map.get', key: 'k' },
        { type: 'map.getItems' },
        { type: 'map.setTtl', ttl: 0 },
        { type: 'map.setItemTtl', key: 'k', ttl: 0 },
        { type: 'map.removeMap' },
      ];

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as { status: number; message: string },
  );

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 90_000);
afterAll(async () => {
  world?.runtime.stop();
  await shutdownClients();
  await world?.server.stop();
  world?.server.cleanup();
});

const same = (a: Pairs, b: Pairs) => JSON.stringify(a) === JSON.stringify(b);

class PathRun {
  container!: Container;
  remote: Remote | null = null;
  offlineSeen = false;
  n = 0;
  constructor(
    readonly kind: Kind,
    readonly id: string,
    readonly label: string,
    readonly coverage: Coverage,
  ) {}

  private data() {
    return { step: ++this.n, by: 'model' };
  }

  private open(mode: 'open_or_create' | 'open_existing') {
    this.container = openContainer(
      world,
      this.kind,
      { id: this.id, mode, pageSize: PAGE_SIZE },
      this.coverage.inspect,
    );
    this.container.watch(() => {
      if (this.container.offline()) this.offlineSeen = true;
    });
  }

  private async readyIdle() {
    await waitFor(
      () =>
        this.container.actor.getSnapshot().matches({ ready: 'idle' }) ||
        this.container.status() === 'failed',
      15_000,
      `${this.label}: ready`,
    );
  }

  private async b(): Promise<Remote> {
    this.remote ??= await remoteHandle(world.b, this.kind, this.id);
    return this.remote;
  }

  /** Some key the service holds now (for updates and removals), creating one when empty. */
  private async someKey(local: boolean): Promise<string | number> {
    const held = this.container.view();
    const last = held.at(-1);
    if (last) return last[0];
    return local ? this.container.add(this.data()) : (await this.b()).add(this.data());
  }

  async step(type: string): Promise<void> {
    const c = () => this.container;
    switch (type) {
      case 'open.free': {
        this.open('open_or_create');
        // Commands before the container is open are refused, and nothing is sent.
        for (const command of anyCommands(this.kind)) {
          const error = await failureOf(ask(c().actor as never, command as never, this.kind));
          expect(error?.message, `${this.label}: ${command.type} while opening`).toBe(
            `The ${this.kind} is not open yet`,
          );
        }
        return this.readyIdle();
      }
      case 'open.invalid':
        this.container = openContainer(
          world,
          this.kind,
          { id: this.id, pageSize: 0 },
          this.coverage.inspect,
        );
        expect(c().status()).toBe('failed');
        expect(c().actor.getSnapshot().context.error?.status).toBe(400);
        return;
      case 'open.filled': {
        const b = await this.b();
        for (let i = 0; i <= PAGE_SIZE; i += 1) await b.add(this.data());
        this.open('open_or_create');
        return this.readyIdle();
      }
      case 'open.missing':
        this.open('open_existing');
        await waitFor(() => c().status() === 'failed', 15_000, `${this.label}: failed`);
        expect(c().actor.getSnapshot().context.error?.status).toBe(404);
        for (const command of anyCommands(this.kind)) {
          const error = await failureOf(ask(c().actor as never, command as never, this.kind));
          expect(error?.status, `${this.label}: ${command.type} when failed`).toBe(404);
        }
        return;
      case 'retry.created':
        await (await this.b()).add(this.data());
        c().retry();
        return this.readyIdle();
      case 'loadMore':
        expect(c().hasMore()).toBe(true);
        c().loadMore();
        await waitFor(
          () => !c().hasMore() && c().actor.getSnapshot().matches({ ready: 'idle' }),
          15_000,
          'more loaded',
        );
        return;
      case 'local.add':
        await c().add(this.data());
        return;
      case 'local.update':
        await c().update(await this.someKey(true), this.data());
        return;
      case 'local.remove':
        await c().remove(await this.someKey(true));
        return;
      case 'local.invalid': {
        const before = c().view();
        const error = await c()
          .invalid()
          .then(
            () => null,
            (e: unknown) => e as { status: number; message: string },
          );
        expect(error?.status, `${this.label}: invalid command refused`).toBe(400);
        expect(error?.message).toMatch(/index|key/i);
        for (const command of invalidCommands(this.kind)) {
          const refused = await failureOf(ask(c().actor as never, command as never, this.kind));
          expect(refused?.status, `${this.label}: ${command.type} refused`).toBe(400);
        }
        expect(c().view()).toEqual(before);
        return;
      }
      case 'local.other': {
        // The remaining commands: get, getItems, mutate, set on a held key, item ttl.
        const key = await this.someKey(true);
        const k = this.kind;
        const send = (command: object) => ask(c().actor as never, command as never, k);
        const item = (await send(
          k === 'list' ? { type: 'list.get', index: key } : { type: 'map.get', key },
        )) as { data: unknown };
        expect(item.data).toEqual(
          c()
            .view()
            .find(([held]) => held === key)?.[1],
        );
        const page = (await send({ type: `${k}.getItems`, pageSize: 2 })) as { items: unknown[] };
        expect(page.items.length).toBeLessThanOrEqual(2);
        const at = k === 'list' ? { index: key } : { key };
        await send({
          type: `${k}.mutate`,
          ...at,
          mutator: (d: object) => ({ ...d, mutated: true }),
        });
        await send({ type: `${k}.set`, ...at, data: { replaced: ++this.n } });
        await send({ type: `${k}.setItemTtl`, ...at, ttl: 0 });
        return;
      }
      case 'remote.add':
        await (await this.b()).add(this.data());
        return;
      case 'remote.update':
        await (await this.b()).update(await this.someKey(false), this.data());
        return;
      case 'remote.remove':
        await (await this.b()).remove(await this.someKey(false));
        return;
      case 'drop': {
        this.offlineSeen = false;
        const dropped = await dropSockets(world, world.identityA);
        expect(dropped).toBeGreaterThan(0);
        await waitFor(() => this.offlineSeen, 15_000, `${this.label}: offline shown`);
        return;
      }
      case 'reconnect':
        await waitFor(() => !c().offline(), 30_000, `${this.label}: online again`);
        return;
      case 'local.removeContainer':
        await c().removeContainer();
        expect(c().removal()).toEqual({ isLocal: true });
        return;
      case 'remote.removeContainer':
        await (await this.b()).removeContainer();
        await waitFor(() => c().status() === 'removed', 15_000, `${this.label}: removed`);
        expect(c().removal()).toEqual({ isLocal: false });
        return;
      case 'local.ttlOnGone': {
        // B removes it; then A sets a ttl. Either the service answers 404 (seed 8: marked removed
        // locally and re-thrown) or the pushed removal got there first and the machine refuses
        // with its own 404. (Sent at the same moment, A's ttl could also land before the removal
        // and rightly succeed, so B's removal is awaited first.)
        const b = await this.b();
        await b.removeContainer();
        const ttl = await c()
          .setTtl(60)
          .then(
            () => null,
            (e: unknown) => e as { status: number },
          );
        await waitFor(() => c().status() === 'removed', 15_000, `${this.label}: removed`);
        if (ttl === null) throw new Error(`${this.label}: a ttl on a removed container succeeded`);
        expect(ttl.status).toBe(404);
        return;
      }
      default:
        throw new Error(`no driver for ${type}`);
    }
  }

  /** After every step: the machine's view is what the service holds. */
  async check(state: string, after: string) {
    const where = `${this.label} after ${after} (${state})`;
    const c = this.container;
    if (state === 'rejected') {
      expect(c.status(), where).toBe('failed');
      expect(await withFreshReader(world, (r) => exists(r, this.kind, this.id))).toBe(false);
      return;
    }
    if (state === 'failed') {
      expect(c.status(), where).toBe('failed');
      expect(c.view()).toEqual([]);
      const held = await withFreshReader(world, (r) =>
        serviceItems(r, this.kind, this.id).catch(() => null),
      );
      expect(held, `${where}: the service holds nothing`).toBeNull();
      return;
    }
    if (state === 'removed') {
      expect(c.status(), where).toBe('removed');
      const held = await withFreshReader(world, (r) =>
        serviceItems(r, this.kind, this.id).catch((e: { status?: number }) => e.status ?? e),
      );
      expect(held, `${where}: the service holds nothing`).toBe(404);
      return;
    }
    expect(c.status(), where).toBe('ready');
    const truth = await withFreshReader(world, (r) => serviceItems(r, this.kind, this.id));
    if (state === 'ready.partial') {
      expect(c.hasMore(), where).toBe(true);
      const byKey = new Map(truth.map(([k, d]) => [String(k), d]));
      for (const [k, d] of c.view()) expect(d, `${where}: item ${k}`).toEqual(byKey.get(String(k)));
      for (const pair of truth.slice(0, PAGE_SIZE)) expect(c.view(), where).toContainEqual(pair);
      return;
    }
    // Pushed events (remote writes, catch-up after a drop) arrive when they arrive.
    await waitFor(
      () => same(c.view(), truth),
      15_000,
      `${where}: view ${JSON.stringify(c.view())} to equal ${JSON.stringify(truth)}`,
    );
    if (state === 'ready.offline') expect(this.offlineSeen, where).toBe(true);
  }

  stop() {
    this.container?.actor.stop();
    this.remote?.close();
  }
}

function suite(kind: Kind) {
  const machine = kind === 'list' ? syncListMachine : syncMapMachine;
  const coverage = new Coverage(machine);
  const plan = planPaths(containerModel, modelEvents, (e) => e.type);
  const covered = { states: new Set<string>(), transitions: new Set<string>() };

  describe(`${kind} model against the real service`, () => {
    afterAll(() => {
      console.log(
        `${kind} model: ${plan.summary}; driven: ${covered.states.size} states, ${covered.transitions.size} transitions`,
      );
      console.log(coverage.report(`${machine.id} chart (live actors)`));
      console.log(
        `${machine.id} chart edges not reached against the service: ${JSON.stringify(coverage.missingTransitions())}`,
      );
    });

    it('plans paths that cover every model state and transition', () => {
      expect(plan.states.covered).toBe(plan.states.total);
      expect(plan.transitions.covered).toBe(plan.transitions.total);
      expect(plan.paths.length).toBeGreaterThan(10);
    });

    it('the machine matches the service after every step of every path', async () => {
      for (const path of plan.paths) await drive(kind, path, coverage, covered);
      coverage.paths = plan.paths.length;
      expect(covered.states.size).toBe(plan.states.total);
      expect(covered.transitions.size).toBe(plan.transitions.total);
    }, 240_000);
  });
}

async function drive(
  kind: Kind,
  path: PlannedPath,
  coverage: Coverage,
  covered: { states: Set<string>; transitions: Set<string> },
) {
  const steps = path.steps.filter((s) => s.event.type !== 'xstate.init');
  if (steps.length === 0) return;
  const run = new PathRun(kind, unique(`model-${kind}`), `${kind}: ${path.name}`, coverage);
  try {
    let from = 'opening';
    for (const step of steps) {
      await run.step(step.event.type);
      await run.check(step.state, step.event.type);
      coverage.steps += 1;
      covered.states.add(step.state);
      covered.transitions.add(`${from} --${step.event.type}--> ${step.state}`);
      from = step.state;
    }
    covered.states.add('opening');
  } finally {
    run.stop();
  }
}

suite('list');
suite('map');
