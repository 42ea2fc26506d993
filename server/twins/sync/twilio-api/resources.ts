/**
 * The resources of Twilio's Sync REST API (v1) the twin answers: the Service, Documents, Lists,
 * Maps, their Items and their Permissions. Every write goes through the same handlers as a
 * twilio-sync client's (server/twins/sync/rest/), so it is validated, committed and pushed live to
 * subscribed clients the same way; this module only reads Twilio's form parameters, applies
 * Twilio's rules on them, and answers with Twilio's JSON (render.ts).
 *
 * Parameters and answers, per resource:
 * - Service: https://www.twilio.com/docs/sync/api/service (FriendlyName, AclEnabled, WebhookUrl,
 *   WebhooksFromRestEnabled, ReachabilityWebhooksEnabled; the webhooks themselves: webhooks.ts)
 * - Document: https://www.twilio.com/docs/sync/api/document-resource (UniqueName, Data, Ttl; If-Match)
 * - List / Map: https://www.twilio.com/docs/sync/api/list-resource, …/map-resource (UniqueName,
 *   Ttl, CollectionTtl)
 * - List Item / Map Item: https://www.twilio.com/docs/sync/api/listitem-resource,
 *   …/map-item-resource (Key, Data, Ttl, ItemTtl, CollectionTtl; Order, From, Bounds, PageSize;
 *   If-Match on update and delete)
 * - Permissions: https://www.twilio.com/docs/sync/api/sync-permissions (Read, Write, Manage)
 * - Message Stream / Stream Message: https://www.twilio.com/docs/sync/api/stream-resource (UniqueName,
 *   Ttl), …/stream-message-resource (Data, a JSON object of at most 4 KiB; published, never stored)
 * - Errors: https://www.twilio.com/docs/api/errors (54006 too large, 54011 invalid ttl, 54208 item
 *   exists, 54103/54155 revision mismatch, 54301 unique name taken, 20404 no such resource); a bad
 *   unique name and a missing object are answered in the cloud's words (../errors.ts).
 */
import type { Core } from '../core';
import { errors, SyncRestError } from '../errors';
import type { Subscriber } from '../events';
import { findObject, type Ctx, type RestRequest } from '../rest/context';
import * as lists from '../rest/lists';
import * as maps from '../rest/maps';
import { createObject, deleteObject, updateObject } from '../rest/objects';
import { publishMessage } from '../rest/streams';
import {
  decodePageToken,
  encodePageToken,
  parseIndex,
  parseOrder,
  parsePageSize,
} from '../rest/query';
import type { ItemRow, ObjectRow } from '../store';
import {
  COLLECTION,
  itemJson,
  objectJson,
  objectUrl,
  page,
  pageKey,
  permissionJson,
  serviceJson,
  serviceUrl,
  type ApiKind,
  type Json,
  type Names,
  type RestKind,
} from './render';
import type { ServiceRow, TwilioState } from './state';
import { boolParam, dataParam, fail, missing, offsetPage, ttlParam } from './params';

export interface Api extends Names {
  core: Core;
  state: TwilioState;
}

export interface ApiRequest {
  method: string;
  /** Decoded path segments after `/v1`, e.g. ['Services', 'IS…', 'Maps', 'users', 'Items', 'a@b.c']. */
  segments: string[];
  query: Record<string, string>;
  /** The form-encoded body. */
  form: Record<string, string>;
  ifMatch: string | undefined;
}

export interface ApiResponse {
  status: number;
  body?: Json;
}

const KINDS: Record<string, ApiKind> = {
  Documents: 'document',
  Lists: 'list',
  Maps: 'map',
  Streams: 'stream',
};

/** Objects and items made through REST are Twilio's `system`'s (its `created_by`). */
const REST_IDENTITY = 'system';

const nobody: Subscriber & { subscriptions: Map<string, string>; readonly open: boolean } = {
  notify() {},
  subscriptions: new Map(),
  open: false,
};

