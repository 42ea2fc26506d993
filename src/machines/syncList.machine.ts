import {
  assign,
  emit,
  enqueueActions,
  fromCallback,
  fromPromise,
  setup,
  type EventObject,
} from 'xstate';
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE } from '../sync/constants';
import { isContainerGone, syncErrors, toSyncFailure } from '../sync/errors';
import type { ItemPage, ItemQuery, ListItem, ListPort } from '../sync/ports';
import { checkListCommand, checkListQuery, type ListCommand } from '../sync/validation';
import {
  commandRunner,
  commandTransition,
  refuseWhileClosed,
  done,
  failed,
  notOpenYet,
  rejected,
} from './syncCommand';
import { openEntityMachine, type OpenEntityOutput } from './openEntity.machine';
import { advanceMetaByEvent } from './syncContainer';
import { ItemStore } from './syncItemStore';
import { applyPage, nextPageQuery } from './syncPaging';
import {
  applyItem,
  goneOnNotFound,
  returnsItem,
  runListCommand,
  type ListCommandEvent,
  type SyncListContext,
  type SyncListEmitted,
  type SyncListEvent,
  type SyncListInput,
} from './syncList.commands';

export type { ListPushEvent } from '../sync/ports';
export type {
  ListCommandEvent,
  ListCommandResults,
  SyncListContext,
  SyncListEmitted,
  SyncListEvent,
  SyncListInput,
} from './syncList.commands';

const rejectCommands = refuseWhileClosed([
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
]);

/**
 * One synced list from opening to removal. Opening runs {@link openEntityMachine}; once `ready`
 * the `events` bridge delivers pushed events (`list.itemAdded` ...), applied under seed 4's rules:
 * an item event whose id is not newer than the one known for that index (tombstones included) is
 * ignored; the list's last event id and revision only move forward; date_updated only moves later.
 * Applying one is a single targetless transition on `ready` (one guard, one assign): item events
 * are the hot path, so they are not re-emitted, and connection loss is mirrored in
 * `context.connection` rather than in a parallel region, which would double their cost (see
 * docs/performance.md). Commands are validated (seed 5) before anything is sent; each answers
 * with an emitted `command.done` or `command.failed` (see `ask`).
 * Removal, local or remote, stops the bridge (which unsubscribes and closes the SDK object), runs
 * the provided `onRemoved` action and emits `list.removed`.
 *
 * Provided: actors `openEntity` (with its `open`/`create`), `events`, `connection`; action
 * `onRemoved`.
 */
