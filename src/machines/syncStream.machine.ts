import { assign, emit, enqueueActions, fromCallback, setup, type EventObject } from 'xstate';
import { SyncFailure, isContainerGone, syncErrors } from '../sync/errors';
import type {
  ConnectionState,
  ContainerMeta,
  OpenMode,
  StreamMessage,
  StreamPort,
  StreamPushEvent,
} from '../sync/ports';
import { checkStreamCommand, type StreamCommand } from '../sync/validation';
import { openEntityMachine, type OpenEntityOutput } from './openEntity.machine';
import {
  commandRunner,
  commandTransition,
  refuseWhileClosed,
  done,
  failed,
  notOpenYet,
  rejected,
  type CommandDoneEvent,
  type CommandFailedEvent,
} from './syncCommand';

export type { StreamPushEvent } from '../sync/ports';

/** How many recent messages a stream keeps for its view when the caller does not say. */
export const DEFAULT_STREAM_HISTORY = 100;

export interface SyncStreamInput {
  id?: string;
  mode?: OpenMode;
  ttl?: number;
  /** Recent messages kept in context (streams have no history on the service). */
  keep?: number;
}

export type StreamCommandEvent = StreamCommand & { requestId?: string };

export interface StreamCommandResults {
  'stream.publish': StreamMessage;
  'stream.setTtl': undefined;
  'stream.removeStream': undefined;
}

type CommandSettled = {
  type: 'command.settled';
  requestId: string | null;
  command: StreamCommand;
} & ({ ok: true; result: unknown } | { ok: false; error: SyncFailure });

export type SyncStreamEvent =
  | StreamPushEvent
  | StreamCommandEvent
  | CommandSettled
  | { type: 'stream.retry' }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export type SyncStreamEmitted = StreamPushEvent | CommandDoneEvent | CommandFailedEvent;

export interface SyncStreamContext {
  input: SyncStreamInput;
  port: StreamPort | null;
  source: unknown;
  meta: ContainerMeta | null;
  /** The most recent messages, oldest first, at most `input.keep`. */
  messages: readonly StreamMessage[];
  connection: ConnectionState;
  error: SyncFailure | null;
  removal: { isLocal: boolean } | null;
}

function runStreamCommand(port: StreamPort, command: StreamCommand): Promise<unknown> {
  switch (command.type) {
    case 'stream.publish':
      return port.publishMessage(command.data);
    case 'stream.setTtl':
      return port.setTtl(command.ttl);
    case 'stream.removeStream':
      return port.removeStream();
  }
}

const rejectCommands = refuseWhileClosed([
  'stream.publish',
  'stream.setTtl',
  'stream.removeStream',
]);

/**
 * One message stream from opening to removal. Stream messages carry no event id, so, as in the
 * SDK, they are not deduplicated; the view keeps the last `keep` of them. Publishing is validated
 * (data must be a plain object) and answered with `command.done` / `command.failed`. A ttl set on
 * a stream that is gone (404) removes it locally and re-throws. Removal stops the bridge, runs
 * `onRemoved` and emits `stream.removed`.
 *
 * Provided: actors `openEntity`, `events`, `connection`; action `onRemoved`.
 */
