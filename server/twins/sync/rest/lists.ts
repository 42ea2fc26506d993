/** List items (push, get, update, delete, query) and the list context. */
import { errors } from '../errors';
import { limits } from '../limits';
import { iso, itemDescriptor, listItemUrl, parseData, rev } from '../model';
import type { ItemRow } from '../store';
import {
  bodyObject,
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
import { parseIndex } from './query';

/** List items: addressed by an integer index that only grows. */
export const listCollection: ItemCollection<number> = {
  kind: 'list',
  eventField: 'item_index',
  answerField: 'index',
  parseId: (text) => parseIndex(text, 'index'),
  idOf: (item) => item.idx,
  find: (core, sid, index) => core.store.q.listItem.get(sid, index),
  path: (sid, index) => listItemUrl('', sid, index),
  missing: (index) => errors.listItemNotFound(index),
  revisionMismatch: () => errors.listItemRevisionMismatch(),
  remove: (core, emit, list, item, origin) => core.removeListItem(emit, list, item, origin),
};

export function pushItem(ctx: Ctx, id: string, req: RestRequest): RestResponse {
  const list = findObject(ctx, 'list', id);
  const body = bodyObject(req.body);
  const data = dataJson(body.data ?? {}, limits.maxDataBytes, 'List Item data');
  const expires = ttlExpiry(body.ttl, ctx.core.now()) ?? null;
  const item = ctx.core.commit((emit) => {
    const l = freshContainer(ctx, 'list', list, emit);
    const t = ctx.core.bump(l);
    const row: ItemRow = {
      object_sid: l.sid,
      idx: l.next_index,
      key: '',
      data,
      revision: 0,
      last_event_id: l.last_event_id,
      date_created: t,
      date_updated: t,
      date_expires: expires,
      created_by: ctx.identity,
    };
    l.next_index += 1;
    ctx.core.store.q.upsertItem.run(row);
    ctx.core.saveObject(l);
    emit.logged(l, 'list_item_added', itemEvent(listCollection, l, row, t));
    return row;
  });
  return { status: 201, body: itemDescriptor(ctx.base, 'list', item) };
}

export const getItem = (ctx: Ctx, id: string, indexText: string): RestResponse =>
  readItem(ctx, listCollection, id, indexText);

export function updateItem(
  ctx: Ctx,
  id: string,
  indexText: string,
  req: RestRequest,
): RestResponse {
  const list = findObject(ctx, 'list', id);
  const index = parseIndex(indexText, 'index');
  const body = bodyObject(req.body);
  const data =
    body.data === undefined
      ? undefined
      : dataJson(body.data, limits.maxDataBytes, 'List Item data');
  const expires = ttlExpiry(body.ttl, ctx.core.now());
  const item = ctx.core.commit((emit) => {
    const l = freshContainer(ctx, 'list', list, emit);
    const row = ctx.core.store.q.listItem.get(l.sid, index);
    if (!row) throw errors.listItemNotFound(index);
    if (data === undefined) {
      if (expires !== undefined) row.date_expires = expires;
      ctx.core.store.q.upsertItem.run(row);
      return row;
    }
    const expected = ifMatch(req.headers);
    if (expected !== undefined && expected !== rev(row.revision))
      throw errors.listItemRevisionMismatch();
    const t = ctx.core.bump(l);
    row.data = data;
    row.revision += 1;
    row.last_event_id = l.last_event_id;
    row.date_updated = Math.max(t, row.date_updated);
    if (expires !== undefined) row.date_expires = expires;
    ctx.core.store.q.upsertItem.run(row);
    ctx.core.saveObject(l);
    emit.logged(l, 'list_item_updated', itemEvent(listCollection, l, row, t));
    return row;
  });
  return { status: 200, body: itemDescriptor(ctx.base, 'list', item) };
}

export const deleteItem = (
  ctx: Ctx,
  id: string,
  indexText: string,
  req: RestRequest,
): RestResponse => removeItem(ctx, listCollection, id, indexText, req);

export const listItems = (ctx: Ctx, id: string, req: RestRequest): RestResponse =>
  queryCollection(ctx, 'list', id, req);

export function getContext(ctx: Ctx, id: string): RestResponse {
  const list = findObject(ctx, 'list', id);
  return {
    status: 200,
    body: {
      list_sid: list.sid,
      data: parseData(list.data),
      last_event_id: list.context_event_id,
      date_updated: iso(list.date_updated),
    },
  };
}

export function updateContext(ctx: Ctx, id: string, req: RestRequest): RestResponse {
  const list = findObject(ctx, 'list', id);
  const body = bodyObject(req.body);
  const data = dataJson(body.data, limits.maxDataBytes, 'List context');
  const l = ctx.core.commit((emit) => {
    const fresh = ctx.core.store.q.objectBySid.get(list.sid);
    if (!fresh) throw errors.objectNotFound('list', id);
    const t = ctx.core.bump(fresh);
    fresh.data = data;
    fresh.context_event_id = fresh.last_event_id;
    ctx.core.saveObject(fresh);
    emit.logged(fresh, 'list_context_updated', {
      id: fresh.last_event_id,
      list_sid: fresh.sid,
      list_unique_name: fresh.unique_name,
      context_data: parseData(data),
      date_created: iso(t),
      list_revision: rev(fresh.revision),
    });
    return fresh;
  });
  return {
    status: 200,
    body: {
      list_sid: l.sid,
      data: parseData(l.data),
      last_event_id: l.context_event_id,
      date_updated: iso(l.date_updated),
    },
  };
}
