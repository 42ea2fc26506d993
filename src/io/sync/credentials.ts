/** Turns the answer of `GET /api/token` into the credentials the sync runtime connects with. */
import { API } from '../../contracts/api';
import type { ApiClient } from '../api/client';
import type { SyncCredentials } from '../../machines/syncPorts';

/**
 * Reads `{ identity, token, sync }`. A malformed answer is an error the client actor reports as a
 * toast ("Live updates are unavailable: …"), never a client built with half its options.
 */
export async function fetchSyncCredentials(api: ApiClient): Promise<SyncCredentials> {
  const answer = await api.call(API.syncToken, undefined, undefined, {
    unreadable: (field) =>
      field === 'token' || field === ''
        ? 'The server did not hand out a sync token'
        : 'The server did not say where the sync service is',
  });
  return {
    token: answer.token,
    // The SDK logs every reconnect attempt at its default level; the banner says it instead.
    clientOptions: { ...answer.sync, logLevel: 'silent' },
  };
}
