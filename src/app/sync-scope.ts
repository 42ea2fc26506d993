/**
 * The signed-in person's Sync: one runtime (one SyncClient, its token renewal and connection),
 * started once, the containers opened over it (shared, see containers.ts), and the client's toasts
 * passed on to the page's toast. The runtime's chunk (twilio-sync) loads when the scope starts, so
 * /login never loads it. Stopping the scope stops every container and shuts the client down.
 */
import type { ApiClient } from '../io/api/client';
import type { SyncRuntime } from '../io/sync/client';
import {
  createContainerRegistry,
  type ActorOf,
  type ContainerRegistry,
  type Lease,
  type OpenKind,
  type OptionsOf,
} from './containers';
import type { SessionActor } from '../machines/session.machine';
import type { ToastActor } from '../machines/toast.machine';
import { startBrowserSyncRuntime, type StartSyncRuntime } from './sync-runtime';

/** What the screens can know about the sync runtime itself. */
export type SyncAvailability =
  | { state: 'starting'; runtime: null; error: null }
  | { state: 'ready'; runtime: SyncRuntime; error: null }
  | { state: 'failed'; runtime: null; error: string };

export const SYNC_STARTING: SyncAvailability = { state: 'starting', runtime: null, error: null };

export interface SyncScope {
  getAvailability: () => SyncAvailability;
  /** Calls `listener` whenever the availability changes; returns the unsubscribe. */
  subscribe: (listener: () => void) => () => void;
  /** Opens (or shares) a container; null until the runtime is up (then the listeners hear). */
  open<K extends OpenKind>(kind: K, name: string, options?: OptionsOf<K>): Lease<ActorOf<K>> | null;
  stop(): void;
}

export interface SyncScopeDeps {
  api: ApiClient;
  session: SessionActor;
  toast: ToastActor;
  /** Starts the runtime; tests pass one built over SDK fakes. */
  start?: StartSyncRuntime;
}

/** A scope that never starts (no one is signed in yet): starting, and nothing opens. */
export const IDLE_SYNC_SCOPE: SyncScope = {
  getAvailability: () => SYNC_STARTING,
  subscribe: () => () => undefined,
  open: () => null,
  stop: () => undefined,
};

export function startSyncScope({
  api,
  session,
  toast,
  start = startBrowserSyncRuntime,
}: SyncScopeDeps): SyncScope {
  let availability: SyncAvailability = SYNC_STARTING;
  let registry: ContainerRegistry | null = null;
  let stopped = false;
  let toasts: { unsubscribe(): void } | null = null;
  const listeners = new Set<() => void>();
  const set = (next: SyncAvailability) => {
    availability = next;
    for (const listener of [...listeners]) listener();
  };

  start(api).then(
    (runtime) => {
      if (stopped) {
        runtime.stop();
        return;
      }
      registry = createContainerRegistry(runtime);
      toasts = runtime.client.on('toast.show', (event) => {
        // Read the state the emitting transition settles in, not the one it leaves.
        queueMicrotask(() => {
          // A token refused because the session ended (401) is the session's news, told with
          // its own warning; a sync-worded toast would only replace it. And when no token could
          // be had at all, the banner says so for as long as it lasts, with a retry.
          if (stopped || session.getSnapshot().context.user === null) return;
          if (runtime.client.getSnapshot().matches('failed')) return;
          toast.send({ type: 'toast.show', message: event.message, toastType: event.toastType });
        });
      });
      set({ state: 'ready', runtime, error: null });
    },
    (error: unknown) => {
      if (stopped) return;
      // Only a failed chunk load lands here (a failed token fetch is the client actor's toast).
      const message = `Live updates are unavailable: ${error instanceof Error ? error.message : String(error)}. Reload the page to try again.`;
      toast.send({ type: 'toast.show', message, toastType: 'error' });
      set({ state: 'failed', runtime: null, error: message });
    },
  );

  return {
    getAvailability: () => availability,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    open: (kind, name, options) => (stopped ? null : (registry?.open(kind, name, options) ?? null)),
    stop() {
      if (stopped) return;
      stopped = true;
      toasts?.unsubscribe();
      registry?.stopAll();
      availability.runtime?.stop();
      set(SYNC_STARTING);
      listeners.clear();
    },
  };
}
