import { createActor } from 'xstate';
import { vi } from 'vitest';
import { openEntityMachine } from '../../../src/machines/openEntity.machine';
import {
  syncListMachine,
  type ListPushEvent,
  type SyncListEmitted,
  type SyncListInput,
} from '../../../src/machines/syncList.machine';
import { FakeDirectory, FakeList, fakeEvents, flush, countAppliedItems } from './syncFakes';

/** Starts a syncList actor over a fake directory; `existing` seeds a list named "calls". */
export async function startList(options: { input?: SyncListInput; existing?: FakeList } = {}) {
  const directory = new FakeDirectory<FakeList>((id) => new FakeList(`ES-${id}`, id));
  if (options.existing) directory.entities.set('calls', options.existing);
  const events = fakeEvents<ListPushEvent>();
  const onRemoved = vi.fn();
  const machine = syncListMachine.provide({
    actors: {
      openEntity: openEntityMachine.provide({ actors: directory.actors }),
      events: events.actor,
    },
    actions: { onRemoved },
  });
  const actor = createActor(machine, { input: options.input ?? { id: 'calls' } });
  const emitted: SyncListEmitted[] = [];
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
    list: () => directory.entities.get(options.input?.id ?? 'calls')!,
  };
}

export function seededList(count: number): FakeList {
  const list = new FakeList('ES-calls', 'calls');
  for (let i = 0; i < count; i += 1) list.seed({ n: i });
  return list;
}

export const listItem = (
  index: number,
  lastEventId: number,
  data: object = { v: lastEventId },
) => ({
  index,
  data: data as Record<string, unknown>,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: 1_000 + lastEventId,
  dateExpires: null,
});
