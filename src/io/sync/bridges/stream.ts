import { fromCallback, type EventObject } from 'xstate';
import type { JsonObject, StreamPushEvent } from '../../../machines/syncPorts';
import { listen, type ListenerTarget } from './emitter';

/** The parts of twilio-sync's SyncStream the bridge touches. */
export interface StreamEventSource extends ListenerTarget {
  close(): void;
}

/**
 * Turns a SyncStream's events into `stream.messagePublished` / `stream.removed` and returns the
 * cleanup, which removes its listeners and closes the SDK handle.
 */
export function bridgeStreamEvents(
  stream: StreamEventSource,
  sendBack: (event: StreamPushEvent) => void,
): () => void {
  const unlisten = listen(stream, {
    messagePublished: (e: { message: { sid: string; data: object }; isLocal: boolean }) =>
      sendBack({
        type: 'stream.messagePublished',
        message: { sid: e.message.sid, data: e.message.data as JsonObject },
        isLocal: e.isLocal,
      }),
    removed: (e: { isLocal: boolean }) => sendBack({ type: 'stream.removed', isLocal: e.isLocal }),
  });
  return () => {
    unlisten();
    stream.close();
  };
}

export const streamEventsBridge = fromCallback<EventObject, { stream: StreamEventSource }>(
  ({ input, sendBack }) => bridgeStreamEvents(input.stream, sendBack),
);
