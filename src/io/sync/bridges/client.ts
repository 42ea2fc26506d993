import { fromCallback, type EventObject } from 'xstate';
import type { ClientPushEvent, ConnectionState } from '../../../machines/syncPorts';
import { listen, type ListenerTarget } from './emitter';

/** The parts of twilio-sync's SyncClient the bridges touch; tests pass an EventEmitter fake. */
export interface ClientEventSource extends ListenerTarget {
  readonly connectionState: ConnectionState;
}

type ConnectionChanged = { type: 'sync.connectionChanged'; state: ConnectionState };

/**
 * Reports the client's connection state now and on every change. Used by each container machine
 * so its view can say "offline". The cleanup removes the one listener it added.
 */
export function bridgeConnection(
  client: ClientEventSource,
  sendBack: (event: ConnectionChanged) => void,
): () => void {
  sendBack({ type: 'sync.connectionChanged', state: client.connectionState });
  return listen(client, {
    connectionStateChanged: (state: ConnectionState) =>
      sendBack({ type: 'sync.connectionChanged', state }),
  });
}

/**
 * Turns the client's events into syncClient machine events: connection state (now and on change),
 * tokenAboutToExpire, tokenExpired and connectionError. The cleanup removes every listener added.
 */
export function bridgeClientEvents(
  client: ClientEventSource,
  sendBack: (event: ClientPushEvent) => void,
): () => void {
  const stopConnection = bridgeConnection(client, sendBack);
  const stopOthers = listen(client, {
    tokenAboutToExpire: () => sendBack({ type: 'client.tokenAboutToExpire' }),
    tokenExpired: () => sendBack({ type: 'client.tokenExpired' }),
    connectionError: (e: { terminal: boolean; message: string }) =>
      sendBack({ type: 'client.connectionError', terminal: e.terminal, message: e.message }),
  });
  return () => {
    stopConnection();
    stopOthers();
  };
}

/** {@link bridgeConnection} as an actor: input is the SDK SyncClient. */
export const connectionBridge = fromCallback<EventObject, { client: ClientEventSource }>(
  ({ input, sendBack }) => bridgeConnection(input.client, sendBack),
);

/** {@link bridgeClientEvents} as an actor: input is the SDK SyncClient. */
export const clientEventsBridge = fromCallback<EventObject, { client: ClientEventSource }>(
  ({ input, sendBack }) => bridgeClientEvents(input.client, sendBack),
);
