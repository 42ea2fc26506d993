/**
 * The syncMap machine's vocabulary (input, events, context, command results) and the pure
 * helpers its actions use: running a command against the port and applying an item.
 */
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE } from '../sync/constants';
import type { SyncFailure } from '../sync/errors';
import type {
  ConnectionState,
  ContainerMark,
  ContainerMeta,
  ItemPage,
  ItemQuery,
  MapItem,
  MapPort,
  OpenMode,
  SortOrder,
  MapPushEvent,
} from '../sync/ports';
import { metadataOf, type MapCommand } from '../sync/validation';
import type { CommandDoneEvent, CommandFailedEvent } from './syncCommand';
import { advanceMetaByEvent } from './syncContainer';
import type { ItemStore } from './syncItemStore';
import type { Paging } from './syncPaging';

export interface SyncMapInput {
  /** SID or unique name; absent only with mode create_new. */
  id?: string;
  mode?: OpenMode;
  ttl?: number;
  pageSize?: number;
  order?: SortOrder;
}

export type MapCommandEvent = MapCommand & { requestId?: string };

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

export type CommandSettled = {
  type: 'command.settled';
  requestId: string | null;
  command: MapCommand;
} & ({ ok: true; result: unknown } | { ok: false; error: SyncFailure });

export type SyncMapEvent =
  | MapPushEvent
  | MapCommandEvent
  | CommandSettled
  | { type: 'map.loadMore' }
  | { type: 'map.retry' }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export type SyncMapEmitted =
  | Exclude<MapPushEvent, { type: 'map.removed' }>
  | { type: 'map.removed'; isLocal: boolean }
  | CommandDoneEvent
  | CommandFailedEvent;

export interface SyncMapContext {
  input: SyncMapInput;
  port: MapPort | null;
  /** The SDK object behind the port, handed untouched to the `events` bridge. */
  source: unknown;
  meta: ContainerMeta | null;
  items: ItemStore<string, MapItem>;
  paging: Paging<string>;
  connection: ConnectionState;
  error: SyncFailure | null;
  /** How the map ended, once removed. */
  removal: { isLocal: boolean } | null;
}

export async function runMapCommand(port: MapPort, command: MapCommand): Promise<unknown> {
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

/** Seed 8: a ttl set or a put (set, update, mutate) on a map that is gone means it was removed. */
export const goneOnNotFound = (command: MapCommand) =>
  command.type === 'map.setTtl' ||
  command.type === 'map.set' ||
  command.type === 'map.update' ||
  command.type === 'map.mutate';

export const returnsItem = (command: MapCommand) =>
  command.type === 'map.set' || command.type === 'map.update' || command.type === 'map.mutate';

export function applyItem(context: SyncMapContext, item: MapItem, mark?: ContainerMark) {
  const items = context.items.setIfNewer(item.key, item, item.lastEventId);
  const meta =
    context.meta && advanceMetaByEvent(context.meta, mark, item.lastEventId, item.dateUpdated);
  return { items, meta };
}
