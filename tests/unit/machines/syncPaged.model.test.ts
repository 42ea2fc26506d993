/**
 * Model tests of the paged container kinds (list, map), one definition walked per kind: every edge
 * from the shortest path to each state, replayed against the live machine over a fake port.
 */
import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createActor,
  fromPromise,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import type { LoadPageInput } from '../../../src/machines/syncContainer.factory';
import { syncListMachine } from '../../../src/machines/syncList.machine';
import { selectListItems } from '../../../src/machines/syncList.selectors';
import { syncMapMachine } from '../../../src/machines/syncMap.machine';
import { selectMapItems } from '../../../src/machines/syncMap.selectors';
import type {
  ItemPage,
  ListItem,
  MapItem,
  Opened,
  OpenRequest,
} from '../../../src/machines/syncPorts';
import { FakeList, FakeMap, fakeEvents, notFound, serverError } from './syncFakes';
import { listItem, mapItem } from './syncHarness';
import { Coverage, deferred, settle, walkEdges } from './syncModelSupport';

type ModelEvent = { type: string; [field: string]: unknown };
type Item = { lastEventId: number };

/** What differs between the kinds; the model, the live system and the checks are shared. */
interface PagedKind<K> {
  kind: 'list' | 'map';
  machine: AnyStateMachine;
  id: string;
  port: () => FakeList | FakeMap;
  /** Error code of the 404 a ttl set on a removed container answers. */
  goneCode?: number;
  items: (snapshot: AnyMachineSnapshot) => readonly Item[];
  keyOf: (item: Item) => K;
  page1: ItemPage<Item>;
  page2: ItemPage<Item>;
  /** A write the fake answers with `written` (key `writtenKey`), applied to the view. */
  write: ModelEvent;
  written: Item;
  writtenKey: K;
  validCommands: ModelEvent[];
  invalidCommands: ModelEvent[];
  /** Pushed events offered in `ready`, besides `<kind>.removed`. */
  pushed: ModelEvent[];
  /** Commands the fake refuses (the model does not follow a command's answer). */
  refused: string[];
  /** Context the view compares besides the shared fields. */
  extraView?: (snapshot: AnyMachineSnapshot) => object;
}

const list: PagedKind<number> = {
  kind: 'list',
  machine: syncListMachine,
  id: 'calls',
  port: () => new FakeList('ES-calls', 'calls'),
  items: (s) => selectListItems(s as never),
  keyOf: (i) => (i as ListItem).index,
  page1: { items: [listItem(10, 11), listItem(11, 12)], hasMore: true },
  page2: { items: [listItem(11, 12), listItem(12, 13)], hasMore: false },
  write: { type: 'list.push', data: { k: 1 } },
  written: { ...listItem(0, 1, { k: 1 }) },
  writtenKey: 0,
  validCommands: [
    { type: 'list.push', data: { k: 2 } },
    { type: 'list.set', index: 10, data: {} },
    { type: 'list.update', index: 10, data: {} },
    { type: 'list.mutate', index: 10, mutator: (d: object) => d },
    { type: 'list.remove', index: 10 },
    { type: 'list.get', index: 10 },
    { type: 'list.getItems', pageSize: 5 },
    { type: 'list.setTtl', ttl: 5 },
    { type: 'list.setItemTtl', index: 10, ttl: 5 },
    { type: 'list.removeList' },
  ],
  invalidCommands: [
    { type: 'list.push', data: [] },
    { type: 'list.set', index: -1, data: {} },
    { type: 'list.update', index: 0.5, data: {} },
    { type: 'list.mutate', index: 0, mutator: null },
    { type: 'list.remove', index: -2 },
    { type: 'list.get', index: Number.NaN },
    { type: 'list.getItems', order: 'sideways' },
    { type: 'list.setTtl', ttl: -1 },
    { type: 'list.setItemTtl', index: 0, ttl: -1 },
  ],
  pushed: [
    { type: 'list.itemAdded', item: listItem(100, 100), isLocal: false },
    { type: 'list.itemUpdated', item: listItem(100, 99), isLocal: false },
    { type: 'list.itemRemoved', index: 100, lastEventId: 101, dateUpdated: 2_000, isLocal: false },
    { type: 'list.contextUpdated', context: { a: 1 }, lastEventId: 102, isLocal: false },
  ],
  refused: ['list.push', 'list.removeList'],
  extraView: (s) => ({ listContext: (s.context as { listContext: unknown }).listContext }),
};

