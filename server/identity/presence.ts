/**
 * How often each browser refreshes its `presence` item and how long the item lives without a
 * refresh. A closed browser shows Offline once its item's ttl lapses (the Sync service's expiry
 * sweep removes it and every subscriber gets map_item_removed).
 *
 * Defaults allow for Chrome's intensive throttling of hidden tabs (timers at most once a minute):
 * a 25 s heartbeat that slips to 60 s still lands inside a 75 s ttl.
 */
import { PRESENCE } from '../../src/contracts/objects';
import type { PresenceSettings } from '../../src/contracts/api';
import type { JsonObject } from '../../src/contracts/record';

export type { PresenceSettings } from '../../src/contracts/api';

export const DEFAULT_PRESENCE: PresenceSettings = { ttlSeconds: 75, heartbeatSeconds: 25 };

type Env = Readonly<Record<string, string | undefined>>;

function seconds(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 3600) {
    throw new Error(
      `${name} must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/** SWITCHBOARD_PRESENCE_TTL and SWITCHBOARD_PRESENCE_HEARTBEAT (seconds); throws when invalid. */
export function presenceSettingsFromEnv(env: Env): PresenceSettings {
  const ttlSeconds = seconds(env, 'SWITCHBOARD_PRESENCE_TTL', DEFAULT_PRESENCE.ttlSeconds);
  const heartbeatSeconds = seconds(
    env,
    'SWITCHBOARD_PRESENCE_HEARTBEAT',
    Math.min(DEFAULT_PRESENCE.heartbeatSeconds, Math.max(1, Math.floor(ttlSeconds / 3))),
  );
  if (heartbeatSeconds >= ttlSeconds) {
    throw new Error(
      `SWITCHBOARD_PRESENCE_HEARTBEAT (${heartbeatSeconds}) must be shorter than SWITCHBOARD_PRESENCE_TTL (${ttlSeconds})`,
    );
  }
  return { ttlSeconds, heartbeatSeconds };
}

/**
 * Presence as the embedded Sync service stores a browser's write of its own item: `onCall` is what
 * the voice service knows, whatever the browser sent (SyncServiceOptions.shapeMapItem). Other
 * objects' items pass as they are.
 */
export function presenceWithCalls(
  isOnCall: (identity: string) => boolean,
): (
  object: { kind: string; name: string | null; identity: string },
  data: JsonObject,
) => JsonObject {
  return (object, data) =>
    object.kind === PRESENCE.kind && object.name === PRESENCE.name
      ? { ...data, onCall: isOnCall(object.identity) }
      : data;
}
