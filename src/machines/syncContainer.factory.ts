/**
 * The one definition of a synced container machine (list, map, document, stream). Each kind's
 * `<kind>.machine.ts` calls {@link createSyncContainerMachine} with a {@link ContainerSpec}: how
 * items are addressed, which pushed events and commands exist, what the input must satisfy. Opening,
 * subscription, removal, commands and their refusals are written here once.
 */
import {
  assign,
  emit,
  enqueueActions,
  fromCallback,
  fromPromise,
  setup,
  type EventObject,
  type StateMachine,
} from 'xstate';
import { DEFAULT_ORDER, DEFAULT_PAGE_SIZE } from '../contracts/sync-constants';
import { isContainerGone, syncErrors, toSyncFailure } from '../contracts/sync-errors';
import type { ConnectionState, ItemPage, ItemQuery } from './syncPorts';
import { openEntityMachine, type OpenEntityOutput } from './openEntity.machine';
import {
  commandRunner,
  commandTransition,
  done,
  failed,
  notOpenYet,
  refuseWhileClosed,
  rejected,
  removeCommandOf,
} from './syncCommand';
import type {
  CommandSettled,
  ContainerContext,
  ContainerEmitted,
  ContainerEvent,
  ContainerInput,
  ContainerSpec,
  KindTypes,
  PagedInput,
} from './syncContainer.types';
import { ItemStore } from './syncItemStore';
import { applyPage, nextPageQuery } from './syncPaging';
import { pushedTransitions, type Args, type Item, type PagedContext } from './syncContainer.push';

const isSettled = (event: EventObject): event is CommandSettled<{ type: string }> =>
  event.type === 'command.settled';

type Context = ContainerContext<KindTypes>;
type Command = { type: string; requestId?: string };
type Pageable = { getItems(query: ItemQuery<unknown>): Promise<ItemPage<unknown>> };
/** What the `loadPage` actor gets (tests provide their own). */
export type LoadPageInput = { port: Pageable; query: ItemQuery<unknown> };