const map: PagedKind<string> = {
  kind: 'map',
  machine: syncMapMachine,
  id: 'contacts',
  port: () => new FakeMap('MP-contacts', 'contacts'),
  goneCode: 54200,
  items: (s) => selectMapItems(s as never),
  keyOf: (i) => (i as MapItem).key,
  page1: { items: [mapItem('b', 11), mapItem('c', 12)], hasMore: true },
  page2: { items: [mapItem('c', 12), mapItem('d', 13)], hasMore: false },
  write: { type: 'map.set', key: 'a', data: { k: 1 } },
  written: { ...mapItem('a', 1, { k: 1 }) },
  writtenKey: 'a',
  validCommands: [
    { type: 'map.set', key: 'q', data: { k: 2 } },
    { type: 'map.update', key: 'q', data: {} },
    { type: 'map.mutate', key: 'q', mutator: (d: object) => d },
    { type: 'map.remove', key: 'q' },
    { type: 'map.get', key: 'q' },
    { type: 'map.getItems', pageSize: 5 },
    { type: 'map.setTtl', ttl: 5 },
    { type: 'map.setItemTtl', key: 'q', ttl: 5 },
    { type: 'map.removeMap' },
  ],
  invalidCommands: [
    { type: 'map.set', key: '', data: {} },
    { type: 'map.update', key: 'a', data: null },
    { type: 'map.mutate', key: 'a', mutator: 1 },
    { type: 'map.remove', key: 7 },
    { type: 'map.get', key: '' },
    { type: 'map.getItems', from: '' },
    { type: 'map.setTtl', ttl: 2.5 },
    { type: 'map.setItemTtl', key: '', ttl: 1 },
  ],
  pushed: [
    { type: 'map.itemAdded', item: mapItem('z', 100), isLocal: false },
    { type: 'map.itemUpdated', item: mapItem('z', 99), isLocal: false },
    { type: 'map.itemRemoved', key: 'z', lastEventId: 101, dateUpdated: 2_000, isLocal: false },
  ],
  refused: ['map.set', 'map.update', 'map.mutate', 'map.removeMap'],
};

