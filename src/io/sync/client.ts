/**
 * Composition of the sync layer: creates the SDK client (only here), and provides the container
 * machines with actors that open entities, bridge SDK events and report the connection state.
 * The app creates one runtime per signed-in user and stops it on sign-out.
 */
import { SyncClient } from 'twilio-sync';
import { createActor, fromCallback, fromPromise, type Actor, type EventObject } from 'xstate';
import { openEntityMachine } from '../../machines/openEntity.machine';
import { syncClientMachine } from '../../machines/syncClient.machine';
import { syncDocumentMachine } from '../../machines/syncDocument.machine';
import { syncListMachine } from '../../machines/syncList.machine';
import { syncMapMachine } from '../../machines/syncMap.machine';
import { syncStreamMachine } from '../../machines/syncStream.machine';
import { documentPort, listPort, mapPort, streamPort } from './adapters';
import { bridgeClientEvents, bridgeConnection, type ClientEventSource } from './bridges/client';
import { bridgeDocumentEvents, type DocumentEventSource } from './bridges/document';
import type { ListenerTarget } from './bridges/emitter';
import { bridgeListEvents, type ListEventSource } from './bridges/list';
import { bridgeMapEvents, type MapEventSource } from './bridges/map';
import { bridgeStreamEvents, type StreamEventSource } from './bridges/stream';
import { toSyncFailure } from '../../contracts/sync-errors';
import type {
  Opened,
  OpenMode,
  OpenRequest,
  SessionCommand,
  SyncCredentials,
} from '../../machines/syncPorts';

/** The SyncClient surface this layer uses (the real client, or a fake in tests). */
export type SyncClientLike = ClientEventSource &
  Pick<SyncClient, 'list' | 'map' | 'document' | 'stream' | 'updateToken' | 'shutdown'>;

export type CreateClient = (token: string, options: Record<string, unknown>) => SyncClientLike;

const createSdkClient: CreateClient = (token, options) => new SyncClient(token, options);

/** Opens or creates an entity with one explicit SDK mode (openEntity sequences the modes). */
export async function openWithSdk(
  client: SyncClientLike,
  request: OpenRequest,
  mode: Extract<OpenMode, 'open_existing' | 'create_new'>,
): Promise<Opened> {
  const options = {
    mode,
    ...(request.id === undefined ? {} : { id: request.id }),
    ...(request.ttl === undefined ? {} : { ttl: request.ttl }),
  };
  switch (request.kind) {
    case 'list': {
      const list = await client.list(options);
      return { port: listPort(list), source: list };
    }
    case 'map': {
      const map = await client.map(options);
      return { port: mapPort(map), source: map };
    }
    case 'document': {
      const doc = await client.document({
        ...options,
        ...(request.data === undefined ? {} : { data: request.data }),
      });
      return { port: documentPort(doc), source: doc };
    }
    case 'stream': {
      const stream = await client.stream(options);
      return { port: streamPort(stream), source: stream };
    }
  }
}

function asSource<T extends ListenerTarget>(source: unknown): T {
  if (
    typeof source !== 'object' ||
    source === null ||
    typeof (source as ListenerTarget).on !== 'function' ||
    typeof (source as ListenerTarget).removeListener !== 'function'
  ) {
    throw new Error('The opened entity cannot deliver events');
  }
  return source as T;
}

