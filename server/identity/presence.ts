/**
 * Presence: each signed-in person's item of the `presence` map, written by the server for them
 * (`PUT /api/presence` and its renewal, from every signed-in browser's heartbeat), so that nobody
 * can write a colleague's: Twilio Sync's permissions are per object, and the whole map is the team's
 * to read. The server keeps "on a call" in it (calls/on-call.ts), and the item lives a ttl: a closed
 * browser's item lapses and its person reads as Offline (Sync removes it, and every subscriber gets
 * map_item_removed).
 *
 * How often each browser renews the item and how long it lives without a renewal: the defaults allow
 * for Chrome's intensive throttling of hidden tabs (timers at most once a minute): a 25 s heartbeat
 * that slips to 60 s still lands inside a 75 s ttl.
 */
import type { ServerResponse } from 'node:http';
import { API, type PresenceSettings } from '../../src/contracts/api';
import { PRESENCE } from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import type { PresenceStatus } from '../../src/contracts/records/presence';
import { HttpError, sendJson } from '../platform/http/errors';
import { readBody } from '../platform/http/body';
import type { Router } from '../platform/http/router';
import type { SyncRest } from '../twilio/sync-rest';
import type { Auth } from './sessions';

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

/** Reads and conditional writes before giving up on an item that keeps changing under them. */
const WRITE_TRIES = 5;

export interface PresenceWriter {
  /**
   * Writes the person's item whole: their status, and whether colleagues see do not disturb; "on a
   * call" is kept as the item holds it (the server's, calls/on-call.ts), or for a new item is what
   * this server knows. The ttl starts again.
   */
  publish(identity: string, item: { status: PresenceStatus; doNotDisturb: boolean }): Promise<void>;
  /** Gives the item another ttl, its data untouched (nobody is sent an event); false: it lapsed. */
  renew(identity: string): Promise<boolean>;
  /** Removes the item: the person shows Offline at once. */
  withdraw(identity: string): Promise<void>;
}

export function createPresenceWriter(deps: {
  rest: Pick<
    SyncRest,
    'getMapItem' | 'createMapItem' | 'updateMapItemIf' | 'touchMapItem' | 'removeMapItem'
  >;
  settings: PresenceSettings;
  /** Whether this server knows of a call the person is on (a new item starts with it). */
  isOnCall: (identity: string) => boolean;
  /** Told each item written (routing's copy of presence takes it at once, routing-data.ts). */
  written?: (identity: string, data: JsonObject) => void;
}): PresenceWriter {
  const { rest, settings } = deps;
  return {
    async publish(identity, { status, doNotDisturb }) {
      const shown = doNotDisturb ? { doNotDisturb: true } : {};
      for (let tries = 0; tries < WRITE_TRIES; tries++) {
        const current = await rest.getMapItem(PRESENCE.name, identity);
        const onCall = current ? current.data.onCall === true : deps.isOnCall(identity);
        const data = { status, onCall, ...shown };
        const done = current
          ? await rest.updateMapItemIf(
              PRESENCE.name,
              identity,
              data,
              current.revision,
              settings.ttlSeconds,
            )
          : await rest.createMapItem(PRESENCE.name, identity, data, settings.ttlSeconds);
        if (done === 'written' || done === 'created') {
          deps.written?.(identity, data);
          return;
        }
      }
      throw new HttpError(
        503,
        'upstream_error',
        'Your status kept changing while it was being saved; try again in a moment',
      );
    },
    async renew(identity) {
      return (await rest.touchMapItem(PRESENCE.name, identity, settings.ttlSeconds)) === 'written';
    },
    withdraw: (identity) => rest.removeMapItem(PRESENCE.name, identity),
  };
}

/**
 * GET /api/presence/settings (signed in): the heartbeat and ttl every browser uses for its presence.
 * PUT /api/presence `{ status, doNotDisturb? }`, POST /api/presence/renew and DELETE /api/presence
 * (signed in): the person's own item, and only theirs (204; the renewal answers 404 `no_presence`
 * once the item lapsed, and the browser writes it again in full).
 */
export function registerPresenceRoutes(
  router: Router,
  deps: { auth: Auth; settings: PresenceSettings; writer: PresenceWriter },
): void {
  const done = (ctx: { res: ServerResponse }): void => {
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  };
  router.route(API.presenceSettings, (ctx) => {
    deps.auth.requireUser(ctx);
    sendJson(ctx.res, 200, deps.settings);
  });
  router.route(API.setPresence, async (ctx) => {
    const user = deps.auth.requireUser(ctx);
    const { status, doNotDisturb } = await readBody(ctx.req, API.setPresence);
    await deps.writer.publish(user.identity, { status, doNotDisturb: doNotDisturb === true });
    done(ctx);
  });
  router.route(API.renewPresence, async (ctx) => {
    const user = deps.auth.requireUser(ctx);
    if (!(await deps.writer.renew(user.identity)))
      throw new HttpError(404, 'no_presence', 'Your presence has lapsed: it is written again');
    done(ctx);
  });
  router.route(API.withdrawPresence, async (ctx) => {
    const user = deps.auth.requireUser(ctx);
    await deps.writer.withdraw(user.identity);
    done(ctx);
  });
}