function ctxOf(api: Api): Ctx {
  return { core: api.core, base: '', identity: REST_IDENTITY, conn: nobody };
}
const v3 = (method: string, body: Json, ifMatch?: string): RestRequest => ({
  method,
  segments: [],
  params: {},
  headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  body,
});
const objectBySid = (api: Api, sid: string): ObjectRow => api.core.store.q.objectBySid.get(sid)!;

export function handle(api: Api, req: ApiRequest): ApiResponse {
  const [root, service, collection, id, sub, subId, ...rest] = req.segments;
  const path = `/v1/${req.segments.join('/')}`;
  const notFound = () => errors.notFound(path);
  const notAllowed = () => errors.methodNotAllowed(req.method, path);
  if (root !== 'Services' || rest.length > 0) throw notFound();
  if (service === undefined) {
    if (req.method !== 'GET') throw notAllowed();
    const s = api.state.service();
    return {
      status: 200,
      body: page(`${serviceUrl(api).replace(/\/[^/]+$/, '')}`, 'services', [serviceJson(api, s)], {
        page: 0,
        pageSize: parsePageSize(req.query.PageSize),
        query: {},
        next: null,
      }),
    };
  }
  // "default" names an account's default Sync service.
  if (service !== api.serviceSid && service !== 'default') throw notFound();
  if (collection === undefined) return serviceRoute(api, req, notAllowed);
  const kind = KINDS[collection];
  if (!kind || id === '') throw notFound();
  if (id === undefined) {
    if (req.method === 'GET') return listObjects(api, kind, req);
    if (req.method === 'POST') return createRoute(api, kind, req);
    throw notAllowed();
  }
  if (sub === undefined) return objectRoute(api, kind, id, req, notAllowed);
  if (sub === 'Items' && (kind === 'list' || kind === 'map'))
    return subId === undefined
      ? itemsRoute(api, kind, id, req, notAllowed)
      : itemRoute(api, kind, id, subId, req, notAllowed);
  if (sub === 'Permissions' && kind !== 'stream')
    return permissionRoute(api, kind, id, subId, req, notAllowed);
  if (sub === 'Messages' && kind === 'stream' && subId === undefined)
    return messageRoute(api, id, req, notAllowed);
  throw notFound();
}

function serviceRoute(api: Api, req: ApiRequest, notAllowed: () => SyncRestError): ApiResponse {
  if (req.method === 'GET') return { status: 200, body: serviceJson(api, api.state.service()) };
  if (req.method !== 'POST') throw notAllowed();
  const s = { ...api.state.service() };
  const flag = (name: string, column: keyof ServiceRow & `${string}_enabled`) => {
    const value = boolParam(req.form, name, false);
    if (value !== undefined) s[column] = value ? 1 : 0;
  };
  flag('AclEnabled', 'acl_enabled');
  flag('WebhooksFromRestEnabled', 'webhooks_from_rest_enabled');
  flag('ReachabilityWebhooksEnabled', 'reachability_webhooks_enabled');
  if (req.form.FriendlyName !== undefined) s.friendly_name = req.form.FriendlyName;
  if (req.form.WebhookUrl !== undefined) s.webhook_url = webhookUrlParam(req.form.WebhookUrl);
  s.date_updated = Math.max(api.core.now(), s.date_updated);
  api.state.saveService(s);
  return { status: 200, body: serviceJson(api, s) };
}

/**
 * `WebhookUrl`: "The URL we should call when Sync objects are manipulated"; an empty value removes it
 * (no webhooks). Anything but an absolute http(s) URL is refused as Twilio refuses a malformed
 * parameter (400 / 20001).
 */
function webhookUrlParam(value: string): string | null {
  if (value === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || value.length > 1024)
    throw fail(400, 20001, 'Invalid parameter WebhookUrl: must be an absolute http(s) URL');
  return value;
}

/** The ttl parameters each kind takes, the more specific first. */
const objectTtl = (kind: ApiKind): string[] =>
  kind === 'list' || kind === 'map' ? ['CollectionTtl', 'Ttl'] : ['Ttl'];

