/** The heartbeat and ttl the server wants every browser to use (GET /api/presence/settings). */
import type { ApiClient } from '../../io/api/client';

export interface PresenceSettings {
  ttlSeconds: number;
  heartbeatSeconds: number;
}

const positiveInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0;

export function presenceSettingsFrom(body: unknown): PresenceSettings {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (
    !positiveInt(b.ttlSeconds) ||
    !positiveInt(b.heartbeatSeconds) ||
    b.heartbeatSeconds >= b.ttlSeconds
  ) {
    throw new Error('The server sent unusable presence settings');
  }
  return { ttlSeconds: b.ttlSeconds, heartbeatSeconds: b.heartbeatSeconds };
}

export async function fetchPresenceSettings(api: ApiClient): Promise<PresenceSettings> {
  return presenceSettingsFrom(await api.request('GET', '/api/presence/settings'));
}
