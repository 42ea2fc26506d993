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
import type { ItemPage, ItemQuery, MapItem, MapPort } from '../sync/ports';
import { checkMapCommand, checkMapQuery, type MapCommand } from '../sync/validation';
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
  runMapCommand,
  type MapCommandEvent,
  type SyncMapContext,
  type SyncMapEmitted,
  type SyncMapEvent,
  type SyncMapInput,
} from './syncMap.commands';

export type { MapPushEvent } from '../sync/ports';
export type {
  MapCommandEvent,
  MapCommandResults,
  SyncMapContext,
  SyncMapEmitted,
  SyncMapEvent,
  SyncMapInput,
} from './syncMap.commands';

const rejectCommands = refuseWhileClosed([
  'map.set',
  'map.update',
  'map.mutate',
  'map.remove',
  'map.get',
  'map.getItems',
  'map.setTtl',
  'map.setItemTtl',
  'map.removeMap',
]);

/**
 * One synced map from opening to removal. Opening runs {@link openEntityMachine}; once `ready`
 * the `events` bridge delivers pushed events (`map.itemAdded` ...), applied under seed 4's rules:
 * an item event whose id is not newer than the one known for that key (tombstones included) is
 * ignored; the map's last event id and revision only move forward; date_updated only moves later.
 * Applying one is a single targetless transition on `ready` (one guard, one assign): item events
 * are the hot path, so they are not re-emitted, and connection loss is mirrored in
 * `context.connection` rather than in a parallel region, which would double their cost (see
 * docs/performance.md). Commands are validated (seed 5) before anything is sent; each answers
 * with an emitted `command.done` or `command.failed` (see `ask`).
 * Removal, local or remote, stops the bridge (which unsubscribes and closes the SDK object), runs
 * the provided `onRemoved` action and emits `map.removed`.
 *
 * Provided: actors `openEntity` (with its `open`/`create`), `events`, `connection`; action
 * `onRemoved`.
 */