function createRoute(api: Api, kind: ApiKind, req: ApiRequest): ApiResponse {
  const body: Json = {};
  if (req.form.UniqueName !== undefined) body.unique_name = req.form.UniqueName;
  const ttl = ttlParam(req.form, objectTtl(kind));
  if (ttl !== undefined) body.ttl = ttl;
  if (kind === 'document') {
    const data = dataParam(req.form, kind, false);
    if (data !== undefined) body.data = data;
  }
  const made = createObject(ctxOf(api), kind, v3('POST', body)).body as { sid: string };
  return { status: 201, body: objectJson(api, objectBySid(api, made.sid)) };
}

function listObjects(api: Api, kind: ApiKind, req: ApiRequest): ApiResponse {
  const { size, page: pageNo, offset } = offsetPage(req.query);
  const rows = api.core.store.db
    .prepare<[string, number, number, number], ObjectRow>(
      `SELECT * FROM objects WHERE kind = ? AND (date_expires IS NULL OR date_expires > ?)
       ORDER BY date_created, sid LIMIT ? OFFSET ?`,
    )
    .all(kind, api.core.now(), size + 1, offset);
  const url = `${serviceUrl(api)}/${COLLECTION[kind]}`;
  return {
    status: 200,
    body: page(
      url,
      pageKey(kind),
      rows.slice(0, size).map((r) => objectJson(api, r)),
      {
        page: pageNo,
        pageSize: size,
        query: {},
        next: rows.length > size ? `PO${offset + size}` : null,
      },
    ),
  };
}

function objectRoute(
  api: Api,
  kind: ApiKind,
  id: string,
  req: ApiRequest,
  notAllowed: () => SyncRestError,
): ApiResponse {
  const ctx = ctxOf(api);
  const obj = findObject(ctx, kind, id);
  if (req.method === 'GET') return { status: 200, body: objectJson(api, obj) };
  if (req.method === 'DELETE') {
    api.state.takeWrite(obj.sid);
    deleteObject(ctx, kind, obj.sid);
    api.state.q.deletePermissionsOf.run(obj.sid);
    return { status: 204 };
  }
  if (req.method !== 'POST') throw notAllowed();
  api.state.takeWrite(obj.sid);
  const body: Json = {};
  const ttl = ttlParam(req.form, objectTtl(kind));
  if (ttl !== undefined) body.ttl = ttl;
  if (kind === 'document') {
    const data = dataParam(req.form, kind, false);
    if (data !== undefined) body.data = data;
  }
  updateObject(ctx, kind, obj.sid, v3('POST', body, req.ifMatch));
  return { status: 200, body: objectJson(api, objectBySid(api, obj.sid)) };
}

/**
 * Publishes a message to a stream's subscribers (twilio.com/docs/sync/api/stream-message-resource:
 * `Data` required, a JSON object; answered `{sid, data}`); a missing stream is 404 / 54250.
 */
function messageRoute(
  api: Api,
  id: string,
  req: ApiRequest,
  notAllowed: () => SyncRestError,
): ApiResponse {
  if (req.method !== 'POST') throw notAllowed();
  const text = req.form.Data;
  if (text === undefined) throw missing('Data');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  // https://www.twilio.com/docs/api/errors/54251 ("Invalid Message Stream Message data")
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw fail(400, 54251, 'Invalid Stream Message data: must be a JSON object');
  const sent = publishMessage(ctxOf(api), id, v3('POST', { data })).body as Json;
  return { status: 201, body: { sid: sent.sid, data: sent.data } };
}

/** Sets the container's ttl after an item write that carried `CollectionTtl`. */
function collectionTtl(api: Api, container: ObjectRow, form: Record<string, string>): void {
  const ttl = ttlParam(form, ['CollectionTtl']);
  if (ttl !== undefined)
    updateObject(ctxOf(api), container.kind, container.sid, v3('POST', { ttl }));
}

