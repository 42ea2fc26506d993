/**
 * The container machines over in-memory objects (tests/unit/machines/syncFakes.ts), as the sync
 * runtime provides them: what the admin mutators and editor hooks open and write, recorded.
 */
import { createActor, type AnyStateMachine } from 'xstate';
import { openEntityMachine } from '../../../../../src/machines/openEntity.machine';
import { syncDocumentMachine } from '../../../../../src/machines/syncDocument.machine';
import { syncListMachine } from '../../../../../src/machines/syncList.machine';
import { syncMapMachine } from '../../../../../src/machines/syncMap.machine';
import type {
  ContainerPort,
  JsonObject,
  MapPushEvent,
} from '../../../../../src/machines/syncPorts';
import {
  FakeDirectory,
  FakeDocument,
  FakeList,
  FakeMap,
  fakeEvents,
  flush,
} from '../../../machines/syncFakes';

function provided<M extends AnyStateMachine>(
  machine: M,
  directory: FakeDirectory<ContainerPort>,
  events = fakeEvents().actor,
): M {
  return machine.provide({
    actors: { openEntity: openEntityMachine.provide({ actors: directory.actors }), events },
  }) as M;
}

/** A document holding `data`. */
export function documentWith(data: JsonObject): FakeDocument {
  const doc = new FakeDocument();
  doc.state = { data, revision: 'r1', lastEventId: 1, dateUpdated: 1_001 };
  return doc;
}

export function fakeSync() {
  const documents = new FakeDirectory<FakeDocument>(() => new FakeDocument());
  const lists = new FakeDirectory<FakeList>((id) => new FakeList(`ES-${id}`, id));
  const maps = new FakeDirectory<FakeMap>((id) => new FakeMap(`MP-${id}`, id));
  const machines = {
    document: provided(syncDocumentMachine, documents as FakeDirectory<ContainerPort>),
    list: provided(syncListMachine, lists as FakeDirectory<ContainerPort>),
  };
  /** Opens map `id` (seeded with `items`) as a screen would, with a test-driven event bridge. */
  async function openMap(id: string, items: Record<string, JsonObject> = {}) {
    const map = new FakeMap(`MP-${id}`, id);
    for (const [key, data] of Object.entries(items)) map.seed(key, data);
    maps.entities.set(id, map);
    const events = fakeEvents<MapPushEvent>();
    const actor = createActor(
      provided(syncMapMachine, maps as FakeDirectory<ContainerPort>, events.actor),
      {
        input: { id },
      },
    );
    actor.start();
    await flush();
    return { actor, map, events: events.state };
  }
  /** Opens document `id` (holding `data`) as a screen would. */
  function documentActor(id: string, data: JsonObject) {
    const doc = documentWith(data);
    documents.entities.set(id, doc);
    const actor = createActor(machines.document, { input: { id, mode: 'open_existing' } });
    actor.start();
    return { actor, doc };
  }
  return { machines, documents, lists, maps, openMap, documentActor };
}

/** The calls that write (anything but reads), by method. */
export const writes = (recorder: { calls: Array<{ method: string }> }) =>
  recorder.calls.filter((c) => !['get', 'getItems', 'getContext'].includes(c.method));
