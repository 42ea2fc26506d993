/**
 * What Twilio's Sync REST API keeps beside the objects themselves: the Service (its friendly name,
 * ACL flag and webhook settings) and each object's Permissions per identity, in two tables of the same SQLite file,
 * and the per-object write rate. With the service's ACL on, the twin also applies the permissions to
 * the twilio-sync clients' own requests, as Twilio does.
 *
 * - Service: https://www.twilio.com/docs/sync/api/service ("acl_enabled: Whether token identities in
 *   the Service must be granted access to Sync objects by using the Permissions resource. It is
 *   disabled (false) by default."; `webhook_url`, `webhooks_from_rest_enabled`,
 *   `reachability_webhooks_enabled`: where and for what Sync webhooks are sent, webhooks.ts)
 * - Permissions: https://www.twilio.com/docs/sync/api/sync-permissions (read, write, manage per
 *   identity; "Deleting a permission has the same effect as setting all access to false").
 * - Write rate: https://www.twilio.com/docs/sync/limits ("Rate of Object Writes: up to 20/s per
 *   object, burst window: 10s"; "updating any item in a Map still counts towards the containing
 *   Map's write rate") and https://www.twilio.com/docs/api/errors/54009 (429).
 */
import type { Core } from '../core';
import { sidShape, SyncRestError, type ObjectKind } from '../errors';
import type { AccessAttempt } from '../policy';
import { TokenBucket } from '../rate';
import type { ObjectRow } from '../store';

export interface ServiceRow {
  sid: string;
  friendly_name: string | null;
  acl_enabled: number;
  webhook_url: string | null;
  webhooks_from_rest_enabled: number;
  reachability_webhooks_enabled: number;
  date_created: number;
  date_updated: number;
}

export interface PermissionRow {
  object_sid: string;
  identity: string;
  read: number;
  write: number;
  manage: number;
}

export interface Access {
  read: boolean;
  write: boolean;
  manage: boolean;
}

const schema = `
CREATE TABLE IF NOT EXISTS twilio_service (
  sid TEXT PRIMARY KEY,
  friendly_name TEXT,
  acl_enabled INTEGER NOT NULL DEFAULT 0,
  webhook_url TEXT,
  webhooks_from_rest_enabled INTEGER NOT NULL DEFAULT 0,
  reachability_webhooks_enabled INTEGER NOT NULL DEFAULT 0,
  date_created INTEGER NOT NULL,
  date_updated INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS twilio_permissions (
  object_sid TEXT NOT NULL,
  identity TEXT NOT NULL,
  read INTEGER NOT NULL,
  write INTEGER NOT NULL,
  manage INTEGER NOT NULL,
  PRIMARY KEY (object_sid, identity)
) WITHOUT ROWID;
`;

/** Twilio's documented write rate per object: 20 a second, with a ten-second burst window. */
export const TWILIO_WRITE_RATE = { perSecond: 20, burst: 200 } as const;

export type TwilioState = ReturnType<typeof openTwilioState>;

