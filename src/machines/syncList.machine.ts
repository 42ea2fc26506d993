/** The syncList machine: {@link createSyncContainerMachine} with items addressed by index. */
import type { ItemPage, JsonObject, ListItem, ListPort, ListPushEvent } from './syncPorts';
import {
  checkListCommand,
  checkListQuery,
  metadataOf,
  type ListCommand,
} from '../contracts/sync-rules';
import { commandQuery } from './syncPaging';
import { createSyncContainerMachine } from './syncContainer.factory';
import type {
  CommandEventOf,
  ContainerContext,
  ContainerEmitted,
  ContainerEvent,
  PagedExtra,
  PagedInput,
} from './syncContainer.types';

export type { ListPushEvent } from './syncPorts';

interface ListTypes {
  kind: 'list';
  port: ListPort;
  command: ListCommand;
  push: ListPushEvent;
  input: SyncListInput;
  extra: PagedExtra<number, ListItem> & {
    /** The list's free-form context object and the id of the event that last set it. */
    listContext: { data: JsonObject | null; eventId: number };
  };
  control: { type: 'list.loadMore' };
  ready: 'loadingPage' | 'idle' | 'pageFailed';
}

export type SyncListInput = PagedInput;
export type ListCommandEvent = CommandEventOf<ListTypes>;
export type SyncListContext = ContainerContext<ListTypes>;
export type SyncListEvent = ContainerEvent<ListTypes>;
export type SyncListEmitted = ContainerEmitted<ListTypes>;

/** What each command resolves to through {@link ask}. */
export interface ListCommandResults {
  'list.push': ListItem;
  'list.set': ListItem;
  'list.update': ListItem;
  'list.mutate': ListItem;
  'list.remove': undefined;
  'list.get': ListItem;
  'list.getItems': ItemPage<ListItem>;
  'list.setTtl': undefined;
  'list.setItemTtl': undefined;
  'list.removeList': undefined;
}

/**
 * One synced list from opening to removal (see {@link createSyncContainerMachine}). Items are
 * addressed by index; `list.contextUpdated` sets the list's context object when its event id is
 * newer, and is re-emitted. Seed 8: only a ttl set that finds the list gone means it was removed.
 */
export const syncListMachine = createSyncContainerMachine<ListTypes>({
  kind: 'list',
  commands: {
    'list.push': (port, c) => port.push(c.data, metadataOf(c)),
    'list.set': (port, c) => port.set(c.index, c.data, metadataOf(c)),
    'list.update': (port, c) => port.update(c.index, c.data, metadataOf(c)),
    'list.mutate': (port, c) => port.mutate(c.index, c.mutator, metadataOf(c)),
    'list.remove': (port, c) => port.remove(c.index),
    'list.get': (port, c) => port.get(c.index),
    'list.getItems': (port, c) => port.getItems(commandQuery(c)),
    'list.setTtl': (port, c) => port.setTtl(c.ttl),
    'list.setItemTtl': (port, c) => port.setItemTtl(c.index, c.ttl),
    'list.removeList': (port) => port.removeList(),
  },
  checkInput: checkListQuery,
  checkCommand: checkListCommand,
  goneOnNotFound: ['list.setTtl'],
  writes: ['list.push', 'list.set', 'list.update', 'list.mutate'],
  paged: { noun: 'index', keyOf: (item) => item.index, removedKey: (event) => event.index },
  context: () => ({ listContext: { data: null, eventId: -1 } }),
  pushed: {
    'list.contextUpdated': {
      guard: {
        name: 'isNewContext',
        test: (context, event) =>
          event.lastEventId === null || event.lastEventId > context.listContext.eventId,
      },
      apply: (context, event) => ({
        listContext: {
          data: event.context,
          eventId: event.lastEventId ?? context.listContext.eventId,
        },
      }),
      emit: true,
    },
  },
  describe: {
    checking: 'Rejects a bad page size or order before anything is sent.',
    ready: 'Subscribed: pushed events and commands apply to the view.',
  },
});
