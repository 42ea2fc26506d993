/** The syncMap machine: {@link createSyncContainerMachine} with items addressed by key. */
import type { ItemPage, MapItem, MapPort, MapPushEvent } from './syncPorts';
import {
  checkMapCommand,
  checkMapQuery,
  metadataOf,
  type MapCommand,
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

export type { MapPushEvent } from './syncPorts';

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

/**
 * One synced map from opening to removal (see {@link createSyncContainerMachine}). Items are
 * addressed by key. Seed 8: a ttl set or a put (set, update, mutate) that finds the map gone means
 * it was removed.
 */
export const syncMapMachine = createSyncContainerMachine<MapTypes>({
  kind: 'map',
  commands: {
    'map.set': (port, c) => port.set(c.key, c.data, metadataOf(c)),
    'map.update': (port, c) => port.update(c.key, c.data, metadataOf(c)),
    'map.mutate': (port, c) => port.mutate(c.key, c.mutator, metadataOf(c)),
    'map.remove': (port, c) => port.remove(c.key),
    'map.get': (port, c) => port.get(c.key),
    'map.getItems': (port, c) => port.getItems(commandQuery(c)),
    'map.setTtl': (port, c) => port.setTtl(c.ttl),
    'map.setItemTtl': (port, c) => port.setItemTtl(c.key, c.ttl),
    'map.removeMap': (port) => port.removeMap(),
  },
  checkInput: checkMapQuery,
  checkCommand: checkMapCommand,
  goneOnNotFound: ['map.setTtl', 'map.set', 'map.update', 'map.mutate'],
  writes: ['map.set', 'map.update', 'map.mutate'],
  paged: { noun: 'key', keyOf: (item) => item.key, removedKey: (event) => event.key },
  describe: {
    checking: 'Rejects a bad page size or order before anything is sent.',
    ready: 'Subscribed: pushed events and commands apply to the view.',
  },
});
