/**
 * Twilio's JSON for the Sync REST API's resources (snake_case, absolute `https://sync.twilio.com`
 * URLs, dates in ISO 8601 without milliseconds) and its page envelope (`meta` with `key`,
 * `next_page_url`, …), as the resource pages document them:
 * https://www.twilio.com/docs/sync/api/map-resource, …/map-item-resource, …/list-resource,
 * …/listitem-resource, …/document-resource, …/document-permission-resource, …/service,
 * …/stream-resource, …/stream-message-resource.
 */
import { iso, parseData, rev } from '../model';
import type { ItemRow, ObjectRow } from '../store';
import type { PermissionRow, ServiceRow } from './state';

export const TWILIO_SYNC_ORIGIN = 'https://sync.twilio.com';

export type Json = Record<string, unknown>;
/** The kinds that hold data (and Permissions). */
export type RestKind = 'document' | 'list' | 'map';
/** Every kind the REST API names; Message Streams hold nothing and have no Permissions. */
export type ApiKind = RestKind | 'stream';

/** The path segment of each kind's collection. */
export const COLLECTION: Record<ApiKind, string> = {
  document: 'Documents',
  list: 'Lists',
  map: 'Maps',
  stream: 'Streams',
};
/** The `meta.key` of each kind's page. */
const PAGE_KEY: Record<ApiKind, string> = {
  document: 'documents',
  list: 'lists',
  map: 'maps',
  stream: 'streams',
};

/** Twilio writes dates as `2015-07-30T20:00:00Z`. */
export const date = (ms: number): string => iso(ms).replace(/\.\d{3}Z$/, 'Z');
const dateOrNull = (ms: number | null): string | null => (ms === null ? null : date(ms));

export interface Names {
  accountSid: string;
  serviceSid: string;
}

export const serviceUrl = (n: Names): string => `${TWILIO_SYNC_ORIGIN}/v1/Services/${n.serviceSid}`;
export const objectUrl = (n: Names, o: Pick<ObjectRow, 'kind' | 'sid'>): string =>
  `${serviceUrl(n)}/${COLLECTION[o.kind]}/${o.sid}`;

export function serviceJson(n: Names, s: ServiceRow): Json {
  const url = serviceUrl(n);
  return {
    sid: s.sid,
    unique_name: null,
    account_sid: n.accountSid,
    friendly_name: s.friendly_name,
    date_created: date(s.date_created),
    date_updated: date(s.date_updated),
    url,
    webhook_url: s.webhook_url,
    webhooks_from_rest_enabled: s.webhooks_from_rest_enabled === 1,
    reachability_webhooks_enabled: s.reachability_webhooks_enabled === 1,
    acl_enabled: s.acl_enabled === 1,
    reachability_debouncing_enabled: false,
    reachability_debouncing_window: 5000,
    links: {
      documents: `${url}/Documents`,
      sync_lists: `${url}/Lists`,
      sync_maps: `${url}/Maps`,
      sync_streams: `${url}/Streams`,
    },
  };
}

export function objectJson(n: Names, o: ObjectRow): Json {
  const url = objectUrl(n, o);
  const common = {
    sid: o.sid,
    unique_name: o.unique_name,
    account_sid: n.accountSid,
    service_sid: n.serviceSid,
    url,
    revision: rev(o.revision),
    date_expires: dateOrNull(o.date_expires),
    date_created: date(o.date_created),
    date_updated: date(o.date_updated),
    created_by: o.created_by,
  };
  if (o.kind === 'document')
    return { ...common, data: parseData(o.data), links: { permissions: `${url}/Permissions` } };
  if (o.kind === 'stream') {
    const { revision: _revision, ...stream } = common;
    return { ...stream, links: { stream_messages: `${url}/Messages` } };
  }
  return { ...common, links: { items: `${url}/Items`, permissions: `${url}/Permissions` } };
}

export function itemJson(n: Names, container: ObjectRow, i: ItemRow): Json {
  const list = container.kind === 'list';
  const id = list ? String(i.idx) : encodeURIComponent(i.key);
  return {
    ...(list ? { index: i.idx } : { key: i.key }),
    account_sid: n.accountSid,
    service_sid: n.serviceSid,
    [list ? 'list_sid' : 'map_sid']: container.sid,
    url: `${objectUrl(n, container)}/Items/${id}`,
    revision: rev(i.revision),
    data: parseData(i.data),
    date_expires: dateOrNull(i.date_expires),
    date_created: date(i.date_created),
    date_updated: date(i.date_updated),
    created_by: i.created_by,
  };
}

export function permissionJson(n: Names, container: ObjectRow, p: PermissionRow): Json {
  return {
    account_sid: n.accountSid,
    service_sid: n.serviceSid,
    [`${container.kind}_sid`]: container.sid,
    identity: p.identity,
    read: p.read === 1,
    write: p.write === 1,
    manage: p.manage === 1,
    url: `${objectUrl(n, container)}/Permissions/${encodeURIComponent(p.identity)}`,
  };
}

/**
 * Twilio's page: the records under `key` and `meta` with absolute page URLs (the `twilio` package
 * follows `next_page_url` to read on).
 */
export function page(
  url: string,
  key: string,
  records: Json[],
  p: { page: number; pageSize: number; query: Record<string, string>; next: string | null },
): Json {
  const at = (extra: Record<string, string>): string =>
    `${url}?${new URLSearchParams({ ...p.query, PageSize: String(p.pageSize), ...extra }).toString()}`;
  return {
    [key]: records,
    meta: {
      page: p.page,
      page_size: p.pageSize,
      first_page_url: at({ Page: '0' }),
      previous_page_url: null,
      url: at({ Page: String(p.page) }),
      next_page_url: p.next === null ? null : at({ Page: String(p.page + 1), PageToken: p.next }),
      key,
    },
  };
}

export const pageKey = (kind: ApiKind): string => PAGE_KEY[kind];
