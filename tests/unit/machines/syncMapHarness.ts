import { createActor } from 'xstate';
import { vi } from 'vitest';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import {
  syncMapMachine,
  type MapPushEvent,
  type SyncMapEmitted,
  type SyncMapInput,
} from '../../../src/machines/syncMap.machine';
import { FakeDirectory, FakeMap, fakeEvents, flush, countAppliedItems } from './syncFakes';

/** Starts a syncMap actor over a fake directory; `existing` seeds a map named "contacts". */
export async function startMap(options: { input?: SyncMapInput; existing?: FakeMap } = {}) {
  const directory = new FakeDirectory<FakeMap>((id) => new FakeMap(`MP-${id}`, id));
  if (options.existing) directory.entities.set('contacts', options.existing);
  const events = fakeEvents<MapPushEvent>();
  const onRemoved = vi.fn();
  const machine = syncMapMachine.provide({
    actors: {
      openEntity: openEntityMachine.provide({ actors: directory.actors }),
      events: events.actor,
    },
    actions: { onRemoved },
  });
  const actor = createActor(machine, { input: options.input ?? { id: 'contacts' } });
  const emitted: SyncMapEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  await flush();
  return {
    actor,
    applied: countAppliedItems(actor),
    directory,
    events: events.state,
    onRemoved,
    emitted,
    map: () => directory.entities.get(options.input?.id ?? 'contacts')!,
  };
}

export function seededMap(keys: string[]): FakeMap {
  const map = new FakeMap('MP-contacts', 'contacts');
  for (const key of keys) map.seed(key, { name: key });
  return map;
}

export const mapItem = (key: string, lastEventId: number, data: object = { v: lastEventId }) => ({
  key,
  data: data as Record<string, unknown>,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: 1_000 + lastEventId,
  dateExpires: null,
});
