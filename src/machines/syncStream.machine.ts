/** The syncStream machine: {@link createSyncContainerMachine} keeping recent messages. */
import { syncErrors } from '../contracts/sync-errors';
import type { StreamMessage, StreamPort, StreamPushEvent } from './syncPorts';
import { checkStreamCommand, type StreamCommand } from '../contracts/sync-rules';
import { createSyncContainerMachine } from './syncContainer.factory';
import type {
  CommandEventOf,
  ContainerContext,
  ContainerEmitted,
  ContainerEvent,
  ContainerInput,
} from './syncContainer.types';

export type { StreamPushEvent } from './syncPorts';

/** How many recent messages a stream keeps for its view when the caller does not say. */
export const DEFAULT_STREAM_HISTORY = 100;

export interface SyncStreamInput extends ContainerInput {
  /** Recent messages kept in context (streams have no history on the service). */
  keep?: number;
}

interface StreamTypes {
  kind: 'stream';
  port: StreamPort;
  command: StreamCommand;
  push: StreamPushEvent;
  input: SyncStreamInput;
  /** The most recent messages, oldest first, at most `input.keep`. */
  extra: { messages: readonly StreamMessage[] };
  control: never;
  ready: 'online' | 'offline';
}

export type StreamCommandEvent = CommandEventOf<StreamTypes>;
export type SyncStreamContext = ContainerContext<StreamTypes>;
export type SyncStreamEvent = ContainerEvent<StreamTypes>;
export type SyncStreamEmitted = ContainerEmitted<StreamTypes>;

export interface StreamCommandResults {
  'stream.publish': StreamMessage;
  'stream.setTtl': undefined;
  'stream.removeStream': undefined;
}

/**
 * One message stream from opening to removal (see {@link createSyncContainerMachine}). Stream
 * messages carry no event id, so, as in the SDK, they are not deduplicated; the view keeps the last
 * `keep` of them, and each is re-emitted. A ttl set on a stream that is gone (404) removes it
 * locally and re-throws.
 */
export const syncStreamMachine = createSyncContainerMachine<StreamTypes>({
  kind: 'stream',
  commands: {
    'stream.publish': (port, c) => port.publishMessage(c.data),
    'stream.setTtl': (port, c) => port.setTtl(c.ttl),
    'stream.removeStream': (port) => port.removeStream(),
  },
  checkInput: ({ keep }) =>
    keep === undefined || (Number.isInteger(keep) && keep > 0)
      ? null
      : syncErrors.invalidArgument(`keep must be a positive integer, got ${String(keep)}`),
  checkCommand: checkStreamCommand,
  goneOnNotFound: ['stream.setTtl'],
  writes: [],
  context: () => ({ messages: [] }),
  pushed: {
    'stream.messagePublished': {
      apply: (context, event) => ({
        messages: [...context.messages, event.message].slice(
          -(context.input.keep ?? DEFAULT_STREAM_HISTORY),
        ),
      }),
      emit: true,
    },
  },
  describe: {
    checking: 'Rejects a bad history size before anything is sent.',
    ready: 'Subscribed: published messages append to the view.',
    offline: 'The connection is down: messages published meanwhile are not replayed.',
  },
});
