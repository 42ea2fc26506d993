import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, transition, type SnapshotFrom } from 'xstate';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import {
  syncMapMachine,
  type MapPushEvent,
  type SyncMapEvent,
} from '../../../src/machines/syncMap.machine';
import type { LoadPageInput } from '../../../src/machines/syncContainer.factory';
import { selectMapItems } from '../../../src/machines/syncMap.selectors';
import type { ItemPage, MapItem, Opened, OpenRequest } from '../../../src/sync/ports';
import { FakeMap, fakeEvents, notFound, serverError } from './syncFakes';
import { mapItem } from './syncHarness';
import { Coverage, deferred, settle, walkEdges } from './syncModelSupport';

type Snapshot = SnapshotFrom<typeof syncMapMachine>;
type ModelEvent = SyncMapEvent | { type: string; output?: unknown; error?: unknown };

const page1: ItemPage<MapItem> = { items: [mapItem('b', 11), mapItem('c', 12)], hasMore: true };
const page2: ItemPage<MapItem> = { items: [mapItem('c', 12), mapItem('d', 13)], hasMore: false };
const pushed = { ...mapItem('a', 1, { k: 1 }) };
const setTtlGone = {
  type: 'command.settled',
  requestId: null,
  command: { type: 'map.setTtl', ttl: 5 },
  ok: false,
  error: notFound(),
} as const;

const validCommands: ModelEvent[] = [
  { type: 'map.set', key: 'q', data: { k: 2 } },
  { type: 'map.update', key: 'q', data: {} },
  { type: 'map.mutate', key: 'q', mutator: (d) => d },
  { type: 'map.remove', key: 'q' },
  { type: 'map.get', key: 'q' },
  { type: 'map.getItems', pageSize: 5 },
  { type: 'map.setTtl', ttl: 5 },
  { type: 'map.setItemTtl', key: 'q', ttl: 5 },
  { type: 'map.removeMap' },
];
const invalidCommands: ModelEvent[] = [
  { type: 'map.set', key: '', data: {} },
  { type: 'map.update', key: 'a', data: null as never },
  { type: 'map.mutate', key: 'a', mutator: 1 as never },
  { type: 'map.remove', key: 7 as never },
  { type: 'map.get', key: '' },
  { type: 'map.getItems', from: '' },
  { type: 'map.setTtl', ttl: 2.5 },
  { type: 'map.setItemTtl', key: '', ttl: 1 },
];

/** Events offered in each state; the traversal follows them, the live actor replays them. */
function eventsFor(state: Snapshot): ModelEvent[] {
  if (state.matches('opening')) {
    return [
      { type: 'xstate.done.actor.openEntity', output: { ok: true, opened: 'list' } },
      { type: 'xstate.done.actor.openEntity', output: { ok: false, error: serverError() } },
      ...validCommands,
    ];
  }
  if (state.matches('failed')) return [{ type: 'map.retry' }, ...validCommands];
  if (!state.matches('ready')) return [];
  const events: ModelEvent[] = [
    { type: 'map.itemAdded', item: mapItem('z', 100), isLocal: false },
    { type: 'map.itemUpdated', item: mapItem('z', 99), isLocal: false },
    { type: 'map.itemRemoved', key: 'z', lastEventId: 101, dateUpdated: 2_000, isLocal: false },
    {
      type: 'sync.connectionChanged',
      state: state.context.connection === 'connected' ? 'disconnected' : 'connected',
    },
    setTtlGone,
    { type: 'map.removed', isLocal: false },
  ];
  // Commands where nothing else is going on: once invalid (rejected, nothing sent) and once valid
  // (sent; the fake service refuses or answers without changing the view).
  const allPagesOnly =
    state.matches({ ready: 'idle' }) &&
    state.context.connection === 'connected' &&
    !state.context.paging.hasMore &&
    state.context.items.size === 3 &&
    !state.context.items.has('a');
  if (allPagesOnly) {
    events.push(...invalidCommands, ...validCommands);
  }
  if (!state.context.items.has('a')) {
    events.push({
      type: 'command.settled',
      requestId: null,
      command: { type: 'map.set', key: 'a', data: { k: 1 } },
      ok: true,
      result: pushed,
    });
  }
  if (state.matches({ ready: 'loadingPage' })) {
    const page = state.context.paging.cursor === null ? page1 : page2;
    events.push({ type: 'xstate.done.actor.loadPage', output: page });
    events.push({ type: 'xstate.error.actor.loadPage', error: serverError() });
  }
  if (state.matches({ ready: 'idle' })) events.push({ type: 'map.loadMore' });
  if (state.matches({ ready: 'pageFailed' })) {
    events.push({ type: 'map.retry' }, { type: 'map.loadMore' });
  }
  return events;
}

