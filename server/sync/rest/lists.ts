/** List items (push, get, update, delete, query) and the list context. */
import type { Emit } from '../core';
import { errors } from '../errors';
import { limits } from '../limits';
import { iso, itemDescriptor, listItemUrl, parseData, rev } from '../model';
import type { ItemRow, ObjectRow } from '../store';
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
import { parseIndex, queryItems } from './query';

const itemPath = (listSid: string, index: number): string => listItemUrl('', listSid, index);

function itemEvent(list: ObjectRow, item: ItemRow, t: number): Record<string, unknown> {
  return {
    id: list.last_event_id,
    list_sid: list.sid,
    list_unique_name: list.unique_name,
    item_index: item.idx,
    item_url: itemPath(list.sid, item.idx),
    item_data: parseData(item.data),
    item_revision: rev(item.revision),
    date_created: iso(t),
    date_expires: item.date_expires === null ? null : iso(item.date_expires),
    list_revision: rev(list.revision),
  };
}

/** Re-reads the list inside a transaction and drops its expired items first. */
function freshList(ctx: Ctx, list: ObjectRow, emit: Emit): ObjectRow {
  const fresh = ctx.core.store.q.objectBySid.get(list.sid);
  if (!fresh) throw errors.objectNotFound('list', list.sid);
  ctx.core.expireItemsOf(emit, fresh);
  return fresh;
}

export function pushItem(ctx: Ctx, id: string, req: RestRequest): RestResponse {
  const list = findObject(ctx, 'list', id);
  const body = bodyObject(req.body);
  const data = dataJson(body.data ?? {}, limits.maxDataBytes, 'List Item data');
  const expires = ttlExpiry(body.ttl, ctx.core.now()) ?? null;
  const item = ctx.core.commit((emit) => {
    const l = freshList(ctx, list, emit);
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
    emit.logged(l, 'list_item_added', itemEvent(l, row, t));
    return row;
  });
  return { status: 201, body: itemDescriptor(ctx.base, 'list', item) };
}

export function getItem(ctx: Ctx, id: string, indexText: string): RestResponse {
  const list = findObject(ctx, 'list', id);
  const index = parseIndex(indexText, 'index');
  const row = ctx.core.store.q.listItem.get(list.sid, index);
  if (!row || (row.date_expires !== null && row.date_expires <= ctx.core.now()))
    throw errors.listItemNotFound(index);
  return { status: 200, body: itemDescriptor(ctx.base, 'list', row) };
}

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
    const l = freshList(ctx, list, emit);
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
    emit.logged(l, 'list_item_updated', itemEvent(l, row, t));
    return row;
  });
  return { status: 200, body: itemDescriptor(ctx.base, 'list', item) };
}

export function deleteItem(
  ctx: Ctx,
  id: string,
  indexText: string,
  req: RestRequest,
): RestResponse {
  const list = findObject(ctx, 'list', id);
  const index = parseIndex(indexText, 'index');
  const result = ctx.core.commit((emit) => {
    const l = freshList(ctx, list, emit);
    const row = ctx.core.store.q.listItem.get(l.sid, index);
    if (!row) throw errors.listItemNotFound(index);
    const expected = ifMatch(req.headers);
    if (expected !== undefined && expected !== rev(row.revision))
      throw errors.listItemRevisionMismatch();
    const t = ctx.core.removeListItem(emit, l, row, ctx.conn);
    return {
      index,
      list_sid: l.sid,
      last_event_id: l.last_event_id,
      revision: rev(l.revision),
      date_updated: iso(t),
    };
  });
  return { status: 200, body: result };
}

export function listItems(ctx: Ctx, id: string, req: RestRequest): RestResponse {
  return queryItems(ctx, findObject(ctx, 'list', id), req);
}

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