export const syncMapMachine = setup({
  types: {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- xstate reads the type
    input: {} as SyncMapInput,
    context: {} as SyncMapContext,
    events: {} as SyncMapEvent,
    emitted: {} as SyncMapEmitted,
  },
  actors: {
    openEntity: openEntityMachine,
    /** Reports the client's connection state as `sync.connectionChanged` events. */
    connection: fromCallback<EventObject>(() => () => {}),
    events: fromCallback<EventObject, { source: unknown }>(() => () => {}),
    loadPage: fromPromise<ItemPage<MapItem>, { port: MapPort; query: ItemQuery<string> }>(
      ({ input }) => input.port.getItems(input.query),
    ),
    runCommand: commandRunner(runMapCommand),
  },
  guards: {
    inputInvalid: ({ context }) => checkMapQuery(context.input) !== null,
    openedMap: (_, output: OpenEntityOutput) => output.ok && output.opened.port.kind === 'map',
    commandInvalid: ({ event }) =>
      event.type.startsWith('map.') && checkMapCommand(event as MapCommand) !== null,
    isNewItem: ({ context, event }) =>
      (event.type === 'map.itemAdded' || event.type === 'map.itemUpdated') &&
      context.items.isNewer(event.item.key, event.item.lastEventId),
    isNewRemoval: ({ context, event }) =>
      event.type === 'map.itemRemoved' &&
      context.items.has(event.key) &&
      (event.lastEventId === null || context.items.isNewer(event.key, event.lastEventId)),
    hasMore: ({ context }) => context.paging.hasMore,
    containerGone: ({ event }) =>
      event.type === 'command.settled' &&
      ((!event.ok && goneOnNotFound(event.command) && isContainerGone(event.error)) ||
        (event.ok && event.command.type === 'map.removeMap')),
  },
  actions: {
    onRemoved: () => {},
    rejectInvalidCommand: emit(({ event }) => {
      const command = event as MapCommandEvent;
      return rejected(
        command,
        checkMapCommand(command) ?? syncErrors.invalidArgument('invalid command'),
      );
    }),
    rejectNotReady: emit(({ context, event }) =>
      rejected(event as MapCommandEvent, context.error ?? notOpenYet('map')),
    ),
    startCommand: enqueueActions(({ context, event, enqueue }) => {
      const command = event as MapCommandEvent;
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
        const item = event.result as MapItem;
        enqueue.assign(applyItem(context, item));
      }
      enqueue.emit(done(event, event.result));
    }),
    applyItemEvent: assign(({ context, event }) =>
      event.type === 'map.itemAdded' || event.type === 'map.itemUpdated'
        ? applyItem(context, event.item, event.container)
        : {},
    ),
    applyRemovalEvent: assign(({ context, event }) =>
      event.type === 'map.itemRemoved'
        ? {
            items: context.items.remove(event.key, event.lastEventId),
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
    markRemoved: assign({
      removal: ({ event }) => ({
        isLocal: event.type === 'map.removed' ? event.isLocal : true,
      }),
    }),
    emitRemoved: emit(({ context }) => ({
      type: 'map.removed' as const,
      isLocal: context.removal?.isLocal ?? true,
    })),
    failRemovedCommand: enqueueActions(({ event, enqueue }) => {
      // The command that found the map gone still owes its caller an answer (seed 8: re-thrown).
      if (event.type !== 'command.settled' || event.ok) return;
      enqueue.emit(failed(event));
    }),
    answerRemoveMap: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'command.settled' || !event.ok) return;
      enqueue.emit(done(event, undefined));
    }),
  },
}).createMachine({
  id: 'syncMap',
  context: ({ input }) => ({
    input,
    port: null,
    source: null,
    meta: null,
    items: ItemStore.empty(),
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
          actions: assign({ error: ({ context }) => checkMapQuery(context.input) }),
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
              kind: 'map' as const,
              mode: mode ?? 'open_or_create',
              ...(id === undefined ? {} : { id }),
              ...(ttl === undefined ? {} : { ttl }),
            },
          };
        },
        onDone: [
          {
            guard: { type: 'openedMap', params: ({ event }) => event.output },
            target: 'ready',
            actions: assign(({ event }) => {
              const opened = event.output.ok ? event.output.opened : null;
              const port = opened?.port.kind === 'map' ? opened.port : null;
              return { port, source: opened?.source ?? null, meta: port?.describe() ?? null };
            }),
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) =>
                event.output.ok
                  ? syncErrors.invalidArgument('The opened entity is not a map')
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
        'map.itemAdded': { guard: 'isNewItem', actions: 'applyItemEvent' },
        'map.itemUpdated': { guard: 'isNewItem', actions: 'applyItemEvent' },
        'map.itemRemoved': { guard: 'isNewRemoval', actions: 'applyRemovalEvent' },
        'map.removed': { target: 'removed', actions: 'markRemoved' },
        'command.settled': [
          {
            guard: 'containerGone',
            target: 'removed',
            actions: ['failRemovedCommand', 'answerRemoveMap', 'markRemoved'],
          },
          { actions: 'settleCommand' },
        ],
        'map.set': commandTransition,
        'map.update': commandTransition,
        'map.mutate': commandTransition,
        'map.remove': commandTransition,
        'map.get': commandTransition,
        'map.getItems': commandTransition,
        'map.setTtl': commandTransition,
        'map.setItemTtl': commandTransition,
        'map.removeMap': { actions: 'startCommand' },
      },
      states: {
        loadingPage: {
          description:
            'Fetching a page: the first on entry (default 50, ascending), then the one after the last loaded key, on demand.',
          invoke: {
            id: 'loadPage',
            src: 'loadPage',
            input: ({ context }) => ({
              port: context.port as MapPort,
              query: nextPageQuery(context.paging),
            }),
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) =>
                applyPage(context.items, context.paging, event.output, (item) => item.key),
              ),
            },
            onError: {
              target: 'pageFailed',
              actions: assign({ error: ({ event }) => toSyncFailure(event.error) }),
            },
          },
        },
        idle: {
          on: { 'map.loadMore': { guard: 'hasMore', target: 'loadingPage' } },
        },
        pageFailed: {
          description: 'A page could not be fetched; map.loadMore or map.retry tries again.',
          on: {
            'map.loadMore': { target: 'loadingPage' },
            'map.retry': { target: 'loadingPage' },
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
      description: 'Opening failed; `error` says why. map.retry opens again.',
      on: {
        'map.retry': {
          target: 'checking',
          actions: assign({ error: null }),
        },
        ...rejectCommands,
      },
    },
  },
});
