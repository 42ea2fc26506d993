import { fromCallback, type EventObject } from 'xstate';
import type { DocumentPushEvent, JsonObject } from '../../../machines/syncPorts';
import { toMillis } from './convert';
import { listen, type ListenerTarget } from './emitter';

/** The parts of twilio-sync's SyncDocument the bridge touches. */
export interface DocumentEventSource extends ListenerTarget {
  readonly revision: string;
  readonly lastEventId: number;
  readonly dateUpdated: Date | null | undefined;
  close(): void;
}

/**
 * Turns a SyncDocument's events into `document.updated` / `document.removed` and returns the
 * cleanup, which removes its listeners and closes the SDK handle. The SDK's `updated` event has no
 * version, so the bridge reads the document's revision and event id as the SDK just set them.
 */
export function bridgeDocumentEvents(
  doc: DocumentEventSource,
  sendBack: (event: DocumentPushEvent) => void,
): () => void {
  const unlisten = listen(doc, {
    updated: (e: { data: object; previousData?: object; isLocal: boolean }) =>
      sendBack({
        type: 'document.updated',
        state: {
          data: e.data as JsonObject,
          revision: doc.revision,
          lastEventId: doc.lastEventId,
          dateUpdated: toMillis(doc.dateUpdated),
        },
        isLocal: e.isLocal,
        previousData: (e.previousData as JsonObject | undefined) ?? null,
      }),
    removed: (e: { isLocal: boolean }) =>
      sendBack({ type: 'document.removed', isLocal: e.isLocal }),
  });
  return () => {
    unlisten();
    doc.close();
  };
}

export const documentEventsBridge = fromCallback<EventObject, { document: DocumentEventSource }>(
  ({ input, sendBack }) => bridgeDocumentEvents(input.document, sendBack),
);
