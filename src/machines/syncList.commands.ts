/**
 * The syncList machine's vocabulary (input, events, context, command results) and the pure
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
  JsonObject,
  ListItem,
  ListPort,
  OpenMode,
  SortOrder,
  ListPushEvent,
} from '../sync/ports';
import { metadataOf, type ListCommand } from '../sync/validation';
import type { CommandDoneEvent, CommandFailedEvent } from './syncCommand';
import { advanceMetaByEvent } from './syncContainer';
import type { ItemStore } from './syncItemStore';
import type { Paging } from './syncPaging';

export interface SyncListInput {
  /** SID or unique name; absent only with mode create_new. */
  id?: string;
  mode?: OpenMode;
  ttl?: number;
  pageSize?: number;
  order?: SortOrder;
}

export type ListCommandEvent = ListCommand & { requestId?: string };

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

export type CommandSettled = {
  type: 'command.settled';
  requestId: string | null;
  command: ListCommand;
} & ({ ok: true; result: unknown } | { ok: false; error: SyncFailure });

export type SyncListEvent =
  | ListPushEvent
  | ListCommandEvent
  | CommandSettled
  | { type: 'list.loadMore' }
  | { type: 'list.retry' }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export type SyncListEmitted =
  | Exclude<ListPushEvent, { type: 'list.removed' }>
  | { type: 'list.removed'; isLocal: boolean }
  | CommandDoneEvent
  | CommandFailedEvent;

export interface SyncListContext {
  input: SyncListInput;
  port: ListPort | null;
  /** The SDK object behind the port, handed untouched to the `events` bridge. */
  source: unknown;
  meta: ContainerMeta | null;
  items: ItemStore<number, ListItem>;
  /** The list's free-form context object and the id of the event that last set it. */
  listContext: { data: JsonObject | null; eventId: number };
  paging: Paging<number>;
  connection: ConnectionState;
  error: SyncFailure | null;
  /** How the list ended, once removed. */
  removal: { isLocal: boolean } | null;
}

export async function runListCommand(port: ListPort, command: ListCommand): Promise<unknown> {
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

/** Seed 8: a ttl set on a list that is gone means the list was removed. */
export const goneOnNotFound = (command: ListCommand) => command.type === 'list.setTtl';

export const returnsItem = (command: ListCommand) =>
  command.type === 'list.push' ||
  command.type === 'list.set' ||
  command.type === 'list.update' ||
  command.type === 'list.mutate';

export function applyItem(context: SyncListContext, item: ListItem, mark?: ContainerMark) {
  const items = context.items.setIfNewer(item.index, item, item.lastEventId);
  const meta =
    context.meta && advanceMetaByEvent(context.meta, mark, item.lastEventId, item.dateUpdated);
  return { items, meta };
}
