/**
 * One harness for every container kind: `startContainer(kind, options)` runs the kind's machine
 * over a fake directory (see syncFakes.ts) with a test-driven `events` bridge, recording what the
 * actor emits. `startList` and friends name it per kind.
 */
import {
  createActor,
  type Actor,
  type AnyStateMachine,
  type EmittedFrom,
  type InputFrom,
} from 'xstate';
import { vi } from 'vitest';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import { syncDocumentMachine } from '../../../src/machines/syncDocument.machine';
import { syncListMachine } from '../../../src/machines/syncList.machine';
import { syncMapMachine } from '../../../src/machines/syncMap.machine';
import { syncStreamMachine } from '../../../src/machines/syncStream.machine';
import type {
  ContainerPort,
  DocumentPushEvent,
  ListPushEvent,
  MapPushEvent,
  StreamPushEvent,
} from '../../../src/machines/syncPorts';
import {
  FakeDirectory,
  FakeDocument,
  FakeList,
  FakeMap,
  FakeStream,
  countAppliedItems,
  fakeEvents,
  flush,
} from './syncFakes';

/** Per kind: its machine, the name tests open it by, and how the directory makes a new one. */
export const kinds = {
  list: {
    machine: syncListMachine,
    id: 'calls',
    make: (id: string) => new FakeList(`ES-${id}`, id),
  },
  map: {
    machine: syncMapMachine,
    id: 'contacts',
    make: (id: string) => new FakeMap(`MP-${id}`, id),
  },
  document: { machine: syncDocumentMachine, id: 'settings', make: () => new FakeDocument() },
  stream: { machine: syncStreamMachine, id: 'ringing', make: () => new FakeStream() },
};
type Kinds = typeof kinds;
type Kind = keyof Kinds;
type MachineOf<K extends Kind> = Kinds[K]['machine'];
type PortOf<K extends Kind> = ReturnType<Kinds[K]['make']>;
type PushOf<K extends Kind> = {
  list: ListPushEvent;
  map: MapPushEvent;
  document: DocumentPushEvent;
  stream: StreamPushEvent;
}[K];

/** Starts a container actor of `kind`; `existing` is stored under the kind's test name first. */
export async function startContainer<K extends Kind>(
  kind: K,
  options: { input?: InputFrom<MachineOf<K>>; existing?: PortOf<K> | null } = {},
) {
  const { machine, id, make } = kinds[kind];
  const directory = new FakeDirectory<ContainerPort>(make);
  if (options.existing) directory.entities.set(id, options.existing);
  const events = fakeEvents<PushOf<K>>();
  const onRemoved = vi.fn();
  const provided = (machine as AnyStateMachine).provide({
    actors: {
      openEntity: openEntityMachine.provide({ actors: directory.actors }),
      events: events.actor,
    },
    actions: { onRemoved },
  }) as MachineOf<K>;
  const actor = createActor(provided as AnyStateMachine, {
    input: options.input ?? { id },
  }) as unknown as Actor<MachineOf<K>>;
  const emitted: Array<EmittedFrom<MachineOf<K>>> = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  await flush();
  return {
    actor,
    directory,
    events: events.state,
    onRemoved,
    emitted,
    /** The container the actor opened (or created) in the fake directory. */
    entity: () => directory.entities.get(options.input?.id ?? id) as PortOf<K>,
  };
}

export async function startList(options: Parameters<typeof startContainer<'list'>>[1] = {}) {
  const started = await startContainer('list', options);
  return { ...started, applied: countAppliedItems(started.actor), list: started.entity };
}

export async function startMap(options: Parameters<typeof startContainer<'map'>>[1] = {}) {
  const started = await startContainer('map', options);
  return { ...started, applied: countAppliedItems(started.actor), map: started.entity };
}

export function seededList(count: number): FakeList {
  const list = new FakeList('ES-calls', 'calls');
  for (let i = 0; i < count; i += 1) list.seed({ n: i });
  return list;
}

export function seededMap(keys: string[]): FakeMap {
  const map = new FakeMap('MP-contacts', 'contacts');
  for (const key of keys) map.seed(key, { name: key });
  return map;
}

const itemFields = (lastEventId: number, data: object) => ({
  data: data as Record<string, unknown>,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: 1_000 + lastEventId,
  dateExpires: null,
});

export const listItem = (
  index: number,
  lastEventId: number,
  data: object = { v: lastEventId },
) => ({
  index,
  ...itemFields(lastEventId, data),
});

export const mapItem = (key: string, lastEventId: number, data: object = { v: lastEventId }) => ({
  key,
  ...itemFields(lastEventId, data),
});