export const syncListMachine = setup({
  types: {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- xstate reads the type
    input: {} as SyncListInput,
    context: {} as SyncListContext,
    events: {} as SyncListEvent,
    emitted: {} as SyncListEmitted,
  },
  actors: {
    openEntity: openEntityMachine,
    /** Reports the client's connection state as `sync.connectionChanged` events. */
    connection: fromCallback<EventObject>(() => () => {}),
    events: fromCallback<EventObject, { source: unknown }>(() => () => {}),
    loadPage: fromPromise<ItemPage<ListItem>, { port: ListPort; query: ItemQuery<number> }>(
      ({ input }) => input.port.getItems(input.query),
    ),
    runCommand: commandRunner(runListCommand),
  },
  guards: {
    inputInvalid: ({ context }) => checkListQuery(context.input) !== null,
    openedList: (_, output: OpenEntityOutput) => output.ok && output.opened.port.kind === 'list',
    commandInvalid: ({ event }) =>
      event.type.startsWith('list.') && checkListCommand(event as ListCommand) !== null,
    isNewItem: ({ context, event }) =>
      (event.type === 'list.itemAdded' || event.type === 'list.itemUpdated') &&
      context.items.isNewer(event.item.index, event.item.lastEventId),
    isNewRemoval: ({ context, event }) =>
      event.type === 'list.itemRemoved' &&
      context.items.has(event.index) &&
      (event.lastEventId === null || context.items.isNewer(event.index, event.lastEventId)),
    isNewContext: ({ context, event }) =>
      event.type === 'list.contextUpdated' &&
      (event.lastEventId === null || event.lastEventId > context.listContext.eventId),
    hasMore: ({ context }) => context.paging.hasMore,
    containerGone: ({ event }) =>
      event.type === 'command.settled' &&
      ((!event.ok && goneOnNotFound(event.command) && isContainerGone(event.error)) ||
        (event.ok && event.command.type === 'list.removeList')),
  },
  actions: {
    onRemoved: () => {},
    rejectInvalidCommand: emit(({ event }) => {
      const command = event as ListCommandEvent;
      return rejected(
        command,
        checkListCommand(command) ?? syncErrors.invalidArgument('invalid command'),
      );
    }),
    rejectNotReady: emit(({ context, event }) =>
      rejected(event as ListCommandEvent, context.error ?? notOpenYet('list')),
    ),
    startCommand: enqueueActions(({ context, event, enqueue }) => {
      const command = event as ListCommandEvent;
      if (!context.port) return;
      const { requestId, ...rest } = command;
      enqueue.spawnChild('runCommand', {
        input: { port: context.port, command: rest, requestId: requestId ?? null },
      });
    }),
    settleCommand: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'command.settled') return;
      if (!event.ok) {
        enqueue.emit(failed(event));
        return;
      }
      if (returnsItem(event.command)) {
        const item = event.result as ListItem;
        enqueue.assign(applyItem(context, item));
      }
      enqueue.emit(done(event, event.result));
    }),
    applyItemEvent: assign(({ context, event }) =>
      event.type === 'list.itemAdded' || event.type === 'list.itemUpdated'
        ? applyItem(context, event.item, event.container)
        : {},
    ),
    applyRemovalEvent: assign(({ context, event }) =>
      event.type === 'list.itemRemoved'
        ? {
            items: context.items.remove(event.index, event.lastEventId),
            meta:
              context.meta &&
              advanceMetaByEvent(
                context.meta,
                event.container,
                event.lastEventId,
                event.dateUpdated,
              ),
          }
        : {},
    ),
    applyContextEvent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'list.contextUpdated') return;
      enqueue.assign({
        listContext: {
          data: event.context,
          eventId: event.lastEventId ?? context.listContext.eventId,
        },
      });
      enqueue.emit(event);
    }),
    markRemoved: assign({
      removal: ({ event }) => ({
        isLocal: event.type === 'list.removed' ? event.isLocal : true,
      }),
    }),
    emitRemoved: emit(({ context }) => ({
      type: 'list.removed' as const,
      isLocal: context.removal?.isLocal ?? true,
    })),
    failRemovedCommand: enqueueActions(({ event, enqueue }) => {
      // The command that found the list gone still owes its caller an answer (seed 8: re-thrown).
      if (event.type !== 'command.settled' || event.ok) return;
      enqueue.emit(failed(event));
    }),
    answerRemoveList: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'command.settled' || !event.ok) return;
      enqueue.emit(done(event, undefined));
    }),
  },
}).createMachine({
  id: 'syncList',
  context: ({ input }) => ({
    input,
    port: null,
    source: null,
    meta: null,
    items: ItemStore.empty(),
    listContext: { data: null, eventId: -1 },
    paging: {
      pageSize: input.pageSize ?? DEFAULT_PAGE_SIZE,
      order: input.order ?? DEFAULT_ORDER,
      hasMore: false,
      cursor: null,
    },
    connection: 'connected',
    error: null,
    removal: null,
  }),
  invoke: { id: 'connection', src: 'connection' },
  on: {
    'sync.connectionChanged': { actions: assign({ connection: ({ event }) => event.state }) },
  },
  initial: 'checking',
  states: {
    checking: {
      description: 'Rejects a bad page size or order before anything is sent.',
      always: [
        {
          guard: 'inputInvalid',
          target: 'failed',
          actions: assign({ error: ({ context }) => checkListQuery(context.input) }),
        },
        { target: 'opening' },
      ],
    },
    opening: {
      invoke: {
        id: 'openEntity',
        src: 'openEntity',
        input: ({ context }) => {
          const { id, mode, ttl } = context.input;
          return {
            request: {
              kind: 'list' as const,
              mode: mode ?? 'open_or_create',
              ...(id === undefined ? {} : { id }),
              ...(ttl === undefined ? {} : { ttl }),
            },
          };
        },
        onDone: [
          {
            guard: { type: 'openedList', params: ({ event }) => event.output },
            target: 'ready',
            actions: assign(({ event }) => {
              const opened = event.output.ok ? event.output.opened : null;
              const port = opened?.port.kind === 'list' ? opened.port : null;
              return { port, source: opened?.source ?? null, meta: port?.describe() ?? null };
            }),
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) =>
                event.output.ok
                  ? syncErrors.invalidArgument('The opened entity is not a list')
                  : event.output.error,
            }),
          },
        ],
      },
      on: rejectCommands,
    },
    ready: {
      initial: 'loadingPage',
      description: 'Subscribed: pushed events and commands apply to the view.',
      invoke: { id: 'events', src: 'events', input: ({ context }) => ({ source: context.source }) },
      on: {
        'list.itemAdded': { guard: 'isNewItem', actions: 'applyItemEvent' },
        'list.itemUpdated': { guard: 'isNewItem', actions: 'applyItemEvent' },
        'list.itemRemoved': { guard: 'isNewRemoval', actions: 'applyRemovalEvent' },
        'list.contextUpdated': { guard: 'isNewContext', actions: 'applyContextEvent' },
        'list.removed': { target: 'removed', actions: 'markRemoved' },
        'command.settled': [
          {
            guard: 'containerGone',
            target: 'removed',
            actions: ['failRemovedCommand', 'answerRemoveList', 'markRemoved'],
          },
          { actions: 'settleCommand' },
        ],
        'list.push': commandTransition,
        'list.set': commandTransition,
        'list.update': commandTransition,
        'list.mutate': commandTransition,
        'list.remove': commandTransition,
        'list.get': commandTransition,
        'list.getItems': commandTransition,
        'list.setTtl': commandTransition,
        'list.setItemTtl': commandTransition,
        'list.removeList': { actions: 'startCommand' },
      },
      states: {
        loadingPage: {
          description:
            'Fetching a page: the first on entry (default 50, ascending), then the one after the last loaded index, on demand.',
          invoke: {
            id: 'loadPage',
            src: 'loadPage',
            input: ({ context }) => ({
              port: context.port as ListPort,
              query: nextPageQuery(context.paging),
            }),
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) =>
                applyPage(context.items, context.paging, event.output, (item) => item.index),
              ),
            },
            onError: {
              target: 'pageFailed',
              actions: assign({ error: ({ event }) => toSyncFailure(event.error) }),
            },
          },
        },
        idle: {
          on: { 'list.loadMore': { guard: 'hasMore', target: 'loadingPage' } },
        },
        pageFailed: {
          description: 'A page could not be fetched; list.loadMore or list.retry tries again.',
          on: {
            'list.loadMore': { target: 'loadingPage' },
            'list.retry': { target: 'loadingPage' },
          },
        },
      },
    },
    removed: {
      type: 'final',
      description: 'Gone (locally or remotely): unsubscribed, handler run, removal emitted.',
      entry: ['onRemoved', 'emitRemoved'],
    },
    failed: {
      description: 'Opening failed; `error` says why. list.retry opens again.',
      on: {
        'list.retry': {
          target: 'checking',
          actions: assign({ error: null }),
        },
        ...rejectCommands,
      },
    },
  },
});
