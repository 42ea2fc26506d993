/** Map items: PUT upsert (201 added / 200 updated), POST update or ttl, get, delete, query. */
import type { Emit } from '../core';
import { errors } from '../errors';
import { limits } from '../limits';
import { iso, itemDescriptor, mapItemUrl, parseData, rev } from '../model';
import type { ItemRow, ObjectRow } from '../store';
import {
  bodyObject,
  hasLoneSurrogate,
  dataJson,
  findObject,
  ifMatch,
  ttlExpiry,
  type Ctx,
  type RestRequest,
  type RestResponse,
} from './context';
import { queryItems } from './query';

function itemEvent(map: ObjectRow, item: ItemRow, t: number): Record<string, unknown> {
  return {
    id: map.last_event_id,
    map_sid: map.sid,
    map_unique_name: map.unique_name,
    item_key: item.key,
    item_url: mapItemUrl('', map.sid, item.key),
    item_data: parseData(item.data),
    item_revision: rev(item.revision),
    date_created: iso(t),
    date_expires: item.date_expires === null ? null : iso(item.date_expires),
    map_revision: rev(map.revision),
  };
}

export function checkKey(key: unknown): string {
  if (key === undefined || key === null || key === '') throw errors.emptyMapKey();
  if (typeof key !== 'string') throw errors.invalidMapKey('must be a string');
  if (key.length > limits.maxKeyLength)
    throw errors.invalidMapKey(`longer than ${limits.maxKeyLength} characters`);
  if (hasLoneSurrogate(key)) throw errors.invalidMapKey('is not well-formed Unicode');
  return key;
}

function freshMap(ctx: Ctx, map: ObjectRow, emit: Emit): ObjectRow {
  const fresh = ctx.core.store.q.objectBySid.get(map.sid);
  if (!fresh) throw errors.objectNotFound('map', map.sid);
  ctx.core.expireItemsOf(emit, fresh);
  return fresh;
}

/**
 * Writes one item. `mode` 'upsert' (PUT) creates a missing item; 'update' (POST on the item url) needs it to exist;
 * 'create' (POST on Items) needs it to be absent. If-Match `-1` means "only if absent".
 */
function writeItem(
  ctx: Ctx,
  mapId: string,
  key: string,
  req: RestRequest,
  mode: 'upsert' | 'update' | 'create',
): RestResponse {
  const map = findObject(ctx, 'map', mapId);
  const body = bodyObject(req.body);
  const data =
    body.data === undefined ? undefined : dataJson(body.data, limits.maxDataBytes, 'Map Item data');
  const expires = ttlExpiry(body.ttl, ctx.core.now());
  const expected = ifMatch(req.headers);
  const { status, row } = ctx.core.commit((emit) => {
    const m = freshMap(ctx, map, emit);
    const existing = ctx.core.store.q.mapItem.get(m.sid, key);
    if (existing && (expected === '-1' || mode === 'create')) throw errors.mapItemExists();
    if (existing && expected !== undefined && expected !== rev(existing.revision))
      throw errors.mapItemRevisionMismatch();
    if (!existing && expected !== undefined && expected !== '-1')
      throw errors.mapItemRevisionMismatch();
    if (!existing && mode === 'update') throw errors.mapItemNotFound();
    if (existing && data === undefined) {
      if (expires !== undefined) existing.date_expires = expires;
      ctx.core.store.q.upsertItem.run(existing);
      return { status: 200, row: existing };
    }
    if (!existing && data === undefined)
      throw errors.invalidParam('data', 'is required to create a Map Item');
    const t = ctx.core.bump(m);
    const item: ItemRow = existing
      ? {
          ...existing,
          data: data!,
          revision: existing.revision + 1,
          last_event_id: m.last_event_id,
          date_updated: t,
        }
      : {
          object_sid: m.sid,
          idx: 0,
          key,
          data: data!,
          revision: 0,
          last_event_id: m.last_event_id,
          date_created: t,
          date_updated: t,
          date_expires: null,
          created_by: ctx.identity,
        };
    if (expires !== undefined) item.date_expires = expires;
    ctx.core.store.q.upsertItem.run(item);
    ctx.core.saveObject(m);
    emit.logged(m, existing ? 'map_item_updated' : 'map_item_added', itemEvent(m, item, t));
    return { status: existing ? 200 : 201, row: item };
  });
  return { status, body: itemDescriptor(ctx.base, 'map', row) };
}

export const putItem = (ctx: Ctx, mapId: string, key: string, req: RestRequest): RestResponse =>
  writeItem(ctx, mapId, checkKey(key), req, 'upsert');

export const postItem = (ctx: Ctx, mapId: string, key: string, req: RestRequest): RestResponse =>
  writeItem(ctx, mapId, checkKey(key), req, 'update');

export function createItem(ctx: Ctx, mapId: string, req: RestRequest): RestResponse {
  return writeItem(ctx, mapId, checkKey(bodyObject(req.body).key), req, 'create');
}

export function getItem(ctx: Ctx, mapId: string, key: string): RestResponse {
  const map = findObject(ctx, 'map', mapId);
  const row = ctx.core.store.q.mapItem.get(map.sid, checkKey(key));
  if (!row || (row.date_expires !== null && row.date_expires <= ctx.core.now()))
    throw errors.mapItemNotFound();
  return { status: 200, body: itemDescriptor(ctx.base, 'map', row) };
}

export function deleteItem(
  ctx: Ctx,
  mapId: string,
  keyText: string,
  req: RestRequest,
): RestResponse {
  const map = findObject(ctx, 'map', mapId);
  const key = checkKey(keyText);
  const result = ctx.core.commit((emit) => {
    const m = freshMap(ctx, map, emit);
    const row = ctx.core.store.q.mapItem.get(m.sid, key);
    if (!row) throw errors.mapItemNotFound();
    const expected = ifMatch(req.headers);
    if (expected !== undefined && expected !== rev(row.revision))
      throw errors.mapItemRevisionMismatch();
    const t = ctx.core.removeMapItem(emit, m, row, ctx.conn);
    return {
      key,
      map_sid: m.sid,
      last_event_id: m.last_event_id,
      revision: rev(m.revision),
      date_updated: iso(t),
    };
  });
  return { status: 200, body: result };
}

export function mapItems(ctx: Ctx, mapId: string, req: RestRequest): RestResponse {
  return queryItems(ctx, findObject(ctx, 'map', mapId), req);
}
