/**
 * Model tests of the container kinds without paging (document, stream), one definition walked per
 * kind: every edge from the shortest path to each state, replayed against the live machine over a
 * fake port (see syncPaged.model.test.ts for the paged kinds).
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
import { syncDocumentMachine } from '../../../src/machines/syncDocument.machine';
import { syncStreamMachine } from '../../../src/machines/syncStream.machine';
import type { Opened, OpenRequest } from '../../../src/machines/syncPorts';
import { FakeDocument, FakeStream, fakeEvents, notFound, serverError } from './syncFakes';
import { Coverage, deferred, settle, walkEdges } from './syncModelSupport';

type ModelEvent = { type: string; [field: string]: unknown };

/** What differs between the kinds; the model, the live system and the checks are shared. */
interface LiveKind {
  kind: 'document' | 'stream';
  machine: AnyStateMachine;
  id: string;
  port: () => FakeDocument | FakeStream;
  /** Pushed events offered in `ready`, besides `<kind>.removed`. */
  pushed: ModelEvent[];
  validCommands: ModelEvent[];
  invalidCommands: ModelEvent[];
  /** Commands the fake refuses (their success would change the view the model does not follow). */
  refused: string[];
  /** A write the fake answers with `written` while the container is at its first version. */
  write?: { command: ModelEvent; written: object };
  badInput: object;
  extraView: (snapshot: AnyMachineSnapshot) => object;
}

const version = (lastEventId: number, data: object) => ({
  data,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: 1_000 + lastEventId,
});

const document: LiveKind = {
  kind: 'document',
  machine: syncDocumentMachine,
  id: 'settings',
  port: () => new FakeDocument(),
  pushed: [
    { type: 'document.updated', state: version(5, { theme: 'dark' }), isLocal: false },
    { type: 'document.updated', state: version(1, { theme: 'stale' }), isLocal: false },
  ],
  validCommands: [
    { type: 'document.set', data: { a: 1 } },
    { type: 'document.update', data: { b: 2 } },
    { type: 'document.mutate', mutator: (d: object) => d },
    { type: 'document.setTtl', ttl: 5 },
    { type: 'document.removeDocument' },
  ],
  invalidCommands: [
    { type: 'document.set', data: [] },
    { type: 'document.update', data: null },
    { type: 'document.mutate', mutator: 1 },
    { type: 'document.setTtl', ttl: -1 },
  ],
  refused: ['document.set', 'document.update', 'document.mutate', 'document.removeDocument'],
  write: { command: { type: 'document.set', data: { k: 1 } }, written: version(2, { k: 1 }) },
  badInput: { id: 'settings', data: [] },
  extraView: (s) => ({ data: (s.context as { data: unknown }).data }),
};

const stream: LiveKind = {
  kind: 'stream',
  machine: syncStreamMachine,
  id: 'ringing',
  port: () => new FakeStream(),
  pushed: [
    { type: 'stream.messagePublished', message: { sid: 'TZ9', data: { n: 9 } }, isLocal: false },
  ],
  validCommands: [
    { type: 'stream.publish', data: { call: 'CA1' } },
    { type: 'stream.setTtl', ttl: 5 },
    { type: 'stream.removeStream' },
  ],
  invalidCommands: [
    { type: 'stream.publish', data: 'hi' },
    { type: 'stream.setTtl', ttl: -1 },
  ],
  refused: ['stream.removeStream'],
  badInput: { id: 'ringing', keep: 0 },
  extraView: (s) => ({ messages: (s.context as { messages: unknown }).messages }),
};

function defineLiveModel(k: LiveKind) {
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
    if (state.matches('opening')) {
      return [
        { type: 'xstate.done.actor.openEntity', output: { ok: true, opened: k.kind } },
        { type: 'xstate.done.actor.openEntity', output: { ok: false, error: serverError() } },
        ...k.validCommands,
      ];
    }
    if (state.matches('failed')) return [{ type: `${k.kind}.retry` }, ...k.validCommands];
    if (!state.matches('ready')) return [];
    const { connection, meta } = state.context;
    const first = meta?.lastEventId === (k.kind === 'document' ? 1 : 0);
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
    if (connection === 'connected' && first) events.push(...k.invalidCommands, ...k.validCommands);
    if (k.write && first) {
      events.push({
        type: 'command.settled',
        requestId: null,
        command: k.write.command,
        ok: true,
        result: k.write.written,
      });
    }
    return events;
  }

  function view(state: Snapshot) {
    const { meta, connection, error, removal } = state.context;
    return {
      value: state.value,
      offline: state.hasTag('offline'),
      meta: meta && { lastEventId: meta.lastEventId, revision: meta.revision },
      connection,
      error: error?.message ?? null,
      removal,
      ...k.extraView(state),
    };
  }

  /** The live actor: real machine, fake SDK port, opening settled by hand. */
  function system(coverage: Coverage) {
    const port = k.port();
    const opens: Array<ReturnType<typeof deferred<Opened>>> = [];
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
      } else if (event.type === 'command.settled') {
        if ((event.command as { type: string }).type === setTtl.type) {
          port.failNext('setTtl', notFound());
          actor.send(setTtl);
        } else {
          actor.send(k.write!.command);
        }
      } else if (
        event.type === `${k.kind}.removed` ||
        k.pushed.some((p) => p.type === event.type)
      ) {
        events.state.push(event);
      } else {
        // The model does not follow a command's answer; a refused one leaves the view as it is.
        if (k.refused.includes(event.type)) {
          const method = event.type.slice(k.kind.length + 1);
          port.failNext(method === 'publish' ? 'publishMessage' : method, serverError());
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
      // A coarse key keeps the walk small (messages are left out); each step is compared in full.
      serializeState: (s) => {
        const c = s.context;
        return JSON.stringify([s.value, c.meta?.lastEventId, !!c.error, c.removal]);
      },
    });

    it('has paths to check', () => {
      expect(paths.length).toBeGreaterThan(5);
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
      const sut = createActor(k.machine, { input: k.badInput, inspect: coverage.inspect }).start();
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

defineLiveModel(document);
defineLiveModel(stream);