function definePagedModel<K>(k: PagedKind<K>) {
  type Snapshot = AnyMachineSnapshot;
  const setTtl = { type: `${k.kind}.setTtl`, ttl: 5 };
  const setTtlGone = {
    type: 'command.settled',
    requestId: null,
    command: setTtl,
    ok: false,
    error: notFound(),
  };

  /** Events offered in each state; the traversal follows them, the live actor replays them. */
  function eventsFor(state: Snapshot): ModelEvent[] {
    const { items, paging, connection } = state.context;
    if (state.matches('opening')) {
      return [
        { type: 'xstate.done.actor.openEntity', output: { ok: true, opened: k.kind } },
        { type: 'xstate.done.actor.openEntity', output: { ok: false, error: serverError() } },
        ...k.validCommands,
      ];
    }
    if (state.matches('failed')) return [{ type: `${k.kind}.retry` }, ...k.validCommands];
    if (!state.matches('ready')) return [];
    const events: ModelEvent[] = [
      ...k.pushed,
      {
        type: 'sync.connectionChanged',
        state: connection === 'connected' ? 'disconnected' : 'connected',
      },
      setTtlGone,
      { type: `${k.kind}.removed`, isLocal: false },
    ];
    // Commands where nothing else is going on: once invalid (rejected, nothing sent) and once valid
    // (sent; the fake service refuses or answers without changing the view).
    const allPagesOnly =
      state.matches({ ready: 'idle' }) &&
      connection === 'connected' &&
      !paging.hasMore &&
      items.size === 3 &&
      !items.has(k.writtenKey);
    if (allPagesOnly) events.push(...k.invalidCommands, ...k.validCommands);
    if (!items.has(k.writtenKey)) {
      events.push({
        type: 'command.settled',
        requestId: null,
        command: k.write,
        ok: true,
        result: k.written,
      });
    }
    if (state.matches({ ready: 'loadingPage' })) {
      const page = paging.cursor === null ? k.page1 : k.page2;
      events.push({ type: 'xstate.done.actor.loadPage', output: page });
      events.push({ type: 'xstate.error.actor.loadPage', error: serverError() });
    }
    if (state.matches({ ready: 'idle' })) events.push({ type: `${k.kind}.loadMore` });
    if (state.matches({ ready: 'pageFailed' })) {
      events.push({ type: `${k.kind}.retry` }, { type: `${k.kind}.loadMore` });
    }
    return events;
  }

  function view(state: Snapshot) {
    const { meta, paging, connection, error, removal } = state.context;
    return {
      value: state.value,
      items: k.items(state).map((i) => [k.keyOf(i), i.lastEventId]),
      meta: meta && { lastEventId: meta.lastEventId, dateUpdated: meta.dateUpdated },
      paging,
      connection,
      error: error?.message ?? null,
      removal,
      ...k.extraView?.(state),
    };
  }

  /** The live actor: real machine, fake SDK port, open/loadPage settled by hand. */
  function system(coverage: Coverage) {
    const port = k.port();
    const opens: Array<ReturnType<typeof deferred<Opened>>> = [];
    const pages: Array<ReturnType<typeof deferred<ItemPage<unknown>>>> = [];
    const events = fakeEvents<ModelEvent>();
    const machine = k.machine.provide({
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
          const d = deferred<ItemPage<unknown>>();
          pages.push(d);
          return d.promise;
        }),
        events: events.actor,
      },
    });
    const actor = createActor(machine, {
      input: { id: k.id, mode: 'open_existing' },
      inspect: coverage.inspect,
    }).start();

    async function replay(event: ModelEvent) {
      if (event.type === 'xstate.done.actor.openEntity') {
        const output = event.output as { ok: boolean; error?: Error };
        if (output.ok) opens.shift()!.resolve({ port, source: port });
        else opens.shift()!.reject(output.error);
      } else if (event.type === 'xstate.done.actor.loadPage') {
        pages.shift()!.resolve(event.output as ItemPage<unknown>);
      } else if (event.type === 'xstate.error.actor.loadPage') {
        pages.shift()!.reject(event.error);
      } else if (event.type === 'command.settled') {
        if ((event.command as { type: string }).type === setTtl.type) {
          port.failNext('setTtl', notFound(k.goneCode));
          actor.send(setTtl);
        } else {
          actor.send(k.write);
        }
      } else if (
        event.type === `${k.kind}.removed` ||
        k.pushed.some((p) => p.type === event.type)
      ) {
        events.state.push(event);
      } else {
        // The model does not follow a command's answer; a refused one leaves the view as it is.
        if (k.refused.includes(event.type)) {
          port.failNext(event.type.slice(k.kind.length + 1), serverError());
        }
        actor.send(event);
      }
      await settle();
    }
    return { actor, replay };
  }

  const name = `sync${k.kind[0]!.toUpperCase()}${k.kind.slice(1)}`;
  const coverage = new Coverage(k.machine);

  describe(`${name} model (every edge from the shortest path to each state)`, () => {
    afterAll(() => {
      console.log(coverage.report(`${name} model`));
    });

    const opened: Opened = { port: k.port(), source: null };
    const withOpened = (state: Snapshot) =>
      eventsFor(state).map((e) =>
        e.type === 'xstate.done.actor.openEntity' && (e.output as { ok: boolean }).ok
          ? { ...e, output: { ok: true, opened } }
          : e,
      );
    const paths = getShortestPaths(k.machine, {
      input: { id: k.id, mode: 'open_existing' },
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
        next: (state, event) => transition(k.machine, state, event as never)[0],
        start: () => system(coverage),
        replay: (sut, event) => sut.replay(event),
        read: (sut) => sut.actor.getSnapshot() as Snapshot,
        view,
        stop: (sut) => sut.actor.stop(),
        coverage,
        check: (actual, expected, where) => expect(actual, where).toEqual(expected),
      });
    }, 120_000);

    it('rejects bad input before opening (a separate model input)', async () => {
      const sut = createActor(k.machine, {
        input: { id: k.id, pageSize: 0 },
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
}

definePagedModel(list);
definePagedModel(map);