/** The machine with every kind's types erased; {@link ContainerMachine} puts them back. */
function build(spec: ContainerSpec<KindTypes>) {
  const { kind, paged } = spec;
  const removeCommand = removeCommandOf(kind);
  const Kind = `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
  const opened = `opened${Kind}`;
  const { keyOf, applyWrite, guards: pushGuards, on } = pushedTransitions(spec);
  const guards: Record<string, (args: Args, params: unknown) => boolean> = {
    ...pushGuards,
    [opened]: (_, output) => {
      const result = output as OpenEntityOutput;
      return result.ok && result.opened.port.kind === kind;
    },
  };
  const commands = spec.commands as Record<
    string,
    (port: unknown, command: object) => Promise<unknown>
  >;
  const refuse = refuseWhileClosed(Object.keys(commands));
  const commandsWhenOpen = Object.fromEntries(
    Object.keys(commands).map((type) => [
      type,
      type === removeCommand ? { actions: 'startCommand' as const } : commandTransition,
    ]),
  );
  return setup({
    types: {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- xstate reads the type
      input: {} as ContainerInput,
      context: {} as Context,
      events: {} as EventObject,
      emitted: {} as EventObject,
    },
    actors: {
      openEntity: openEntityMachine,
      /** Reports the client's connection state as `sync.connectionChanged` events. */
      connection: fromCallback<EventObject>(() => () => {}),
      events: fromCallback<EventObject, { source: unknown }>(() => () => {}),
      loadPage: fromPromise<ItemPage<unknown>, LoadPageInput>(({ input }) =>
        input.port.getItems(input.query),
      ),
      runCommand: commandRunner((port, command: Command) => commands[command.type]!(port, command)),
    },
    guards: {
      ...guards,
      inputInvalid: ({ context }) => spec.checkInput(context.input) !== null,
      commandInvalid: ({ event }) =>
        event.type.startsWith(`${kind}.`) && spec.checkCommand(event) !== null,
      hasMore: ({ context }) => (context as Context & PagedContext).paging.hasMore,
      containerGone: ({ event }) =>
        isSettled(event) &&
        ((!event.ok &&
          spec.goneOnNotFound.includes(event.command.type) &&
          isContainerGone(event.error)) ||
          (event.ok && event.command.type === removeCommand)),
      offline: ({ context }) => context.connection !== 'connected',
      online: ({ context }) => context.connection === 'connected',
    },
    actions: {
      onRemoved: () => {},
      rejectInvalidCommand: emit(({ event }) =>
        rejected(event, spec.checkCommand(event) ?? syncErrors.invalidArgument('invalid command')),
      ),
      rejectNotReady: emit(({ context, event }) =>
        rejected(event, context.error ?? notOpenYet(kind)),
      ),
      startCommand: enqueueActions(({ context, event, enqueue }) => {
        if (!context.port) return;
        const { requestId, ...command } = event as Command;
        enqueue.spawnChild('runCommand', {
          input: { port: context.port, command, requestId: requestId ?? null },
        });
      }),
      settleCommand: enqueueActions(({ context, event, enqueue }) => {
        if (!isSettled(event)) return;
        if (!event.ok) {
          enqueue.emit(failed(event));
          return;
        }
        if (spec.writes.includes(event.command.type)) {
          enqueue.assign(applyWrite(context, event.result as never));
        }
        enqueue.emit(done(event, event.result));
      }),
      // The command that found the container gone still owes its caller an answer (seed 8:
      // re-thrown); a remove command is answered once it is done.
      answerRemovingCommand: enqueueActions(({ event, enqueue }) => {
        if (isSettled(event)) enqueue.emit(event.ok ? done(event, undefined) : failed(event));
      }),
      markRemoved: assign({
        removal: ({ event }) => ({
          isLocal: event.type === `${kind}.removed` ? (event as unknown as Removed).isLocal : true,
        }),
      }),
      emitRemoved: emit(({ context }) => ({
        type: `${kind}.removed`,
        isLocal: context.removal?.isLocal ?? true,
      })),
    },
  }).createMachine({
    id: `sync${Kind}`,
    context: ({ input }) => ({
      input,
      port: null,
      source: null,
      meta: null,
      ...(paged && {
        items: ItemStore.empty(),
        paging: {
          pageSize: (input as PagedInput).pageSize ?? DEFAULT_PAGE_SIZE,
          order: (input as PagedInput).order ?? DEFAULT_ORDER,
          hasMore: false,
          cursor: null,
        },
      }),
      ...spec.context?.(input),
      connection: 'connected',
      error: null,
      removal: null,
    }),
    invoke: { id: 'connection', src: 'connection' },
    on: {
      'sync.connectionChanged': {
        actions: assign({ connection: ({ event }) => (event as unknown as Connection).state }),
      },
    },
    initial: 'checking',
    states: {
      checking: {
        description: spec.describe.checking,
        always: [
          {
            guard: 'inputInvalid',
            target: 'failed',
            actions: assign({ error: ({ context }) => spec.checkInput(context.input) }),
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
                kind,
                mode: mode ?? 'open_or_create',
                ...(id === undefined ? {} : { id }),
                ...(ttl === undefined ? {} : { ttl }),
                ...spec.request?.(context.input),
              },
            };
          },
          onDone: [
            {
              // Named for the kind (`openedList`), as the chart shows it.
              guard: {
                type: opened as never,
                params: ({ event }: { event: { output: unknown } }) => event.output,
              },
              target: 'ready',
              actions: assign(({ event }) => {
                const found = event.output.ok ? event.output.opened : null;
                const port = found?.port.kind === kind ? found.port : null;
                return {
                  port,
                  source: found?.source ?? null,
                  meta: port?.describe() ?? null,
                  ...(port && spec.opened?.(port)),
                };
              }),
            },
            {
              target: 'failed',
              actions: assign({
                error: ({ event }) =>
                  event.output.ok
                    ? syncErrors.invalidArgument(`The opened entity is not a ${kind}`)
                    : event.output.error,
              }),
            },
          ],
        },
        on: refuse,
      },
      ready: {
        description: spec.describe.ready,
        invoke: {
          id: 'events',
          src: 'events',
          input: ({ context }) => ({ source: context.source }),
        },
        on: {
          ...on,
          [`${kind}.removed`]: { target: 'removed', actions: 'markRemoved' },
          'command.settled': [
            {
              guard: 'containerGone',
              target: 'removed',
              actions: ['answerRemovingCommand', 'markRemoved'],
            },
            { actions: 'settleCommand' },
          ],
          ...commandsWhenOpen,
        },
        ...(paged
          ? {
              initial: 'loadingPage',
              states: {
                loadingPage: {
                  description: `Fetching a page: the first on entry (default 50, ascending), then the one after the last loaded ${paged?.noun}, on demand.`,
                  invoke: {
                    id: 'loadPage',
                    src: 'loadPage',
                    input: ({ context }) => ({
                      port: context.port as Pageable,
                      query: nextPageQuery((context as Context & PagedContext).paging),
                    }),
                    onDone: {
                      target: 'idle',
                      actions: assign(({ context, event }) => {
                        const { items, paging } = context as Context & PagedContext;
                        const page = event.output as ItemPage<Item>;
                        return applyPage(items, paging, page, keyOf);
                      }) as never,
                    },
                    onError: {
                      target: 'pageFailed',
                      actions: assign({
                        error: ({ event }) => toSyncFailure((event as { error?: unknown }).error),
                      }),
                    },
                  },
                },
                idle: { on: { [`${kind}.loadMore`]: { guard: 'hasMore', target: 'loadingPage' } } },
                pageFailed: {
                  description: `A page could not be fetched; ${kind}.loadMore or ${kind}.retry tries again.`,
                  on: {
                    [`${kind}.loadMore`]: { target: 'loadingPage' },
                    [`${kind}.retry`]: { target: 'loadingPage' },
                  },
                },
              },
            }
          : {
              initial: 'online',
              states: {
                online: { always: { guard: 'offline', target: 'offline' } },
                offline: {
                  tags: ['offline'],
                  description: spec.describe.offline ?? '',
                  always: { guard: 'online', target: 'online' },
                },
              },
            }),
      },
      removed: {
        type: 'final',
        description: 'Gone (locally or remotely): unsubscribed, handler run, removal emitted.',
        entry: ['onRemoved', 'emitRemoved'],
      },
      failed: {
        description: `Opening failed; \`error\` says why. ${kind}.retry opens again.`,
        on: {
          [`${kind}.retry`]: { target: 'checking', actions: assign({ error: null }) },
          ...refuse,
        },
      },
    },
  });
}

