/** The syncMap machine: {@link createSyncContainerMachine} with items addressed by key. */
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE } from '../sync/constants';
import type { ItemPage, ItemQuery, MapItem, MapPort, MapPushEvent } from '../sync/ports';
import { checkMapCommand, checkMapQuery, metadataOf, type MapCommand } from '../sync/validation';
import {
  createSyncContainerMachine,
  type CommandEventOf,
  type ContainerContext,
  type ContainerEmitted,
  type ContainerEvent,
  type PagedExtra,
  type PagedInput,
} from './syncContainer.factory';

export type { MapPushEvent } from '../sync/ports';

interface MapTypes {
  kind: 'map';
  port: MapPort;
  command: MapCommand;
  push: MapPushEvent;
  input: SyncMapInput;
  extra: PagedExtra<string, MapItem>;
  control: { type: 'map.loadMore' };
  ready: 'loadingPage' | 'idle' | 'pageFailed';
}

export type SyncMapInput = PagedInput;
export type MapCommandEvent = CommandEventOf<MapTypes>;
export type SyncMapContext = ContainerContext<MapTypes>;
export type SyncMapEvent = ContainerEvent<MapTypes>;
export type SyncMapEmitted = ContainerEmitted<MapTypes>;

/** What each command resolves to through {@link ask}. */
export interface MapCommandResults {
  'map.set': MapItem;
  'map.update': MapItem;
  'map.mutate': MapItem;
  'map.remove': undefined;
  'map.get': MapItem;
  'map.getItems': ItemPage<MapItem>;
  'map.setTtl': undefined;
  'map.setItemTtl': undefined;
  'map.removeMap': undefined;
}

function runMapCommand(port: MapPort, command: MapCommand): Promise<unknown> {
  switch (command.type) {
    case 'map.set':
      return port.set(command.key, command.data, metadataOf(command));
    case 'map.update':
      return port.update(command.key, command.data, metadataOf(command));
    case 'map.mutate':
      return port.mutate(command.key, command.mutator, metadataOf(command));
    case 'map.remove':
      return port.remove(command.key);
    case 'map.get':
      return port.get(command.key);
    case 'map.getItems': {
      const query: ItemQuery<string> = { pageSize: command.pageSize ?? DEFAULT_PAGE_SIZE };
      if (command.from !== undefined) query.from = command.from;
      query.order = command.order ?? DEFAULT_ORDER;
      return port.getItems(query);
    }
    case 'map.setTtl':
      return port.setTtl(command.ttl);
    case 'map.setItemTtl':
      return port.setItemTtl(command.key, command.ttl);
    case 'map.removeMap':
      return port.removeMap();
  }
}

/**
 * One synced map from opening to removal (see {@link createSyncContainerMachine}). Items are
 * addressed by key. Seed 8: a ttl set or a put (set, update, mutate) that finds the map gone means
 * it was removed.
 */
export const syncMapMachine = createSyncContainerMachine<MapTypes>({
  kind: 'map',
  commands: [
    'map.set',
    'map.update',
    'map.mutate',
    'map.remove',
    'map.get',
    'map.getItems',
    'map.setTtl',
    'map.setItemTtl',
    'map.removeMap',
  ],
  checkInput: checkMapQuery,
  checkCommand: checkMapCommand,
  runCommand: runMapCommand,
  goneOnNotFound: ['map.setTtl', 'map.set', 'map.update', 'map.mutate'],
  writes: ['map.set', 'map.update', 'map.mutate'],
  paged: { noun: 'key', keyOf: (item) => item.key, removedKey: (event) => event.key },
  describe: {
    checking: 'Rejects a bad page size or order before anything is sent.',
    ready: 'Subscribed: pushed events and commands apply to the view.',
  },
});