export const syncStreamMachine = setup({
  types: {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- xstate reads the type
    input: {} as SyncStreamInput,
    context: {} as SyncStreamContext,
    events: {} as SyncStreamEvent,
    emitted: {} as SyncStreamEmitted,
  },
  actors: {
    openEntity: openEntityMachine,
    connection: fromCallback<EventObject>(() => () => {}),
    events: fromCallback<EventObject, { source: unknown }>(() => () => {}),
    runCommand: commandRunner(runStreamCommand),
  },
  guards: {
    inputInvalid: ({ context }) =>
      context.input.keep !== undefined &&
      !(Number.isInteger(context.input.keep) && context.input.keep > 0),
    openedStream: (_, output: OpenEntityOutput) =>
      output.ok && output.opened.port.kind === 'stream',
    commandInvalid: ({ event }) =>
      event.type.startsWith('stream.') && checkStreamCommand(event as StreamCommand) !== null,
    containerGone: ({ event }) =>
      event.type === 'command.settled' &&
      ((!event.ok && event.command.type === 'stream.setTtl' && isContainerGone(event.error)) ||
        (event.ok && event.command.type === 'stream.removeStream')),
    offline: ({ context }) => context.connection !== 'connected',
    online: ({ context }) => context.connection === 'connected',
  },
  actions: {
    onRemoved: () => {},
    rejectInvalidCommand: emit(({ event }) => {
      const command = event as StreamCommandEvent;
      return rejected(
        command,
        checkStreamCommand(command) ?? syncErrors.invalidArgument('invalid command'),
      );
    }),
    rejectNotReady: emit(({ context, event }) =>
      rejected(event as StreamCommandEvent, context.error ?? notOpenYet('stream')),
    ),
    startCommand: enqueueActions(({ context, event, enqueue }) => {
      const command = event as StreamCommandEvent;
      if (!context.port) return;
      const { requestId, ...rest } = command;
      enqueue.spawnChild('runCommand', {
        input: { port: context.port, command: rest, requestId: requestId ?? null },
      });
    }),
    answerCommand: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'command.settled') return;
      if (event.ok) {
        enqueue.emit(done(event, event.result));
      } else {
        enqueue.emit(failed(event));
      }
    }),
    appendMessage: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'stream.messagePublished') return;
      const keep = context.input.keep ?? DEFAULT_STREAM_HISTORY;
      enqueue.assign({ messages: [...context.messages, event.message].slice(-keep) });
      enqueue.emit(event);
    }),
    markRemoved: assign({
      removal: ({ event }) => ({
        isLocal: event.type === 'stream.removed' ? event.isLocal : true,
      }),
    }),
    emitRemoved: emit(({ context }) => ({
      type: 'stream.removed' as const,
      isLocal: context.removal?.isLocal ?? true,
    })),
  },
}).createMachine({
  id: 'syncStream',
  context: ({ input }) => ({
    input,
    port: null,
    source: null,
    meta: null,
    messages: [],
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
      description: 'Rejects a bad history size before anything is sent.',
      always: [
        {
          guard: 'inputInvalid',
          target: 'failed',
          actions: assign({
            error: ({ context }) =>
              syncErrors.invalidArgument(
                `keep must be a positive integer, got ${String(context.input.keep)}`,
              ),
          }),
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
              kind: 'stream' as const,
              mode: mode ?? 'open_or_create',
              ...(id === undefined ? {} : { id }),
              ...(ttl === undefined ? {} : { ttl }),
            },
          };
        },
        onDone: [
          {
            guard: { type: 'openedStream', params: ({ event }) => event.output },
            target: 'ready',
            actions: assign(({ event }) => {
              const opened = event.output.ok ? event.output.opened : null;
              const port = opened?.port.kind === 'stream' ? opened.port : null;
              return { port, source: opened?.source ?? null, meta: port?.describe() ?? null };
            }),
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) =>
                event.output.ok
                  ? syncErrors.invalidArgument('The opened entity is not a stream')
                  : event.output.error,
            }),
          },
        ],
      },
      on: rejectCommands,
    },
    ready: {
      description: 'Subscribed: published messages append to the view.',
      invoke: { id: 'events', src: 'events', input: ({ context }) => ({ source: context.source }) },
      on: {
        'stream.messagePublished': { actions: 'appendMessage' },
        'stream.removed': { target: 'removed', actions: 'markRemoved' },
        'command.settled': [
          { guard: 'containerGone', target: 'removed', actions: ['answerCommand', 'markRemoved'] },
          { actions: 'answerCommand' },
        ],
        'stream.publish': commandTransition,
        'stream.setTtl': commandTransition,
        'stream.removeStream': { actions: 'startCommand' },
      },
      initial: 'online',
      states: {
        online: { always: { guard: 'offline', target: 'offline' } },
        offline: {
          tags: ['offline'],
          description: 'The connection is down: messages published meanwhile are not replayed.',
          always: { guard: 'online', target: 'online' },
        },
      },
    },
    removed: {
      type: 'final',
      description: 'Gone (locally or remotely): unsubscribed, handler run, removal emitted.',
      entry: ['onRemoved', 'emitRemoved'],
    },
    failed: {
      description: 'Opening failed; `error` says why. stream.retry opens again.',
      on: {
        'stream.retry': { target: 'checking', actions: assign({ error: null }) },
        ...rejectCommands,
      },
    },
  },
});
