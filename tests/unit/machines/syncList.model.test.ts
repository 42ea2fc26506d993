import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, transition, type SnapshotFrom } from 'xstate';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import {
  syncListMachine,
  type ListPushEvent,
  type SyncListEvent,
} from '../../../src/machines/syncList.machine';
import type { LoadPageInput } from '../../../src/machines/syncContainer.factory';
import { selectListItems } from '../../../src/machines/syncList.selectors';
import type { ItemPage, ListItem, Opened, OpenRequest } from '../../../src/sync/ports';
import { FakeList, fakeEvents, notFound, serverError } from './syncFakes';
import { listItem } from './syncHarness';
import { Coverage, deferred, settle, walkEdges } from './syncModelSupport';

type Snapshot = SnapshotFrom<typeof syncListMachine>;
type ModelEvent = SyncListEvent | { type: string; output?: unknown; error?: unknown };

const page1: ItemPage<ListItem> = { items: [listItem(10, 11), listItem(11, 12)], hasMore: true };
const page2: ItemPage<ListItem> = { items: [listItem(11, 12), listItem(12, 13)], hasMore: false };
const pushed = { ...listItem(0, 1, { k: 1 }) };
const setTtlGone = {
  type: 'command.settled',
  requestId: null,
  command: { type: 'list.setTtl', ttl: 5 },
  ok: false,
  error: notFound(),
} as const;

const validCommands: ModelEvent[] = [
  { type: 'list.push', data: { k: 2 } },
  { type: 'list.set', index: 10, data: {} },
  { type: 'list.update', index: 10, data: {} },
  { type: 'list.mutate', index: 10, mutator: (d) => d },
  { type: 'list.remove', index: 10 },
  { type: 'list.get', index: 10 },
  { type: 'list.getItems', pageSize: 5 },
  { type: 'list.setTtl', ttl: 5 },
  { type: 'list.setItemTtl', index: 10, ttl: 5 },
  { type: 'list.removeList' },
];
const invalidCommands: ModelEvent[] = [
  { type: 'list.push', data: [] as never },
  { type: 'list.set', index: -1, data: {} },
  { type: 'list.update', index: 0.5, data: {} },
  { type: 'list.mutate', index: 0, mutator: null as never },
  { type: 'list.remove', index: -2 },
  { type: 'list.get', index: Number.NaN },
  { type: 'list.getItems', order: 'sideways' as never },
  { type: 'list.setTtl', ttl: -1 },
  { type: 'list.setItemTtl', index: 0, ttl: -1 },
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
  if (state.matches('failed')) return [{ type: 'list.retry' }, ...validCommands];
  if (!state.matches('ready')) return [];
  const events: ModelEvent[] = [
    { type: 'list.itemAdded', item: listItem(100, 100), isLocal: false },
    { type: 'list.itemUpdated', item: listItem(100, 99), isLocal: false },
    { type: 'list.itemRemoved', index: 100, lastEventId: 101, dateUpdated: 2_000, isLocal: false },
    { type: 'list.contextUpdated', context: { a: 1 }, lastEventId: 102, isLocal: false },
    {
      type: 'sync.connectionChanged',
      state: state.context.connection === 'connected' ? 'disconnected' : 'connected',
    },
    setTtlGone,
    { type: 'list.removed', isLocal: false },
  ];
  // Commands where nothing else is going on: once invalid (rejected, nothing sent) and once valid
  // (sent; the fake service refuses or answers without changing the view).
  const allPagesOnly =
    state.matches({ ready: 'idle' }) &&
    state.context.connection === 'connected' &&
    !state.context.paging.hasMore &&
    state.context.items.size === 3 &&
    !state.context.items.has(0);
  if (allPagesOnly) {
    events.push(...invalidCommands, ...validCommands);
  }
  if (!state.context.items.has(0)) {
    events.push({
      type: 'command.settled',
      requestId: null,
      command: { type: 'list.push', data: { k: 1 } },
      ok: true,
      result: pushed,
    });
  }
  if (state.matches({ ready: 'loadingPage' })) {
    const page = state.context.paging.cursor === null ? page1 : page2;
    events.push({ type: 'xstate.done.actor.loadPage', output: page });
    events.push({ type: 'xstate.error.actor.loadPage', error: serverError() });
  }
  if (state.matches({ ready: 'idle' })) events.push({ type: 'list.loadMore' });
  if (state.matches({ ready: 'pageFailed' })) {
    events.push({ type: 'list.retry' }, { type: 'list.loadMore' });
  }
  return events;
}

