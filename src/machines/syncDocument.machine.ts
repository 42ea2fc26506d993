import { assign, emit, enqueueActions, fromCallback, setup, type EventObject } from 'xstate';
import { SyncFailure, isContainerGone, syncErrors } from '../sync/errors';
import type {
  ConnectionState,
  ContainerMeta,
  DocumentPort,
  DocumentPushEvent,
  DocumentState,
  JsonObject,
  OpenMode,
} from '../sync/ports';
import {
  checkData,
  checkDocumentCommand,
  metadataOf,
  type DocumentCommand,
} from '../sync/validation';
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
import { advanceMeta } from './syncContainer';

export type { DocumentPushEvent } from '../sync/ports';

export interface SyncDocumentInput {
  id?: string;
  mode?: OpenMode;
  ttl?: number;
  /** Data of the document if this open creates it. */
  data?: JsonObject;
}

export type DocumentCommandEvent = DocumentCommand & { requestId?: string };

export interface DocumentCommandResults {
  'document.set': DocumentState;
  'document.update': DocumentState;
  'document.mutate': DocumentState;
  'document.setTtl': undefined;
  'document.removeDocument': undefined;
}

type CommandSettled = {
  type: 'command.settled';
  requestId: string | null;
  command: DocumentCommand;
} & ({ ok: true; result: unknown } | { ok: false; error: SyncFailure });

export type SyncDocumentEvent =
  | DocumentPushEvent
  | DocumentCommandEvent
  | CommandSettled
  | { type: 'document.retry' }
  | { type: 'sync.connectionChanged'; state: ConnectionState };

export type SyncDocumentEmitted = DocumentPushEvent | CommandDoneEvent | CommandFailedEvent;

export interface SyncDocumentContext {
  input: SyncDocumentInput;
  port: DocumentPort | null;
  source: unknown;
  meta: ContainerMeta | null;
  data: JsonObject | null;
  connection: ConnectionState;
  error: SyncFailure | null;
  removal: { isLocal: boolean } | null;
}

function runDocumentCommand(port: DocumentPort, command: DocumentCommand): Promise<unknown> {
  switch (command.type) {
    case 'document.set':
      return port.set(command.data, metadataOf(command));
    case 'document.update':
      return port.update(command.data, metadataOf(command));
    case 'document.mutate':
      return port.mutate(command.mutator, metadataOf(command));
    case 'document.setTtl':
      return port.setTtl(command.ttl);
    case 'document.removeDocument':
      return port.removeDocument();
  }
}

/** Every write to a document that is gone answers 404: the document was removed (seed 8). */
const goneOnNotFound = (command: DocumentCommand) => command.type !== 'document.removeDocument';

/** Applies a document version if it is newer than the one we hold (seed 4 ordering). */
function applyState(context: SyncDocumentContext, state: DocumentState) {
  if (!context.meta || state.lastEventId <= context.meta.lastEventId) return {};
  return {
    data: state.data,
    meta: advanceMeta(context.meta, {
      lastEventId: state.lastEventId,
      revision: state.revision,
      dateUpdated: state.dateUpdated,
    }),
  };
}

const rejectCommands = refuseWhileClosed([
  'document.set',
  'document.update',
  'document.mutate',
  'document.setTtl',
  'document.removeDocument',
]);

/**
 * One synced document from opening to removal. `document.updated` events apply only when their
 * event id is newer than the document's (the revision follows it; date_updated only moves later).
 * Commands are validated before sending and answered with `command.done` / `command.failed`. A
 * write that finds the document gone (404) removes it locally and re-throws. Removal stops the
 * bridge (unsubscribe + close), runs `onRemoved` and emits `document.removed`.
 *
 * Provided: actors `openEntity`, `events`, `connection`; action `onRemoved`.
 */
