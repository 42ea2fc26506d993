/** The syncList machine: {@link createSyncContainerMachine} with items addressed by index. */
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE } from '../sync/constants';
import type {
  ItemPage,
  ItemQuery,
  JsonObject,
  ListItem,
  ListPort,
  ListPushEvent,
} from '../sync/ports';
import { checkListCommand, checkListQuery, metadataOf, type ListCommand } from '../sync/validation';
import {
  createSyncContainerMachine,
  type CommandEventOf,
  type ContainerContext,
  type ContainerEmitted,
  type ContainerEvent,
  type PagedExtra,
  type PagedInput,
} from './syncContainer.factory';

export type { ListPushEvent } from '../sync/ports';

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

function runListCommand(port: ListPort, command: ListCommand): Promise<unknown> {
  switch (command.type) {
    case 'list.push':
      return port.push(command.data, metadataOf(command));
    case 'list.set':
      return port.set(command.index, command.data, metadataOf(command));
    case 'list.update':
      return port.update(command.index, command.data, metadataOf(command));
    case 'list.mutate':
      return port.mutate(command.index, command.mutator, metadataOf(command));
    case 'list.remove':
      return port.remove(command.index);
    case 'list.get':
      return port.get(command.index);
    case 'list.getItems': {
      const query: ItemQuery<number> = { pageSize: command.pageSize ?? DEFAULT_PAGE_SIZE };
      if (command.from !== undefined) query.from = command.from;
      query.order = command.order ?? DEFAULT_ORDER;
      return port.getItems(query);
    }
    case 'list.setTtl':
      return port.setTtl(command.ttl);
    case 'list.setItemTtl':
      return port.setItemTtl(command.index, command.ttl);
    case 'list.removeList':
      return port.removeList();
  }
}

/**
 * One synced list from opening to removal (see {@link createSyncContainerMachine}). Items are
 * addressed by index; `list.contextUpdated` sets the list's context object when its event id is
 * newer, and is re-emitted. Seed 8: only a ttl set that finds the list gone means it was removed.
 */
export const syncListMachine = createSyncContainerMachine<ListTypes>({
  kind: 'list',
  commands: [
    'list.push',
    'list.set',
    'list.update',
    'list.mutate',
    'list.remove',
    'list.get',
    'list.getItems',
    'list.setTtl',
    'list.setItemTtl',
    'list.removeList',
  ],
  checkInput: checkListQuery,
  checkCommand: checkListCommand,
  runCommand: runListCommand,
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