/** Provides the four container machines for one client (available once `getClient` resolves). */
export function provideContainerMachines(getClient: () => Promise<SyncClientLike>) {
  const openEntity = openEntityMachine.provide({
    actors: {
      open: fromPromise<Opened, OpenRequest>(async ({ input }) =>
        openWithSdk(await getClient(), input, 'open_existing'),
      ),
      create: fromPromise<Opened, OpenRequest>(async ({ input }) =>
        openWithSdk(await getClient(), input, 'create_new'),
      ),
    },
  });
  const connection = fromCallback<EventObject>(({ sendBack }) => {
    let stop: (() => void) | null = null;
    let stopped = false;
    getClient().then(
      (client) => {
        if (!stopped) stop = bridgeConnection(client, sendBack);
      },
      () => sendBack({ type: 'sync.connectionChanged', state: 'disconnected' }),
    );
    return () => {
      stopped = true;
      stop?.();
    };
  });
  return {
    list: syncListMachine.provide({
      actors: {
        openEntity,
        connection,
        events: fromCallback(({ input, sendBack }) =>
          bridgeListEvents(asSource<ListEventSource>(input.source), sendBack),
        ),
      },
    }),
    map: syncMapMachine.provide({
      actors: {
        openEntity,
        connection,
        events: fromCallback(({ input, sendBack }) =>
          bridgeMapEvents(asSource<MapEventSource>(input.source), sendBack),
        ),
      },
    }),
    document: syncDocumentMachine.provide({
      actors: {
        openEntity,
        connection,
        events: fromCallback(({ input, sendBack }) =>
          bridgeDocumentEvents(asSource<DocumentEventSource>(input.source), sendBack),
        ),
      },
    }),
    stream: syncStreamMachine.provide({
      actors: {
        openEntity,
        connection,
        events: fromCallback(({ input, sendBack }) =>
          bridgeStreamEvents(asSource<StreamEventSource>(input.source), sendBack),
        ),
      },
    }),
  };
}

/**
 * The `session` actor of syncClientMachine: creates the SDK client with the credentials, bridges
 * its events, applies renewed tokens, and on stop removes its listeners and shuts the client down.
 */
export function sessionActor(
  createClient: CreateClient,
  onClient: (client: SyncClientLike) => void,
) {
  return fromCallback<SessionCommand, { credentials: SyncCredentials }>(
    ({ input, sendBack, receive }) => {
      const client = createClient(input.credentials.token, input.credentials.clientOptions ?? {});
      onClient(client);
      const unlisten = bridgeClientEvents(client, sendBack);
      receive((command) => {
        client.updateToken(command.token).then(
          () => sendBack({ type: 'client.tokenUpdated' }),
          (error: unknown) =>
            sendBack({ type: 'client.tokenRejected', error: toSyncFailure(error) }),
        );
      });
      return () => {
        unlisten();
        void client.shutdown().catch(() => {});
      };
    },
  );
}

export interface SyncRuntime {
  /** The syncClient actor: connection state, token renewal, toasts (`actor.on('toast.show')`). */
  client: Actor<typeof syncClientMachine>;
  /** Container machines ready to `createActor(machines.map, { input: { id: 'contacts' } })`. */
  machines: ReturnType<typeof provideContainerMachines>;
  /** Resolves with the SDK client once the first token arrived. */
  sdkClient(): Promise<SyncClientLike>;
  stop(): void;
}

/**
 * Starts a sync runtime: fetches credentials, creates the SDK client, keeps the token fresh.
 * `fetchCredentials` calls the app's token endpoint; `createClient` is swapped in tests.
 */
export function startSyncRuntime(options: {
  fetchCredentials: () => Promise<SyncCredentials>;
  createClient?: CreateClient;
}): SyncRuntime {
  let resolveClient: (client: SyncClientLike) => void = () => {};
  let current: Promise<SyncClientLike> = new Promise((resolve) => {
    resolveClient = resolve;
  });
  const onClient = (client: SyncClientLike) => {
    resolveClient(client);
    current = Promise.resolve(client);
  };
  const actor = createActor(
    syncClientMachine.provide({
      actors: {
        fetchCredentials: fromPromise(() => options.fetchCredentials()),
        session: sessionActor(options.createClient ?? createSdkClient, onClient),
      },
    }),
    { systemId: 'syncClient' },
  );
  actor.start();
  return {
    client: actor,
    machines: provideContainerMachines(() => current),
    sdkClient: () => current,
    stop: () => actor.stop(),
  };
}
