/** Row → JSON descriptor mapping, in the field shapes the SDK reads (protocol notes §4). */
import type { ObjectKind } from './errors';
import type { ItemRow, ObjectRow } from './store';
/**
 * The account and service the SDK's own REST answers name (it reads neither; Twilio's REST API,
 * twilio-api/, names the service the twin plays).
 */
const ACCOUNT_SID = 'AC00000000000000000000000000000000';
const SERVICE_SID = 'IS00000000000000000000000000000000';

export const sidPrefix: Record<ObjectKind, string> = {
  document: 'ET',
  list: 'ES',
  map: 'MP',
  stream: 'TO',
};
export const collection: Record<ObjectKind, string> = {
  document: 'Documents',
  list: 'Lists',
  map: 'Maps',
  stream: 'Streams',
};

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
export const rev = (n: number): string => n.toString(16);

export function objectUrl(base: string, o: Pick<ObjectRow, 'kind' | 'sid'>): string {
  return `${base}/v3/${collection[o.kind]}/${o.sid}`;
}

export function listItemUrl(base: string, listSid: string, index: number): string {
  return `${base}/v3/Lists/${listSid}/Items/${index}`;
}

export function mapItemUrl(base: string, mapSid: string, key: string): string {
  return `${base}/v3/Maps/${mapSid}/Items/${encodeURIComponent(key)}`;
}

export function parseData(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

export function objectDescriptor(base: string, o: ObjectRow): Record<string, unknown> {
  const url = objectUrl(base, o);
  const common = {
    sid: o.sid,
    unique_name: o.unique_name,
    account_sid: ACCOUNT_SID,
    service_sid: SERVICE_SID,
    url,
    date_created: iso(o.date_created),
    date_updated: iso(o.date_updated),
    date_expires: isoOrNull(o.date_expires),
    created_by: o.created_by,
  };
  switch (o.kind) {
    case 'document':
      return {
        ...common,
        revision: rev(o.revision),
        last_event_id: o.last_event_id,
        data: parseData(o.data),
      };
    case 'list':
      return {
        ...common,
        revision: rev(o.revision),
        last_event_id: o.last_event_id,
        links: { items: `${url}/Items`, context: `${url}/Context` },
      };
    case 'map':
      return {
        ...common,
        revision: rev(o.revision),
        last_event_id: o.last_event_id,
        links: { items: `${url}/Items` },
      };
    case 'stream':
      return { ...common, links: { messages: `${url}/Messages` } };
  }
}

export function itemDescriptor(
  base: string,
  kind: 'list' | 'map',
  i: ItemRow,
): Record<string, unknown> {
  const common = {
    account_sid: ACCOUNT_SID,
    service_sid: SERVICE_SID,
    revision: rev(i.revision),
    last_event_id: i.last_event_id,
    data: parseData(i.data),
    date_created: iso(i.date_created),
    date_updated: iso(i.date_updated),
    date_expires: isoOrNull(i.date_expires),
    created_by: i.created_by,
  };
  return kind === 'list'
    ? {
        index: i.idx,
        list_sid: i.object_sid,
        url: listItemUrl(base, i.object_sid, i.idx),
        ...common,
      }
    : { key: i.key, map_sid: i.object_sid, url: mapItemUrl(base, i.object_sid, i.key), ...common };
}
