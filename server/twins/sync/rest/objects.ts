/** Create, fetch, update (data/ttl) and delete of Documents, Lists, Maps and Streams. */
import { randomBytes } from 'node:crypto';
import { errors, type ObjectKind } from '../errors';
import { limits } from '../limits';
import { iso, itemDescriptor, objectDescriptor, parseData, rev, sidPrefix } from '../model';
import type { ObjectRow } from '../store';
import {
  bodyObject,
  dataJson,
  findObject,
  ifMatch,
  ttlExpiry,
  uniqueName,
  type Ctx,
  type RestRequest,
  type RestResponse,
} from './context';

export const newSid = (prefix: string): string => prefix + randomBytes(16).toString('hex');

export function createObject(ctx: Ctx, kind: ObjectKind, req: RestRequest): RestResponse {
  const body = bodyObject(req.body);
  const now = ctx.core.now();
  const name = uniqueName(body.unique_name);
  const expires = ttlExpiry(body.ttl, now) ?? null;
  let data = '{}';
  if (kind === 'document' && body.data !== undefined)
    data = dataJson(body.data, limits.maxDataBytes, 'Document data');
  if (kind === 'list' && body.context !== undefined)
    data = dataJson(body.context, limits.maxDataBytes, 'List context');
  const row: ObjectRow = {
    sid: newSid(sidPrefix[kind]),
    kind,
    unique_name: name,
    data,
    revision: 0,
    last_event_id: 0,
    next_index: 0,
    context_event_id: 0,
    date_created: now,
    date_updated: now,
    date_expires: expires,
    created_by: ctx.identity,
  };
  ctx.core.commit((emit) => {
    const { q } = ctx.core.store;
    if (name !== null) {
      const existing = q.objectByName.get(kind, name);
      if (existing) {
        // An expired holder of the name no longer counts.
        if (existing.date_expires !== null && existing.date_expires <= now)
          ctx.core.expiring(() => ctx.core.removeObject(emit, existing));
        else throw errors.uniqueNameTaken();
      }
    }
    q.insertObject.run(row);
    // Nobody is subscribed to it yet: told only to the watchers (Sync webhooks' `*_created`).
    emit.transient(row.sid, `${kind}_created`, createdEvent(row, now));
  });
  return { status: 201, body: objectDescriptor(ctx.base, row) };
}

/** What a creation says: the object as made (a document's data and revision). */
function createdEvent(row: ObjectRow, now: number): Record<string, unknown> {
  const event: Record<string, unknown> = {
    id: 0,
    [`${row.kind}_sid`]: row.sid,
    [`${row.kind}_unique_name`]: row.unique_name,
    [`${row.kind}_revision`]: rev(row.revision),
    date_created: iso(now),
  };
  if (row.kind === 'document') event.document_data = parseData(row.data);
  return event;
}

export function getObject(ctx: Ctx, kind: ObjectKind, id: string, req: RestRequest): RestResponse {
  const obj = findObject(ctx, kind, id);
  const descriptor = objectDescriptor(ctx.base, obj);
  if (kind === 'map' && req.params.Include === 'items') {
    const rows = ctx.core.store.queryItems(obj.sid, 'map', {
      order: 'asc',
      limit: limits.maxPageSize,
      now: ctx.core.now(),
    });
    descriptor.items = rows.map((r) => itemDescriptor(ctx.base, 'map', r));
  }
  return { status: 200, body: descriptor };
}

/** POST on an object: `ttl` for every kind; `data` (with optional If-Match) for documents. */
export function updateObject(
  ctx: Ctx,
  kind: ObjectKind,
  id: string,
  req: RestRequest,
): RestResponse {
  const body = bodyObject(req.body);
  const obj = findObject(ctx, kind, id);
  const now = ctx.core.now();
  const expires = ttlExpiry(body.ttl, now);
  const hasData = kind === 'document' && body.data !== undefined;
  const data = hasData ? dataJson(body.data, limits.maxDataBytes, 'Document data') : undefined;
  if (kind !== 'document' && body.data !== undefined)
    throw errors.invalidParam('data', `a ${kind} has no data`);
  ctx.core.commit((emit) => {
    const fresh = ctx.core.store.q.objectBySid.get(obj.sid);
    if (!fresh) throw errors.objectNotFound(kind, id);
    Object.assign(obj, fresh);
    if (data !== undefined) {
      const expected = ifMatch(req.headers);
      if (expected !== undefined && expected !== rev(obj.revision))
        throw errors.documentRevisionMismatch();
      const t = ctx.core.bump(obj);
      obj.data = data;
      if (expires !== undefined) obj.date_expires = expires;
      emit.logged(obj, 'document_updated', {
        id: obj.last_event_id,
        document_sid: obj.sid,
        document_unique_name: obj.unique_name,
        document_data: parseData(obj.data),
        document_revision: rev(obj.revision),
        date_created: iso(t),
        date_expires: obj.date_expires === null ? null : iso(obj.date_expires),
      });
    } else if (expires !== undefined) {
      obj.date_expires = expires;
    }
    ctx.core.saveObject(obj);
  });
  return { status: 200, body: objectDescriptor(ctx.base, obj) };
}

export function deleteObject(ctx: Ctx, kind: ObjectKind, id: string): RestResponse {
  const obj = findObject(ctx, kind, id);
  ctx.core.commit((emit) => ctx.core.removeObject(emit, obj));
  return { status: 204 };
}