export const syncDocumentMachine = setup({
  types: {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- xstate reads the type
    input: {} as SyncDocumentInput,
    context: {} as SyncDocumentContext,
    events: {} as SyncDocumentEvent,
    emitted: {} as SyncDocumentEmitted,
  },
  actors: {
    openEntity: openEntityMachine,
    connection: fromCallback<EventObject>(() => () => {}),
    events: fromCallback<EventObject, { source: unknown }>(() => () => {}),
    runCommand: commandRunner(runDocumentCommand),
  },
  guards: {
    inputInvalid: ({ context }) =>
      context.input.data !== undefined && checkData(context.input.data) !== null,
    openedDocument: (_, output: OpenEntityOutput) =>
      output.ok && output.opened.port.kind === 'document',
    commandInvalid: ({ event }) =>
      event.type.startsWith('document.') && checkDocumentCommand(event as DocumentCommand) !== null,
    isNewVersion: ({ context, event }) =>
      event.type === 'document.updated' &&
      context.meta !== null &&
      event.state.lastEventId > context.meta.lastEventId,
    containerGone: ({ event }) =>
      event.type === 'command.settled' &&
      ((!event.ok && goneOnNotFound(event.command) && isContainerGone(event.error)) ||
        (event.ok && event.command.type === 'document.removeDocument')),
    offline: ({ context }) => context.connection !== 'connected',
    online: ({ context }) => context.connection === 'connected',
  },
  actions: {
    onRemoved: () => {},
    rejectInvalidCommand: emit(({ event }) => {
      const command = event as DocumentCommandEvent;
      return rejected(
        command,
        checkDocumentCommand(command) ?? syncErrors.invalidArgument('invalid command'),
      );
    }),
    rejectNotReady: emit(({ context, event }) =>
      rejected(event as DocumentCommandEvent, context.error ?? notOpenYet('document')),
    ),
    startCommand: enqueueActions(({ context, event, enqueue }) => {
      const command = event as DocumentCommandEvent;
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
      if (event.result && typeof event.result === 'object' && 'lastEventId' in event.result) {
        enqueue.assign(applyState(context, event.result as DocumentState));
      }
      enqueue.emit(done(event, event.result));
    }),
    applyUpdate: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'document.updated') return;
      enqueue.assign(applyState(context, event.state));
      enqueue.emit(event);
    }),
    markRemoved: assign({
      removal: ({ event }) => ({
        isLocal: event.type === 'document.removed' ? event.isLocal : true,
      }),
    }),
    answerRemovingCommand: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'command.settled') return;
      if (event.ok) {
        enqueue.emit(done(event, undefined));
      } else {
        enqueue.emit(failed(event));
      }
    }),
    emitRemoved: emit(({ context }) => ({
      type: 'document.removed' as const,
      isLocal: context.removal?.isLocal ?? true,
    })),
  },
}).createMachine({
  id: 'syncDocument',
  context: ({ input }) => ({
    input,
    port: null,
    source: null,
    meta: null,
    data: null,
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
      description: 'Rejects initial data that is not a plain object before anything is sent.',
      always: [
        {
          guard: 'inputInvalid',
          target: 'failed',
          actions: assign({ error: ({ context }) => checkData(context.input.data) }),
        },
        { target: 'opening' },
      ],
    },
    opening: {
      invoke: {
        id: 'openEntity',
        src: 'openEntity',
        input: ({ context }) => {
          const { id, mode, ttl, data } = context.input;
          return {
            request: {
              kind: 'document' as const,
              mode: mode ?? 'open_or_create',
              ...(id === undefined ? {} : { id }),
              ...(ttl === undefined ? {} : { ttl }),
              ...(data === undefined ? {} : { data }),
            },
          };
        },
        onDone: [
          {
            guard: { type: 'openedDocument', params: ({ event }) => event.output },
            target: 'ready',
            actions: assign(({ event }) => {
              const opened = event.output.ok ? event.output.opened : null;
              const port = opened?.port.kind === 'document' ? opened.port : null;
              return {
                port,
                source: opened?.source ?? null,
                meta: port?.describe() ?? null,
                data: port?.data() ?? null,
              };
            }),
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) =>
                event.output.ok
                  ? syncErrors.invalidArgument('The opened entity is not a document')
                  : event.output.error,
            }),
          },
        ],
      },
      on: rejectCommands,
    },
    ready: {
      description: 'Subscribed: updates and commands apply to the data.',
      invoke: { id: 'events', src: 'events', input: ({ context }) => ({ source: context.source }) },
      on: {
        'document.updated': { guard: 'isNewVersion', actions: 'applyUpdate' },
        'document.removed': { target: 'removed', actions: 'markRemoved' },
        'command.settled': [
          {
            guard: 'containerGone',
            target: 'removed',
            actions: ['answerRemovingCommand', 'markRemoved'],
          },
          { actions: 'settleCommand' },
        ],
        'document.set': commandTransition,
        'document.update': commandTransition,
        'document.mutate': commandTransition,
        'document.setTtl': commandTransition,
        'document.removeDocument': { actions: 'startCommand' },
      },
      initial: 'online',
      states: {
        online: { always: { guard: 'offline', target: 'offline' } },
        offline: {
          tags: ['offline'],
          description: 'The connection is down: the data may be stale until it returns.',
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
      description: 'Opening failed; `error` says why. document.retry opens again.',
      on: {
        'document.retry': { target: 'checking', actions: assign({ error: null }) },
        ...rejectCommands,
      },
    },
  },
});