function view(state: Snapshot) {
  const { meta, paging, connection, error, removal } = state.context;
  return {
    value: state.value,
    items: selectMapItems(state).map((i) => [i.key, i.lastEventId]),
    meta: meta && { lastEventId: meta.lastEventId, dateUpdated: meta.dateUpdated },
    paging,
    connection,
    error: error?.message ?? null,
    removal,
  };
}

/** The live actor: real machine, fake SDK port, open/loadPage settled by hand. */
function system(coverage: Coverage) {
  const map = new FakeMap('MP-contacts', 'contacts');
  const opens: Array<ReturnType<typeof deferred<Opened>>> = [];
  const pages: Array<ReturnType<typeof deferred<ItemPage<MapItem>>>> = [];
  const events = fakeEvents<MapPushEvent>();
  const machine = syncMapMachine.provide({
    actors: {
      openEntity: openEntityMachine.provide({
        actors: {
          open: fromPromise<Opened, OpenRequest>(() => {
            const d = deferred<Opened>();
            opens.push(d);
            return d.promise;
          }),
        },
      }),
      loadPage: fromPromise<ItemPage<unknown>, LoadPageInput>(() => {
        const d = deferred<ItemPage<MapItem>>();
        pages.push(d);
        return d.promise;
      }),
      events: events.actor,
    },
  });
  const actor = createActor(machine, {
    input: { id: 'contacts', mode: 'open_existing' },
    inspect: coverage.inspect,
  }).start();

  async function replay(event: ModelEvent) {
    switch (event.type) {
      case 'xstate.done.actor.openEntity': {
        const output = (event as { output: { ok: boolean; error?: Error } }).output;
        if (output.ok) opens.shift()!.resolve({ port: map, source: map });
        else opens.shift()!.reject(output.error);
        break;
      }
      case 'xstate.done.actor.loadPage':
        pages.shift()!.resolve((event as { output: ItemPage<MapItem> }).output);
        break;
      case 'xstate.error.actor.loadPage':
        pages.shift()!.reject((event as { error: Error }).error);
        break;
      case 'command.settled': {
        const command = (event as { command: { type: string } }).command;
        if (command.type === 'map.setTtl') {
          map.failNext('setTtl', notFound(54200));
          actor.send({ type: 'map.setTtl', ttl: 5 });
        } else {
          actor.send({ type: 'map.set', key: 'a', data: { k: 1 } });
        }
        break;
      }
      case 'map.itemAdded':
      case 'map.itemUpdated':
      case 'map.itemRemoved':
      case 'map.removed':
        events.state.push(event as MapPushEvent);
        break;
      case 'map.set':
      case 'map.update':
      case 'map.mutate':
      case 'map.removeMap':
        // The model does not follow a command's answer; a refused one leaves the view as it is.
        map.failNext(event.type.slice(4), serverError());
        actor.send(event as SyncMapEvent);
        break;
      default:
        actor.send(event as SyncMapEvent);
    }
    await settle();
  }
  return { actor, map, replay };
}

const coverage = new Coverage(syncMapMachine);

describe('syncMap model (every edge from the shortest path to each state)', () => {
  afterAll(() => {
    console.log(coverage.report('syncMap model'));
  });

  const opened: Opened = { port: new FakeMap('MP-contacts', 'contacts'), source: null };
  const withOpened = (state: Snapshot) =>
    eventsFor(state).map((e) =>
      e.type === 'xstate.done.actor.openEntity' && (e as { output: { ok: boolean } }).output.ok
        ? { ...e, output: { ok: true, opened } }
        : e,
    );
  const paths = getShortestPaths(syncMapMachine, {
    input: { id: 'contacts', mode: 'open_existing' },
    events: withOpened as never,
    // A coarse key keeps the walk small; each step is still compared in full.
    serializeState: (s) => {
      const c = s.context;
      return JSON.stringify([s.value, c.items.size, c.paging.hasMore, !!c.error, c.removal]);
    },
  });

  it('has paths to check', () => {
    expect(paths.length).toBeGreaterThan(20);
  });

  it('the live machine agrees with the model after every step of every edge', async () => {
    await walkEdges({
      paths,
      eventsFor: withOpened,
      next: (state, event) => transition(syncMapMachine, state, event as never)[0],
      start: () => system(coverage),
      replay: (sut, event) => sut.replay(event),
      read: (sut) => sut.actor.getSnapshot(),
      view,
      stop: (sut) => sut.actor.stop(),
      coverage,
      check: (actual, expected, where) => expect(actual, where).toEqual(expected),
    });
  }, 120_000);

  it('rejects bad input before opening (a separate model input)', async () => {
    const sut = createActor(syncMapMachine, {
      input: { id: 'contacts', pageSize: 0 },
      inspect: coverage.inspect,
    }).start();
    coverage.paths += 1;
    await settle();
    expect(sut.getSnapshot().value).toBe('failed');
  });

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions()).toEqual([]);
  });
});