function itemsRoute(
  api: Api,
  kind: 'list' | 'map',
  id: string,
  req: ApiRequest,
  notAllowed: () => SyncRestError,
): ApiResponse {
  const ctx = ctxOf(api);
  const container = findObject(ctx, kind, id);
  if (req.method === 'GET') return listItems(api, container, req.query);
  if (req.method !== 'POST') throw notAllowed();
  const data = dataParam(req.form, kind, true);
  const ttl = ttlParam(req.form, ['ItemTtl', 'Ttl']);
  // Checked before anything is written, so a bad one changes nothing.
  ttlParam(req.form, ['CollectionTtl']);
  const body: Json = { data, ...(ttl !== undefined ? { ttl } : {}) };
  api.state.takeWrite(container.sid);
  let item: ItemRow;
  if (kind === 'map') {
    const key = req.form.Key;
    if (key === undefined) throw missing('Key');
    try {
      maps.createItem(ctx, container.sid, v3('POST', { ...body, key }));
    } catch (e) {
      // The REST API answers an existing key 409 (the SDK's If-Match: -1 answers 412).
      if (e instanceof SyncRestError && e.code === 54208)
        throw fail(409, 54208, 'A Map Item with given key already exists in the Map');
      throw e;
    }
    item = api.core.store.q.mapItem.get(container.sid, key)!;
  } else {
    const made = lists.pushItem(ctx, container.sid, v3('POST', body)).body as { index: number };
    item = api.core.store.q.listItem.get(container.sid, made.index)!;
  }
  collectionTtl(api, container, req.form);
  return { status: 201, body: itemJson(api, objectBySid(api, container.sid), item) };
}

function listItems(api: Api, container: ObjectRow, query: Record<string, string>): ApiResponse {
  const kind = container.kind as 'list' | 'map';
  let from: number | string | undefined;
  let order: 'asc' | 'desc';
  let size: number;
  let exclusive = false;
  if (query.PageToken !== undefined)
    ({ from, order, size } = decodePageToken(query.PageToken, kind));
  else {
    order = parseOrder(query.Order);
    size = parsePageSize(query.PageSize);
    if (query.From !== undefined)
      from = kind === 'list' ? parseIndex(query.From, 'From') : query.From;
    const bounds = query.Bounds ?? 'inclusive';
    if (bounds !== 'inclusive' && bounds !== 'exclusive')
      throw fail(400, 20001, "Invalid parameter Bounds: must be 'inclusive' or 'exclusive'");
    exclusive = bounds === 'exclusive';
  }
  const col = kind === 'list' ? 'idx' : 'key';
  const cmp = (order === 'asc' ? '>' : '<') + (exclusive ? '' : '=');
  const rows = api.core.store.db
    .prepare<Record<string, unknown>, ItemRow>(
      `SELECT * FROM items WHERE object_sid = @sid AND (date_expires IS NULL OR date_expires > @now)
       ${from === undefined ? '' : `AND ${col} ${cmp} @from`}
       ORDER BY ${col} ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT @limit`,
    )
    .all({
      sid: container.sid,
      now: api.core.now(),
      limit: size + 1,
      ...(from === undefined ? {} : { from }),
    });
  const next = rows[size];
  const pageNo = /^\d{1,6}$/.test(query.Page ?? '') ? Number(query.Page) : 0;
  const passed: Record<string, string> = {};
  for (const name of ['Order', 'From', 'Bounds'])
    if (query[name] !== undefined) passed[name] = query[name];
  return {
    status: 200,
    body: page(
      `${objectUrl(api, container)}/Items`,
      'items',
      rows.slice(0, size).map((r) => itemJson(api, container, r)),
      {
        page: pageNo,
        pageSize: size,
        query: passed,
        next: next
          ? encodePageToken({ from: kind === 'list' ? next.idx : next.key, order, size })
          : null,
      },
    ),
  };
}

