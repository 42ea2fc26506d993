/**
 * What list items and map items share, defined once: the item event, re-reading the container inside a write,
 * reading one item, removing one item and querying the items. `lists.ts` and `maps.ts` describe their items with
 * an `ItemCollection` and keep only what differs (list push and context; map upsert and key checks).
 */
import type { Core, Emit } from '../core';
import type { SyncRestError } from '../errors';
import { errors } from '../errors';
import { iso, itemDescriptor, parseData, rev } from '../model';
import type { ItemRow, ObjectRow } from '../store';
import { findObject, ifMatch, type Ctx, type RestRequest, type RestResponse } from './context';
import { queryItems } from './query';

export interface ItemCollection<Id extends number | string> {
  kind: 'list' | 'map';
  /** The item's id field in events (`item_index` / `item_key`) and in a removal's answer (`index` / `key`). */
  eventField: 'item_index' | 'item_key';
  answerField: 'index' | 'key';
  /** Turns the path segment into an id, or refuses it (400). */
  parseId(text: string): Id;
  idOf(item: ItemRow): Id;
  find(core: Core, containerSid: string, id: Id): ItemRow | undefined;
  /** Item url relative to the host (events carry it without the base). */
  path(containerSid: string, id: Id): string;
  missing(id: Id): SyncRestError;
  revisionMismatch(): SyncRestError;
  remove(core: Core, emit: Emit, container: ObjectRow, item: ItemRow, origin: Ctx['conn']): number;
}

/** The `*_item_added` / `*_item_updated` event payload. */
export function itemEvent<Id extends number | string>(
  c: ItemCollection<Id>,
  container: ObjectRow,
  item: ItemRow,
  t: number,
): Record<string, unknown> {
  const id = c.idOf(item);
  return {
    id: container.last_event_id,
    [`${c.kind}_sid`]: container.sid,
    [`${c.kind}_unique_name`]: container.unique_name,
    [c.eventField]: id,
    item_url: c.path(container.sid, id),
    item_data: parseData(item.data),
    item_revision: rev(item.revision),
    date_created: iso(t),
    date_expires: item.date_expires === null ? null : iso(item.date_expires),
    [`${c.kind}_revision`]: rev(container.revision),
  };
}

/** Re-reads the container inside a transaction and drops its expired items first. */
export function freshContainer(
  ctx: Ctx,
  kind: 'list' | 'map',
  container: ObjectRow,
  emit: Emit,
): ObjectRow {
  const fresh = ctx.core.store.q.objectBySid.get(container.sid);
  if (!fresh) throw errors.objectNotFound(kind, container.sid);
  ctx.core.expireItemsOf(emit, fresh);
  return fresh;
}

export function readItem<Id extends number | string>(
  ctx: Ctx,
  c: ItemCollection<Id>,
  containerId: string,
  idText: string,
): RestResponse {
  const container = findObject(ctx, c.kind, containerId);
  const id = c.parseId(idText);
  const row = c.find(ctx.core, container.sid, id);
  if (!row || (row.date_expires !== null && row.date_expires <= ctx.core.now()))
    throw c.missing(id);
  return { status: 200, body: itemDescriptor(ctx.base, c.kind, row) };
}

/** DELETE on an item url: 200 with the container's new `last_event_id`, revision and `date_updated`. */
export function removeItem<Id extends number | string>(
  ctx: Ctx,
  c: ItemCollection<Id>,
  containerId: string,
  idText: string,
  req: RestRequest,
): RestResponse {
  const container = findObject(ctx, c.kind, containerId);
  const id = c.parseId(idText);
  const result = ctx.core.commit((emit) => {
    const fresh = freshContainer(ctx, c.kind, container, emit);
    const row = c.find(ctx.core, fresh.sid, id);
    if (!row) throw c.missing(id);
    const expected = ifMatch(req.headers);
    if (expected !== undefined && expected !== rev(row.revision)) throw c.revisionMismatch();
    const t = c.remove(ctx.core, emit, fresh, row, ctx.conn);
    return {
      [c.answerField]: id,
      [`${c.kind}_sid`]: fresh.sid,
      last_event_id: fresh.last_event_id,
      revision: rev(fresh.revision),
      date_updated: iso(t),
    };
  });
  return { status: 200, body: result };
}

export function queryCollection(
  ctx: Ctx,
  kind: 'list' | 'map',
  containerId: string,
  req: RestRequest,
): RestResponse {
  return queryItems(ctx, findObject(ctx, kind, containerId), req);
}
