/** Turns the answer of `GET /api/token` into the credentials the sync runtime connects with. */
import type { ApiClient } from '../api/client';
import type { SyncCredentials } from '../../machines/syncPorts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `{ identity, token, sync }`. A malformed answer is an error the client actor reports as a
 * toast ("Live updates are unavailable: …"), never a client built with half its options.
 */
export function credentialsFrom(body: unknown): SyncCredentials & { identity: string } {
  if (!isRecord(body) || typeof body.token !== 'string' || body.token === '') {
    throw new Error('The server did not hand out a sync token');
  }
  if (!isRecord(body.sync)) throw new Error('The server did not say where the sync service is');
  return {
    identity: typeof body.identity === 'string' ? body.identity : '',
    token: body.token,
    // The SDK logs every reconnect attempt at its default level; the banner says it instead.
    clientOptions: { ...body.sync, logLevel: 'silent' },
  };
}

export async function fetchSyncCredentials(api: ApiClient): Promise<SyncCredentials> {
  return credentialsFrom(await api.request('GET', '/api/token'));
}
