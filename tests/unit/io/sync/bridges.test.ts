import { describe, expect, it } from 'vitest';
import { assign, createActor, setup, type AnyActorLogic, type AnyEventObject } from 'xstate';
import { clientEventsBridge, connectionBridge } from '../../../../src/io/sync/bridges/client';
import { tombstoneEventId } from '../../../../src/io/sync/bridges/convert';
import { documentEventsBridge } from '../../../../src/io/sync/bridges/document';
import { listEventsBridge } from '../../../../src/io/sync/bridges/list';
import { mapEventsBridge } from '../../../../src/io/sync/bridges/map';
import { streamEventsBridge } from '../../../../src/io/sync/bridges/stream';
import { FakeSdkClient, FakeSdkContainer, sdkItem } from './sdkFakes';

/** Runs a bridge under a parent machine that records what it sends back. */
function host(bridge: AnyActorLogic, input: unknown) {
  const machine = setup({
    types: { context: {} as { received: AnyEventObject[] } },
    actors: { bridge },
  }).createMachine({
    context: { received: [] },
    invoke: { src: 'bridge', input: () => input as never },
    on: {
      '*': {
        actions: assign({ received: ({ context, event }) => [...context.received, event] }),
      },
    },
  });
  const actor = createActor(machine).start();
  return { actor, received: () => actor.getSnapshot().context.received };
}

describe('list bridge', () => {
  it('turns SyncList events into list.* events with plain item data', () => {
    const list = new FakeSdkContainer();
    const { received } = host(listEventsBridge, { list });
    list.emit('itemAdded', { item: sdkItem({ index: 2, lastEventId: 4 }), isLocal: true });
    list.emit('itemUpdated', {
      item: sdkItem({ index: 2, lastEventId: 5 }),
      isLocal: false,
      previousItemData: { v: 4 },
    });
    list.tombstones.set(2, { lastEventId: 6 });
    list.emit('itemRemoved', { index: 2, isLocal: false, previousItemData: { v: 5 } });
    list.emit('contextUpdated', { context: { topic: 'x' }, isLocal: false });
    list.emit('removed', { isLocal: false });
    expect(received()).toEqual([
      {
        type: 'list.itemAdded',
        item: {
          index: 2,
          data: { v: 4 },
          revision: 'r4',
          lastEventId: 4,
          dateUpdated: 1_004,
          dateExpires: Date.parse('2030-01-01T00:00:00.000Z'),
        },
        isLocal: true,
        container: { lastEventId: 3, revision: '3', dateUpdated: 5_000 },
      },
      expect.objectContaining({ type: 'list.itemUpdated', previousData: { v: 4 }, isLocal: false }),
      {
        type: 'list.itemRemoved',
        index: 2,
        lastEventId: 6,
        dateUpdated: 5_000,
        isLocal: false,
        previousData: { v: 5 },
        container: { lastEventId: 3, revision: '3', dateUpdated: 5_000 },
      },
      { type: 'list.contextUpdated', context: { topic: 'x' }, lastEventId: null, isLocal: false },
      { type: 'list.removed', isLocal: false },
    ]);
  });

  it('removes every listener it added, and only those, and closes the handle on stop', () => {
    const list = new FakeSdkContainer();
    const other = () => {};
    list.on('itemAdded', other);
    const { actor } = host(listEventsBridge, { list });
    expect(list.totalListeners()).toBe(6);
    actor.stop();
    expect(list.totalListeners()).toBe(1);
    expect(list.listeners('itemAdded')).toEqual([other]);
    expect(list.closed).toBe(1);
  });
});

describe('map bridge', () => {
  it('turns SyncMap events into map.* events and cleans up to zero listeners', () => {
    const map = new FakeSdkContainer();
    const { actor, received } = host(mapEventsBridge, { map });
    map.emit('itemAdded', { item: sdkItem({ key: 'ann', lastEventId: 7 }), isLocal: false });
    map.tombstones.set('ann', { lastEventId: 8 });
    map.emit('itemRemoved', { key: 'ann', isLocal: true });
    map.emit('removed', { isLocal: true });
    expect(received().map((e) => e.type)).toEqual([
      'map.itemAdded',
      'map.itemRemoved',
      'map.removed',
    ]);
    expect(received()[0]).toMatchObject({ item: { key: 'ann', lastEventId: 7 } });
    expect(received()[1]).toMatchObject({ key: 'ann', lastEventId: 8, isLocal: true });
    expect(map.totalListeners()).toBe(4);
    actor.stop();
    expect(map.totalListeners()).toBe(0);
    expect(map.closed).toBe(1);
  });

  it('reports an unknown removal id as null rather than guessing', () => {
    expect(tombstoneEventId({}, 'syncMapImpl', 'x')).toBeNull();
    expect(tombstoneEventId({ syncMapImpl: { cache: {} } }, 'syncMapImpl', 'x')).toBeNull();
  });
});

describe('document and stream bridges', () => {
  it('reads the document version with each update and cleans up', () => {
    const doc = new FakeSdkContainer();
    const { actor, received } = host(documentEventsBridge, { document: doc });
    doc.lastEventId = 9;
    doc.revision = 'r9';
    doc.emit('updated', { data: { a: 1 }, previousData: {}, isLocal: false });
    doc.emit('removed', { isLocal: false });
    expect(received()).toEqual([
      {
        type: 'document.updated',
        state: { data: { a: 1 }, revision: 'r9', lastEventId: 9, dateUpdated: 5_000 },
        isLocal: false,
        previousData: {},
      },
      { type: 'document.removed', isLocal: false },
    ]);
    actor.stop();
    expect(doc.totalListeners()).toBe(0);
    expect(doc.closed).toBe(1);
  });

  it('forwards stream messages and cleans up', () => {
    const stream = new FakeSdkContainer();
    const { actor, received } = host(streamEventsBridge, { stream });
    stream.emit('messagePublished', { message: { sid: 'TZ1', data: { n: 1 } }, isLocal: true });
    expect(received()).toEqual([
      { type: 'stream.messagePublished', message: { sid: 'TZ1', data: { n: 1 } }, isLocal: true },
    ]);
    actor.stop();
    expect(stream.totalListeners()).toBe(0);
  });
});

describe('client bridges', () => {
  it('reports the connection state at once and on change, token warnings and errors', () => {
    const client = new FakeSdkClient();
    const { actor, received } = host(clientEventsBridge, { client });
    client.emit('connectionStateChanged', 'connected');
    client.emit('tokenAboutToExpire');
    client.emit('tokenExpired');
    client.emit('connectionError', { terminal: true, message: 'gone' });
    expect(received()).toEqual([
      { type: 'sync.connectionChanged', state: 'connecting' },
      { type: 'sync.connectionChanged', state: 'connected' },
      { type: 'client.tokenAboutToExpire' },
      { type: 'client.tokenExpired' },
      { type: 'client.connectionError', terminal: true, message: 'gone' },
    ]);
    expect(client.totalListeners()).toBe(4);
    actor.stop();
    expect(client.totalListeners()).toBe(0);
  });

  it('the connection bridge alone adds one listener and removes it', () => {
    const client = new FakeSdkClient();
    const { actor, received } = host(connectionBridge, { client });
    expect(client.totalListeners()).toBe(1);
    client.emit('connectionStateChanged', 'disconnected');
    expect(received().at(-1)).toEqual({ type: 'sync.connectionChanged', state: 'disconnected' });
    actor.stop();
    expect(client.totalListeners()).toBe(0);
  });
});
