/**
 * An optional per-object write policy for tunnelled (client) requests. The service stays generic: it
 * works out which object and item a request would change and asks the policy the app supplied
 * (`SyncServiceOptions.writePolicy`); a refusal is answered 403 / 20403 before any handler runs, so
 * nothing is written and no event goes out. Reads (GET, item queries, subscriptions) are never asked.
 * Server-side writes (internal.ts) do not pass through here.
 */
import type { Core } from './core';
import { SyncRestError, type ObjectKind } from './errors';
import type { RestRequest } from './rest/context';

export interface WriteAttempt {
  /** Who is writing (the token's identity). */
  identity: string;
  kind: ObjectKind;
  /** The object's unique name, or null for an object without one (or a create without one). */
  name: string | null;
  /** Creating the object, changing or removing the object itself (ttl, data, delete), or writing one of its items. */
  target: 'create' | 'object' | 'item';
  /** The map item key, when the write addresses one (absent for list items and objects). */
  key?: string;
  method: string;
}

/** Returns null to allow, or the reason shown to the client. */
export type WritePolicy = (attempt: WriteAttempt) => string | null;

const kinds: Record<string, ObjectKind> = {
  Documents: 'document',
  Lists: 'list',
  Maps: 'map',
  Streams: 'stream',
};

/** What a request would write, or null for a read (or a path no handler knows, which 404s anyway). */
export function describeWrite(core: Core, identity: string, req: RestRequest): WriteAttempt | null {
  const [version, collection, id, sub, itemId] = req.segments;
  if (version !== 'v3' || req.method === 'GET') return null;
  const kind = collection === undefined ? undefined : kinds[collection];
  if (!kind) return null;
  const body =
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
      ? (req.body as Record<string, unknown>)
      : {};
  if (id === undefined) {
    const name = typeof body.unique_name === 'string' ? body.unique_name : null;
    return { identity, kind, name, target: 'create', method: req.method };
  }
  const row = core.store.q.objectBySid.get(id) ?? core.store.q.objectByName.get(kind, id);
  const name = row && row.kind === kind ? row.unique_name : id;
  if (sub === undefined) return { identity, kind, name, target: 'object', method: req.method };
  if (kind === 'map' && sub === 'Items') {
    const key = itemId ?? (typeof body.key === 'string' ? body.key : undefined);
    return {
      identity,
      kind,
      name,
      target: 'item',
      method: req.method,
      ...(key !== undefined ? { key } : {}),
    };
  }
  return { identity, kind, name, target: 'item', method: req.method };
}

/** The 403 a refused write gets, in the Twilio error shape the SDK reports. */
export function forbidden(reason: string): SyncRestError {
  return new SyncRestError(403, 20403, `Forbidden: ${reason}`);
}