function view(state: Snapshot) {
  const { meta, paging, connection, error, removal, listContext } = state.context;
  return {
    value: state.value,
    items: selectListItems(state).map((i) => [i.index, i.lastEventId]),
    meta: meta && { lastEventId: meta.lastEventId, dateUpdated: meta.dateUpdated },
    paging,
    connection,
    error: error?.message ?? null,
    removal,
    listContext,
  };
}

/** The live actor: real machine, fake SDK port, open/loadPage settled by hand. */
function system(coverage: Coverage) {
  const list = new FakeList('ES-calls', 'calls');
  const opens: Array<ReturnType<typeof deferred<Opened>>> = [];
  const pages: Array<ReturnType<typeof deferred<ItemPage<ListItem>>>> = [];
  const events = fakeEvents<ListPushEvent>();
  const machine = syncListMachine.provide({
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
        const d = deferred<ItemPage<ListItem>>();
        pages.push(d);
        return d.promise;
      }),
      events: events.actor,
    },
  });
  const actor = createActor(machine, {
    input: { id: 'calls', mode: 'open_existing' },
    inspect: coverage.inspect,
  }).start();

  async function replay(event: ModelEvent) {
    switch (event.type) {
      case 'xstate.done.actor.openEntity': {
        const output = (event as { output: { ok: boolean; error?: Error } }).output;
        if (output.ok) opens.shift()!.resolve({ port: list, source: list });
        else opens.shift()!.reject(output.error);
        break;
      }
      case 'xstate.done.actor.loadPage':
        pages.shift()!.resolve((event as { output: ItemPage<ListItem> }).output);
        break;
      case 'xstate.error.actor.loadPage':
        pages.shift()!.reject((event as { error: Error }).error);
        break;
      case 'command.settled': {
        const command = (event as { command: { type: string } }).command;
        if (command.type === 'list.setTtl') {
          list.failNext('setTtl', notFound());
          actor.send({ type: 'list.setTtl', ttl: 5 });
        } else {
          actor.send({ type: 'list.push', data: { k: 1 } });
        }
        break;
      }
      case 'list.itemAdded':
      case 'list.itemUpdated':
      case 'list.itemRemoved':
      case 'list.contextUpdated':
      case 'list.removed':
        events.state.push(event as ListPushEvent);
        break;
      case 'list.push':
      case 'list.removeList':
        // The model does not follow a command's answer; a refused one leaves the view as it is.
        list.failNext(event.type.slice(5), serverError());
        actor.send(event as SyncListEvent);
        break;
      default:
        actor.send(event as SyncListEvent);
    }
    await settle();
  }
  return { actor, list, replay };
}

const coverage = new Coverage(syncListMachine);

describe('syncList model (every edge from the shortest path to each state)', () => {
  afterAll(() => {
    console.log(coverage.report('syncList model'));
  });

  const opened: Opened = { port: new FakeList('ES-calls', 'calls'), source: null };
  const withOpened = (state: Snapshot) =>
    eventsFor(state).map((e) =>
      e.type === 'xstate.done.actor.openEntity' && (e as { output: { ok: boolean } }).output.ok
        ? { ...e, output: { ok: true, opened } }
        : e,
    );
  const paths = getShortestPaths(syncListMachine, {
    input: { id: 'calls', mode: 'open_existing' },
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
      next: (state, event) => transition(syncListMachine, state, event as never)[0],
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
    const sut = createActor(syncListMachine, {
      input: { id: 'calls', pageSize: 0 },
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
