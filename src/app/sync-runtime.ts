/**
 * How the browser gets its sync runtime. `src/io/sync/client.ts` pulls in twilio-sync, so it is
 * imported dynamically: the chunk loads on the first signed-in screen, never on /login.
 */
import type { ApiClient } from '../io/api/client';
import type { SyncRuntime } from '../io/sync/client';
import { fetchSyncCredentials } from '../io/sync/credentials';

/** Starts a runtime for the signed-in user; tests pass one built over SDK fakes. */
export type StartSyncRuntime = (api: ApiClient) => Promise<SyncRuntime>;

export const startBrowserSyncRuntime: StartSyncRuntime = async (api) => {
  const { startSyncRuntime } = await import('../io/sync/client');
  return startSyncRuntime({ fetchCredentials: () => fetchSyncCredentials(api) });
};