function itemRoute(
  api: Api,
  kind: 'list' | 'map',
  id: string,
  itemId: string,
  req: ApiRequest,
  notAllowed: () => SyncRestError,
): ApiResponse {
  const ctx = ctxOf(api);
  const container = findObject(ctx, kind, id);
  const collection = kind === 'list' ? lists.listCollection : maps.mapCollection;
  const find = (): ItemRow | undefined => {
    const row =
      kind === 'list'
        ? lists.listCollection.find(api.core, container.sid, lists.listCollection.parseId(itemId))
        : maps.mapCollection.find(api.core, container.sid, maps.mapCollection.parseId(itemId));
    return row && (row.date_expires === null || row.date_expires > api.core.now())
      ? row
      : undefined;
  };
  if (req.method === 'GET') {
    const row = find();
    if (!row)
      throw kind === 'list'
        ? lists.listCollection.missing(lists.listCollection.parseId(itemId))
        : maps.mapCollection.missing(itemId);
    return { status: 200, body: itemJson(api, container, row) };
  }
  if (req.method === 'DELETE') {
    api.state.takeWrite(container.sid);
    (kind === 'list' ? lists.deleteItem : maps.deleteItem)(
      ctx,
      container.sid,
      itemId,
      v3('DELETE', {}, req.ifMatch),
    );
    return { status: 204 };
  }
  if (req.method !== 'POST') throw notAllowed();
  const data = dataParam(req.form, kind, false);
  const ttl = ttlParam(req.form, ['ItemTtl', 'Ttl']);
  ttlParam(req.form, ['CollectionTtl']);
  api.state.takeWrite(container.sid);
  const body: Json = {
    ...(data !== undefined ? { data } : {}),
    ...(ttl !== undefined ? { ttl } : {}),
  };
  if (kind === 'list') lists.updateItem(ctx, container.sid, itemId, v3('POST', body, req.ifMatch));
  else maps.postItem(ctx, container.sid, itemId, v3('POST', body, req.ifMatch));
  collectionTtl(api, container, req.form);
  const row = find();
  // Written just now in this transaction: only a ttl already past could hide it.
  if (!row) throw collection.missing(collection.parseId(itemId) as never);
  return { status: 200, body: itemJson(api, objectBySid(api, container.sid), row) };
}

function permissionRoute(
  api: Api,
  kind: RestKind,
  id: string,
  identity: string | undefined,
  req: ApiRequest,
  notAllowed: () => SyncRestError,
): ApiResponse {
  const container = findObject(ctxOf(api), kind, id);
  const { q } = api.state;
  const url = `${objectUrl(api, container)}/Permissions`;
  if (identity === undefined) {
    if (req.method !== 'GET') throw notAllowed();
    const { size, page: pageNo, offset } = offsetPage(req.query);
    const rows = q.permissionsOf.all(container.sid, size + 1, offset);
    return {
      status: 200,
      body: page(
        url,
        'permissions',
        rows.slice(0, size).map((p) => permissionJson(api, container, p)),
        {
          page: pageNo,
          pageSize: size,
          query: {},
          next: rows.length > size ? `PO${offset + size}` : null,
        },
      ),
    };
  }
  if (identity === '') throw errors.notFound(`${url}/`);
  const held = q.permission.get(container.sid, identity);
  const missingPermission = () =>
    fail(404, 20404, `The requested resource ${new URL(url).pathname}/${identity} was not found`);
  if (req.method === 'GET') {
    if (!held) throw missingPermission();
    return { status: 200, body: permissionJson(api, container, held) };
  }
  if (req.method === 'DELETE') {
    if (!held) throw missingPermission();
    q.deletePermission.run(container.sid, identity);
    return { status: 204 };
  }
  if (req.method !== 'POST') throw notAllowed();
  const access = {
    read: boolParam(req.form, 'Read', true)!,
    write: boolParam(req.form, 'Write', true)!,
    manage: boolParam(req.form, 'Manage', true)!,
  };
  const row = {
    object_sid: container.sid,
    identity,
    read: access.read ? 1 : 0,
    write: access.write ? 1 : 0,
    manage: access.manage ? 1 : 0,
  };
  q.upsertPermission.run(row);
  return { status: 200, body: permissionJson(api, container, row) };
}
