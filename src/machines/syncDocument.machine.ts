/** The syncDocument machine: {@link createSyncContainerMachine} holding one versioned object. */
import type { DocumentPort, DocumentPushEvent, DocumentState, JsonObject } from './syncPorts';
import {
  checkData,
  checkDocumentCommand,
  metadataOf,
  type DocumentCommand,
} from '../contracts/sync-rules';
import { advanceMeta } from './syncContainer';
import { createSyncContainerMachine } from './syncContainer.factory';
import type {
  CommandEventOf,
  ContainerContext,
  ContainerEmitted,
  ContainerEvent,
  ContainerInput,
} from './syncContainer.types';

export type { DocumentPushEvent } from './syncPorts';

export interface SyncDocumentInput extends ContainerInput {
  /** Data of the document if this open creates it. */
  data?: JsonObject;
}

interface DocumentTypes {
  kind: 'document';
  port: DocumentPort;
  command: DocumentCommand;
  push: DocumentPushEvent;
  input: SyncDocumentInput;
  extra: { data: JsonObject | null };
  control: never;
  ready: 'online' | 'offline';
}

export type DocumentCommandEvent = CommandEventOf<DocumentTypes>;
export type SyncDocumentContext = ContainerContext<DocumentTypes>;
export type SyncDocumentEvent = ContainerEvent<DocumentTypes>;
export type SyncDocumentEmitted = ContainerEmitted<DocumentTypes>;

export interface DocumentCommandResults {
  'document.set': DocumentState;
  'document.update': DocumentState;
  'document.mutate': DocumentState;
  'document.setTtl': undefined;
  'document.removeDocument': undefined;
}

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

/**
 * One synced document from opening to removal (see {@link createSyncContainerMachine}).
 * `document.updated` events apply only when their event id is newer than the document's (the
 * revision follows it; date_updated only moves later), and are re-emitted. Every write that finds
 * the document gone (404) removes it locally and re-throws.
 */
export const syncDocumentMachine = createSyncContainerMachine<DocumentTypes>({
  kind: 'document',
  commands: {
    'document.set': (port, c) => port.set(c.data, metadataOf(c)),
    'document.update': (port, c) => port.update(c.data, metadataOf(c)),
    'document.mutate': (port, c) => port.mutate(c.mutator, metadataOf(c)),
    'document.setTtl': (port, c) => port.setTtl(c.ttl),
    'document.removeDocument': (port) => port.removeDocument(),
  },
  checkInput: (input) => (input.data === undefined ? null : checkData(input.data)),
  checkCommand: checkDocumentCommand,
  goneOnNotFound: ['document.set', 'document.update', 'document.mutate', 'document.setTtl'],
  writes: ['document.set', 'document.update', 'document.mutate'],
  applyWrite: applyState,
  context: () => ({ data: null }),
  opened: (port) => ({ data: port.data() }),
  request: ({ data }) => (data === undefined ? {} : { data }),
  pushed: {
    'document.updated': {
      guard: {
        name: 'isNewVersion',
        test: (context, event) =>
          context.meta !== null && event.state.lastEventId > context.meta.lastEventId,
      },
      apply: (context, event) => applyState(context, event.state),
      emit: true,
    },
  },
  describe: {
    checking: 'Rejects initial data that is not a plain object before anything is sent.',
    ready: 'Subscribed: updates and commands apply to the data.',
    offline: 'The connection is down: the data may be stale until it returns.',
  },
});