type Removed = { isLocal: boolean };
type Connection = { state: ConnectionState };
type Erased = ReturnType<typeof build>;

/** The machine of kind T: the erased machine with T's context, events, input and states. */
export type ContainerMachine<T extends KindTypes> =
  Erased extends StateMachine<
    infer _Context,
    infer _Event,
    infer Children,
    infer Actor,
    infer Action,
    infer Guard,
    infer Delay,
    infer _Value,
    infer Tag,
    infer _Input,
    infer Output,
    infer _Emitted,
    infer Meta,
    infer Schema
  >
    ? StateMachine<
        ContainerContext<T>,
        ContainerEvent<T>,
        Children,
        Actor,
        Action,
        Guard,
        Delay,
        'checking' | 'opening' | 'ready' | 'removed' | 'failed' | { ready: T['ready'] },
        Tag,
        T['input'],
        Output,
        ContainerEmitted<T>,
        Meta,
        Schema
      >
    : never;

/**
 * One synced container from opening to removal. Opening runs {@link openEntityMachine}; once
 * `ready` the `events` bridge delivers pushed events, applied under seed 4's rules (the kind's
 * guards: an item or version event whose id is not newer than the one known is ignored; the last
 * event id and revision only move forward; date_updated only moves later). Applying an item event
 * is a single targetless transition on `ready` (one guard, one assign): item events are the hot
 * path, so they are not re-emitted, and connection loss is mirrored in `context.connection` (and,
 * for the kinds without paging, in the `offline` tag) rather than in a parallel region, which would
 * double their cost (see docs/performance.md). Commands are validated (seed 5) before anything is
 * sent; each answers with an emitted `command.done` or `command.failed` (see `ask`). A command that
 * finds the container gone (seed 8) removes it locally and re-throws. Removal, local or remote,
 * stops the bridge (which unsubscribes and closes the SDK object), runs the provided `onRemoved`
 * action and emits `<kind>.removed`.
 *
 * Provided: actors `openEntity` (with its `open`/`create`), `events`, `connection`; action
 * `onRemoved`.
 */
export function createSyncContainerMachine<T extends KindTypes>(
  spec: ContainerSpec<T>,
): ContainerMachine<T> {
  return build(spec as unknown as ContainerSpec<KindTypes>) as unknown as ContainerMachine<T>;
}
