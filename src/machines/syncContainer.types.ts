/**
 * What a container kind is made of, as types: {@link KindTypes} names a kind's port, commands,
 * pushed events, input and extra context, and {@link ContainerSpec} is what the kind hands to
 * `createSyncContainerMachine` (syncContainer.factory.ts). Context, events and emitted events of
 * every kind derive from these.
 */
import type { CommandDoneEvent, CommandFailedEvent } from './syncCommand';
import type { SyncFailure } from '../contracts/sync-errors';
import type {
  ConnectionState,
  ContainerKind,
  ContainerMeta,
  ContainerPort,
  OpenMode,
  OpenRequest,
  SortOrder,
} from './syncPorts';
import type { ItemStore } from './syncItemStore';
import type { Paging } from './syncPaging';

/** What every kind's input has: how to open (seed 4). */
export interface ContainerInput {
  /** SID or unique name; absent only with mode create_new. */
  id?: string;
  mode?: OpenMode;
  ttl?: number;
}

/** A kind's vocabulary as types: the factory derives context, events and emitted events from it. */
export interface KindTypes {
  kind: ContainerKind;
  port: ContainerPort;
  command: { type: string };
  push: { type: string };
  input: ContainerInput;
  /** Context fields only this kind has. */
  extra: object;
  /** Events only this kind takes besides pushed events and commands (e.g. `list.loadMore`). */
  control: { type: string };
  /** Names of the `ready` state's children. */
  ready: string;
}

export type CommandEventOf<T extends KindTypes> = T['command'] & { requestId?: string };

export type CommandSettled<C> = {
  type: 'command.settled';
  requestId: string | null;
  command: C;
} & ({ ok: true; result: unknown } | { ok: false; error: SyncFailure });

export type ContainerEvent<T extends KindTypes> =
  | T['push']
  | CommandEventOf<T>
  | CommandSettled<T['command']>
  | T['control']
  | { type: `${T['kind']}.retry` }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export type ContainerEmitted<T extends KindTypes> =
  | Exclude<T['push'], { type: `${T['kind']}.removed` }>
  | { type: `${T['kind']}.removed`; isLocal: boolean }
  | CommandDoneEvent
  | CommandFailedEvent;

export type ContainerContext<T extends KindTypes> = {
  input: T['input'];
  port: T['port'] | null;
  /** The SDK object behind the port, handed untouched to the `events` bridge. */
  source: unknown;
  meta: ContainerMeta | null;
  connection: ConnectionState;
  error: SyncFailure | null;
  /** How the container ended, once removed. */
  removal: { isLocal: boolean } | null;
} & T['extra'];

/** Context of the paged kinds (list, map): the item store and the paging cursor. */
export interface PagedExtra<K, V> {
  items: ItemStore<K, V>;
  paging: Paging<K>;
}

/** Input of the paged kinds. */
export interface PagedInput extends ContainerInput {
  pageSize?: number;
  order?: SortOrder;
}

/** A pushed event applied in `ready`: its named guard (shown in the chart), update, re-emit. */
export interface PushRule<C, E> {
  guard?: { name: string; test(this: void, context: C, event: E): boolean };
  apply(this: void, context: C, event: E): Partial<C>;
  /** Re-emit the event to listeners (item events are not: they are the hot path). */
  emit?: boolean;
}

type KeyOf<T extends KindTypes> = T['extra'] extends PagedExtra<infer K, unknown> ? K : never;
type ItemOf<T extends KindTypes> = T['extra'] extends PagedExtra<unknown, infer V> ? V : never;

/** What a kind supplies; opening, subscription, removal, commands and refusals are shared. */
export interface ContainerSpec<T extends KindTypes> {
  kind: T['kind'];
  /** Each command and how it runs on the port, in chart order, `<kind>.remove<Kind>` last. */
  commands: {
    [C in T['command'] as C['type']]: (port: T['port'], command: C) => Promise<unknown>;
  };
  checkInput(this: void, input: T['input']): SyncFailure | null;
  checkCommand(this: void, command: T['command']): SyncFailure | null;
  /** Seed 8: commands whose 404 means the container itself is gone. */
  goneOnNotFound: ReadonlyArray<T['command']['type']>;
  /** Commands whose result is the written item or version, applied like a pushed one. */
  writes: ReadonlyArray<T['command']['type']>;
  /** How a written result applies (paged kinds: stored under its key when newer). */
  applyWrite?(
    this: void,
    context: ContainerContext<T>,
    result: never,
  ): Partial<ContainerContext<T>>;
  /** Items addressed by index or key, fetched page by page (`ready` loads pages). */
  paged?: {
    /** "index" or "key", as the chart says it. */
    noun: string;
    keyOf(this: void, item: ItemOf<T>): KeyOf<T>;
    removedKey(
      this: void,
      event: Extract<T['push'], { type: `${T['kind']}.itemRemoved` }>,
    ): KeyOf<T>;
  };
  /** Pushed events besides item events and `<kind>.removed`, in chart order. */
  pushed?: { [E in T['push'] as E['type']]?: PushRule<ContainerContext<T>, E> };
  /** Context only this kind has at start (paged kinds get `items` and `paging`). */
  context?(this: void, input: T['input']): Partial<T['extra']>;
  /** Context read from the port once opened (a document's data). */
  opened?(this: void, port: T['port']): Partial<T['extra']>;
  /** Extra fields of the open request (a document's initial data). */
  request?(this: void, input: T['input']): Partial<OpenRequest>;
  describe: { checking: string; ready: string; offline?: string };
}
