/** Map items: PUT upsert (201 added / 200 updated), POST update or ttl, get, delete, query. */
import { errors } from '../errors';
import { limits } from '../limits';
import { itemDescriptor, mapItemUrl, rev } from '../model';
import type { ItemRow } from '../store';
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
import {
  freshContainer,
  itemEvent,
  queryCollection,
  readItem,
  removeItem,
  type ItemCollection,
} from './items';

export function checkKey(key: unknown): string {
  if (key === undefined || key === null || key === '') throw errors.emptyMapKey();
  if (typeof key !== 'string') throw errors.invalidMapKey('must be a string');
  if (key.length > limits.maxKeyLength)
    throw errors.invalidMapKey(`longer than ${limits.maxKeyLength} characters`);
  if (hasLoneSurrogate(key)) throw errors.invalidMapKey('is not well-formed Unicode');
  return key;
}

/** Map items: addressed by a string key. */
export const mapCollection: ItemCollection<string> = {
  kind: 'map',
  eventField: 'item_key',
  answerField: 'key',
  parseId: checkKey,
  idOf: (item) => item.key,
  find: (core, sid, key) => core.store.q.mapItem.get(sid, key),
  path: (sid, key) => mapItemUrl('', sid, key),
  missing: () => errors.mapItemNotFound(),
  revisionMismatch: () => errors.mapItemRevisionMismatch(),
  remove: (core, emit, map, item, origin) => core.removeMapItem(emit, map, item, origin),
};

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
    const m = freshContainer(ctx, 'map', map, emit);
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
    emit.logged(
      m,
      existing ? 'map_item_updated' : 'map_item_added',
      itemEvent(mapCollection, m, item, t),
    );
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

export const getItem = (ctx: Ctx, mapId: string, key: string): RestResponse =>
  readItem(ctx, mapCollection, mapId, key);

export const deleteItem = (
  ctx: Ctx,
  mapId: string,
  keyText: string,
  req: RestRequest,
): RestResponse => removeItem(ctx, mapCollection, mapId, keyText, req);

export const mapItems = (ctx: Ctx, mapId: string, req: RestRequest): RestResponse =>
  queryCollection(ctx, 'map', mapId, req);
