/**
 * `POST /v3/Insights/{index}/Items` with `{query_string, type?}`. An index is the Sync Map with that unique name
 * (or SID); a missing map is an empty index. `type: "live_query"` also registers a live query.
 */
import { randomBytes } from 'node:crypto';
import { errors } from '../errors';
import { limits } from '../limits';
import { parseData } from '../model';
import { matches, parseQuery, QuerySyntaxError, type Query } from '../query-language';
import { bodyObject, type Ctx, type RestRequest, type RestResponse } from './context';

export function insightsQuery(ctx: Ctx, index: string, req: RestRequest): RestResponse {
  const body = bodyObject(req.body);
  let query: Query;
  try {
    query = parseQuery(body.query_string);
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw errors.invalidQuery();
    throw e;
  }
  if (body.type !== undefined && body.type !== 'live_query')
    throw errors.invalidParam('type', "must be 'live_query' or absent");
  const { q } = ctx.core.store;
  const map = q.objectBySid.get(index) ?? q.objectByName.get('map', index);
  const now = ctx.core.now();
  const items: Array<{ key: string; data: Record<string, unknown>; revision: number }> = [];
  if (map && map.kind === 'map') {
    const rows = ctx.core.store.db
      .prepare<[string, number], { key: string; data: string; last_event_id: number }>(
        'SELECT key, data, last_event_id FROM items WHERE object_sid = ? AND (date_expires IS NULL OR date_expires > ?) ORDER BY key',
      )
      .iterate(map.sid, now);
    for (const r of rows) {
      const data = parseData(r.data);
      if (matches(query, { key: r.key, data }))
        items.push({ key: r.key, data, revision: r.last_event_id });
      if (items.length >= limits.maxQueryResults) break;
    }
  }
  if (body.type !== 'live_query') return { status: 200, body: { items } };
  const queryId = 'QY' + randomBytes(16).toString('hex');
  if (map && map.kind === 'map') {
    ctx.core.liveQueries.add({
      id: queryId,
      mapSid: map.sid,
      query,
      lastEventId: 0,
      matched: new Set(items.map((i) => i.key)),
    });
  }
  return { status: 200, body: { query_id: queryId, last_event_id: 0, items } };
}
