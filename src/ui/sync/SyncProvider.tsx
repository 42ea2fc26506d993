import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { SyncRuntime } from '../../io/sync/client';
import { useApiClient, useSessionActor, useToastActor } from '../app/actors';
import { startBrowserSyncRuntime, type StartSyncRuntime } from '../../app/sync-runtime';

/** What the screens can know about the sync runtime itself. */
export type SyncAvailability =
  | { state: 'starting'; runtime: null; error: null }
  | { state: 'ready'; runtime: SyncRuntime; error: null }
  | { state: 'failed'; runtime: null; error: string };

const STARTING: SyncAvailability = { state: 'starting', runtime: null, error: null };

const SyncContext = createContext<SyncAvailability | null>(null);

/**
 * Owns the signed-in user's sync runtime (one SyncClient, its token renewal and connection). It is
 * mounted by the signed-in layout only, and the SDK chunk is imported when it mounts, so /login
 * never loads twilio-sync. On unmount (sign-out) the runtime stops: listeners off, client shut down.
 * The client actor's `toast.show` events go to the app's toast.
 */
export function SyncProvider({
  children,
  start = startBrowserSyncRuntime,
}: {
  children: ReactNode;
  start?: StartSyncRuntime;
}) {
  const api = useApiClient();
  const toast = useToastActor();
  const session = useSessionActor();
  const [availability, setAvailability] = useState<SyncAvailability>(STARTING);

  useEffect(() => {
    let cancelled = false;
    let runtime: SyncRuntime | null = null;
    let toasts: { unsubscribe(): void } | null = null;
    start(api).then(
      (started) => {
        if (cancelled) {
          started.stop();
          return;
        }
        runtime = started;
        toasts = started.client.on('toast.show', (event) => {
          // Read the state the emitting transition settles in, not the one it leaves.
          queueMicrotask(() => {
            // A token refused because the session ended (401) is the session's news, told with
            // its own warning; a sync-worded toast would only replace it. And when no token could
            // be had at all, the banner says so for as long as it lasts, with a retry.
            if (session.getSnapshot().context.user === null) return;
            if (started.client.getSnapshot().matches('failed')) return;
            toast.send({ type: 'toast.show', message: event.message, toastType: event.toastType });
          });
        });
        setAvailability({ state: 'ready', runtime: started, error: null });
      },
      (error: unknown) => {
        if (cancelled) return;
        // Only a failed chunk load lands here (a failed token fetch is the client actor's toast).
        const message = `Live updates are unavailable: ${error instanceof Error ? error.message : String(error)}. Reload the page to try again.`;
        toast.send({ type: 'toast.show', message, toastType: 'error' });
        setAvailability({ state: 'failed', runtime: null, error: message });
      },
    );
    return () => {
      cancelled = true;
      toasts?.unsubscribe();
      runtime?.stop();
      setAvailability(STARTING);
    };
  }, [api, start, toast, session]);

  return <SyncContext.Provider value={availability}>{children}</SyncContext.Provider>;
}

/** The runtime's availability; throws outside {@link SyncProvider} (a wiring mistake). */
export function useSyncAvailability(): SyncAvailability {
  const value = useContext(SyncContext);
  if (value === null) throw new Error('SyncProvider is missing above this component');
  return value;
}

/** The running sync runtime, or null while it starts (or if it could not start). */
export function useSyncRuntime(): SyncRuntime | null {
  return useSyncAvailability().runtime;
}
