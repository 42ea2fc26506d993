/**
 * The per-object access check of tunnelled (client) requests. The service works out which object
 * and item a request would read or change and asks its access policy: Twilio's per-object
 * permissions when the service's ACL is on (twilio-api/state.ts, `aclRefusal`; service.ts). A
 * refusal is answered 403 / 54007 (Twilio's "Access forbidden for identity") before any handler
 * runs, so nothing is read or written and no event goes out. Subscriptions ask the same question
 * per object (`subscription_failed` 403 / 54007). Requests through Twilio's REST API and the
 * as-server test hook (as-server.ts) do not pass through here.
 */
import type { Core } from './core';
import { SyncRestError, type ObjectKind } from './errors';
import type { RestRequest } from './rest/context';

export interface AccessAttempt {
  /** Who is asking (the token's identity). */
  identity: string;
  /** Reading (GET, item queries, Insights queries, subscriptions) or writing anything else. */
  op: 'read' | 'write';
  kind: ObjectKind;
  /** The object's unique name, or null for an object without one (or a create without one). */
  name: string | null;
  /** Creating the object, changing or removing the object itself (ttl, data, delete), or writing one of its items. */
  target: 'create' | 'object' | 'item';
  /** The map item key, when the write addresses one (absent for list items and objects). */
  key?: string;
  method: string;
  /** The write sets the object's own ttl (it will remove the object when it lapses). */
  ttl?: boolean;
}

/** Returns null to allow, or the reason shown to the client. */
export type AccessPolicy = (attempt: AccessAttempt) => string | null;

const kinds: Record<string, ObjectKind> = {
  Documents: 'document',
  Lists: 'list',
  Maps: 'map',
  Streams: 'stream',
};

/**
 * What a request would read or write, or null for a request that touches no object (subscriptions are
 * checked per object when they are established; a path no handler knows 404s anyway).
 */
export function describeAccess(
  core: Core,
  identity: string,
  req: RestRequest,
): AccessAttempt | null {
  const [version, collection, id, sub, itemId] = req.segments;
  if (version !== 'v3') return null;
  if (collection === 'Insights' && id !== undefined) {
    // An Insights query reads the map of that name.
    return { identity, op: 'read', kind: 'map', name: id, target: 'item', method: req.method };
  }
  const kind = collection === undefined ? undefined : kinds[collection];
  if (!kind) return null;
  const op = req.method === 'GET' ? 'read' : 'write';
  const body =
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
      ? (req.body as Record<string, unknown>)
      : {};
  if (id === undefined) {
    const name = typeof body.unique_name === 'string' ? body.unique_name : null;
    return {
      identity,
      op,
      kind,
      name,
      target: op === 'read' ? 'object' : 'create',
      method: req.method,
    };
  }
  const row = core.store.q.objectBySid.get(id) ?? core.store.q.objectByName.get(kind, id);
  const name = row && row.kind === kind ? row.unique_name : id;
  if (sub === undefined)
    return {
      identity,
      op,
      kind,
      name,
      target: 'object',
      method: req.method,
      ...(op === 'write' && body.ttl !== undefined ? { ttl: true } : {}),
    };
  if (kind === 'map' && sub === 'Items') {
    const key = itemId ?? (typeof body.key === 'string' ? body.key : undefined);
    return {
      identity,
      op,
      kind,
      name,
      target: 'item',
      method: req.method,
      ...(key !== undefined ? { key } : {}),
    };
  }
  return { identity, op, kind, name, target: 'item', method: req.method };
}

/** The 403 a refused request gets: Twilio's code for an identity its ACL does not allow, with the reason. */
export function forbidden(reason: string): SyncRestError {
  return new SyncRestError(403, 54007, `Access forbidden for identity: ${reason}`);
}
