/**
 * Live queries over map "indexes" (see rest/insights.ts). Held in memory only: after a restart a re-subscribe
 * answers `subscription_failed` 404 and the SDK reports the query removed. Each map item change is re-evaluated
 * against the queries on that map and turned into `live_query_item_updated` / `live_query_item_removed`.
 */
import type { SyncEvent } from './events';
import { matches, type Query } from './query-language';

export interface LiveQuery {
  id: string;
  mapSid: string;
  query: Query;
  lastEventId: number;
  /** Keys currently in the result set. */
  matched: Set<string>;
}

export class LiveQueries {
  private readonly byId = new Map<string, LiveQuery>();
  private readonly byMap = new Map<string, Set<LiveQuery>>();
  private static readonly max = 10_000;

  add(q: LiveQuery): void {
    if (this.byId.size >= LiveQueries.max) {
      // Oldest first: Map iteration order is insertion order.
      const oldest = this.byId.values().next().value;
      if (oldest) this.remove(oldest.id);
    }
    this.byId.set(q.id, q);
    let set = this.byMap.get(q.mapSid);
    if (!set) this.byMap.set(q.mapSid, (set = new Set()));
    set.add(q);
  }

  get(id: string): LiveQuery | undefined {
    return this.byId.get(id);
  }

  remove(id: string): void {
    const q = this.byId.get(id);
    if (!q) return;
    this.byId.delete(id);
    this.byMap.get(q.mapSid)?.delete(q);
  }

  /** Live query events caused by committed map events. */
  derive(events: SyncEvent[]): SyncEvent[] {
    const out: SyncEvent[] = [];
    for (const e of events) {
      if (!e.eventType.startsWith('map_')) continue;
      const queries = this.byMap.get(e.objectSid);
      if (!queries || queries.size === 0) continue;
      if (e.eventType === 'map_removed') {
        for (const q of queries) this.remove(q.id);
        continue;
      }
      const key = e.event.item_key as string;
      const id = e.event.id as number;
      for (const q of queries) {
        const match =
          e.eventType !== 'map_item_removed' && matches(q.query, { key, data: e.event.item_data });
        q.lastEventId += 1;
        if (match) {
          q.matched.add(key);
          out.push({
            objectSid: q.id,
            eventType: 'live_query_item_updated',
            event: {
              query_id: q.id,
              item_key: key,
              item_data: e.event.item_data,
              item_revision: id,
              last_event_id: q.lastEventId,
            },
          });
        } else if (q.matched.delete(key)) {
          out.push({
            objectSid: q.id,
            eventType: 'live_query_item_removed',
            event: {
              query_id: q.id,
              item_key: key,
              item_revision: id,
              last_event_id: q.lastEventId,
            },
          });
        }
      }
    }
    return out;
  }
}