export function openTwilioState(
  core: Core,
  serviceSid: string,
  writeRate: { perSecond: number; burst: number } = TWILIO_WRITE_RATE,
) {
  const { db } = core.store;
  db.exec(schema);
  // A service stored before the webhook settings existed gets them, off.
  const columns = new Set(
    db
      .prepare<[], { name: string }>('PRAGMA table_info(twilio_service)')
      .all()
      .map((c) => c.name),
  );
  for (const [column, type] of [
    ['webhook_url', 'TEXT'],
    ['webhooks_from_rest_enabled', 'INTEGER NOT NULL DEFAULT 0'],
    ['reachability_webhooks_enabled', 'INTEGER NOT NULL DEFAULT 0'],
  ] as const)
    if (!columns.has(column)) db.exec(`ALTER TABLE twilio_service ADD COLUMN ${column} ${type}`);
  const q = {
    service: db.prepare<[string], ServiceRow>('SELECT * FROM twilio_service WHERE sid = ?'),
    insertService: db.prepare<ServiceRow>(
      `INSERT OR IGNORE INTO twilio_service (sid, friendly_name, acl_enabled, webhook_url,
        webhooks_from_rest_enabled, reachability_webhooks_enabled, date_created, date_updated)
       VALUES (@sid, @friendly_name, @acl_enabled, @webhook_url, @webhooks_from_rest_enabled,
        @reachability_webhooks_enabled, @date_created, @date_updated)`,
    ),
    updateService: db.prepare<ServiceRow>(
      `UPDATE twilio_service SET friendly_name = @friendly_name, acl_enabled = @acl_enabled,
        webhook_url = @webhook_url, webhooks_from_rest_enabled = @webhooks_from_rest_enabled,
        reachability_webhooks_enabled = @reachability_webhooks_enabled,
        date_updated = @date_updated WHERE sid = @sid`,
    ),
    permission: db.prepare<[string, string], PermissionRow>(
      'SELECT * FROM twilio_permissions WHERE object_sid = ? AND identity = ?',
    ),
    permissionsOf: db.prepare<[string, number, number], PermissionRow>(
      'SELECT * FROM twilio_permissions WHERE object_sid = ? ORDER BY identity LIMIT ? OFFSET ?',
    ),
    upsertPermission: db.prepare<PermissionRow>(
      `INSERT INTO twilio_permissions (object_sid, identity, read, write, manage)
       VALUES (@object_sid, @identity, @read, @write, @manage)
       ON CONFLICT (object_sid, identity) DO UPDATE SET read = excluded.read, write = excluded.write,
        manage = excluded.manage`,
    ),
    deletePermission: db.prepare<[string, string]>(
      'DELETE FROM twilio_permissions WHERE object_sid = ? AND identity = ?',
    ),
    deletePermissionsOf: db.prepare<[string]>(
      'DELETE FROM twilio_permissions WHERE object_sid = ?',
    ),
  };
  const now = core.now();
  q.insertService.run({
    sid: serviceSid,
    friendly_name: null,
    acl_enabled: 0,
    webhook_url: null,
    webhooks_from_rest_enabled: 0,
    reachability_webhooks_enabled: 0,
    date_created: now,
    date_updated: now,
  });

  const buckets = new Map<string, TokenBucket>();
  /** Bumped by every change to who may do what (a permission, the ACL itself). */
  let accessVersion = 0;
  for (const name of ['upsertPermission', 'deletePermission', 'deletePermissionsOf'] as const) {
    const stmt = q[name] as { run: (...args: never[]) => unknown };
    const run = stmt.run.bind(stmt);
    stmt.run = (...args: never[]) => {
      accessVersion++;
      return run(...args);
    };
  }

  /** The service as last saved (read on every committed change by the webhooks: kept in memory). */
  let current = q.service.get(serviceSid)!;
  function service(): ServiceRow {
    return current;
  }

  /** The object a client request names (by SID or unique name), or undefined. */
  function objectOf(kind: ObjectKind, name: string | null): ObjectRow | undefined {
    if (name === null) return undefined;
    const row = sidShape.test(name)
      ? core.store.q.objectBySid.get(name)
      : core.store.q.objectByName.get(kind, name);
    return row && row.kind === kind ? row : undefined;
  }

  return {
    q,
    service,
    saveService(row: ServiceRow): void {
      q.updateService.run(row);
      current = q.service.get(serviceSid)!;
      accessVersion++;
    },
    /** Changes whenever who may do what changes: a connection's cached read rights are stale then. */
    accessVersion: (): number => accessVersion,
    /**
     * Counts one write against an object; throws Twilio's 429 / 54009 once the object's rate is
     * spent (the write is not made).
     */
    takeWrite(objectSid: string): void {
      let bucket = buckets.get(objectSid);
      if (!bucket) {
        if (buckets.size > 10_000) buckets.clear();
        bucket = new TokenBucket(writeRate.perSecond, writeRate.burst, core.now);
        buckets.set(objectSid, bucket);
      }
      if (!bucket.take())
        throw new SyncRestError(
          429,
          54009,
          'Rate limit exceeded: too many writes to this Sync object (up to 20 a second, with a ten-second burst window)',
        );
    },
    /**
     * With the service's ACL on, why a client may not do what it attempts (null: it may). A request
     * for an object that does not exist is left to its handler (404), except a create: under ACL
     * only the REST API (the server) makes objects, as the server's own acl.ts assumes.
     */
    aclRefusal(attempt: AccessAttempt): string | null {
      if (service().acl_enabled !== 1) return null;
      if (attempt.kind === 'stream') return null;
      if (attempt.target === 'create')
        return 'the Sync service has ACL on: objects are created through the REST API';
      const obj = objectOf(attempt.kind, attempt.name);
      if (!obj) return null;
      const p = q.permission.get(obj.sid, attempt.identity);
      // Removing the object needs `manage` ("Whether the identity can delete the Sync Map",
      // https://www.twilio.com/docs/sync/api/sync-map-permission-resource). Twilio does not say
      // which a ttl on the object itself needs; it removes the object when it lapses, so it is
      // `manage` here too (docs/sync-service.md).
      const needs: keyof Access =
        attempt.op === 'read'
          ? 'read'
          : attempt.target === 'object' && (attempt.method === 'DELETE' || attempt.ttl === true)
            ? 'manage'
            : 'write';
      return p && p[needs] === 1
        ? null
        : `no ${needs} permission on ${attempt.kind} ${obj.unique_name ?? obj.sid}`;
    },
  };
}
