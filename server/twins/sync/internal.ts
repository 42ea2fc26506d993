/**
 * Server-side writes to the embedded Sync service, for data the server owns (the `users` directory,
 * presence clean-up). Every write goes through the same REST handlers a tunnelled SDK request
 * reaches, so it is validated, committed in one transaction, logged with its event id and fanned out
 * to subscribers exactly like a client's write. Requests made here bypass the connection-level write
 * policy (see policy.ts): that policy exists to keep clients away from server-owned objects.
 */
import type { Core } from './core';
import { SyncRestError } from './errors';
import type { Subscriber } from './events';
import { limits } from './limits';
import type { Ctx, RestRequest } from './rest/context';
import { route } from './rest/router';

/**
 * The identity recorded as `created_by` for server writes. Real identities are email addresses, so
 * a name without `@` can never belong to a signed-in person.
 */
export const SERVER_IDENTITY = 'switchboard-server';

export interface InternalSync {
  /** Creates the map unless it exists (so clients that may not create it can open it). */
  ensureMap(name: string): void;
  /** Creates the list unless it exists (so clients that may not create it can open it). */
  ensureList(name: string): void;
  /** Creates the document, empty, unless it exists (so clients that may not create it can open it). */
  ensureDocument(name: string): void;
  /** Appends one item to a list, creating the list on first use; returns its index. */
  pushListItem(list: string, data: Record<string, unknown>, ttlSeconds?: number): number;
  /** Replaces one list item's data (its ttl kept); false when the list or the item is gone. */
  updateListItem(list: string, index: number, data: Record<string, unknown>): boolean;
  /**
   * Every live (unexpired) item of a list, in index order (`desc`: the newest first), at most
   * `limit`; empty when it does not exist.
   */
  listItems(list: string, limit?: number, order?: 'asc' | 'desc'): Record<string, unknown>[];
  /** Any REST request as the server (test hooks only): status and body, errors included. */
  asServer(method: string, path: string, body?: unknown): { status: number; body?: unknown };
  /** Upserts one map item, creating the map on first use. */
  setMapItem(map: string, key: string, data: Record<string, unknown>, ttlSeconds?: number): void;
  /** Removes one map item; false when the map or the item did not exist. */
  removeMapItem(map: string, key: string): boolean;
  /** One live item's data, or undefined when the map or item is missing or expired. */
  getMapItem(map: string, key: string): Record<string, unknown> | undefined;
  /** Every live (unexpired) item of a map, by key; empty when the map does not exist. */
  mapItems(map: string): Map<string, Record<string, unknown>>;
  /** A live document's data, or undefined when it is missing or expired. */
  documentData(name: string): Record<string, unknown> | undefined;
}

const nobody: Subscriber & { subscriptions: Map<string, string>; readonly open: boolean } = {
  notify() {},
  subscriptions: new Map(),
  open: false,
};

export function createInternalSync(core: Core): InternalSync {
  const ctx: Ctx = {
    core,
    base: 'http://switchboard.internal',
    identity: SERVER_IDENTITY,
    conn: nobody,
  };

  const request = (method: string, segments: string[], body?: unknown): unknown =>
    route(ctx, { method, segments, params: {}, headers: {}, body } satisfies RestRequest).body;

  const isStatus = (e: unknown, status: number): boolean =>
    e instanceof SyncRestError && e.status === status;

  const COLLECTIONS = { map: 'Maps', list: 'Lists', document: 'Documents' } as const;
  function ensure(kind: 'map' | 'list' | 'document', name: string): void {
    if (core.store.q.objectByName.get(kind, name)) return;
    try {
      const body = kind === 'document' ? { unique_name: name, data: {} } : { unique_name: name };
      request('POST', ['v3', COLLECTIONS[kind]], body);
    } catch (e) {
      // Someone created it between the lookup and the create: it exists, which is all we need.
      if (!isStatus(e, 409)) throw e;
    }
  }
  const ensureMap = (name: string): void => ensure('map', name);
  const ensureList = (name: string): void => ensure('list', name);

  return {
    ensureMap,
    ensureList,
    ensureDocument: (name) => ensure('document', name),
    pushListItem(list, data, ttlSeconds) {
      ensureList(list);
      const body = ttlSeconds === undefined ? { data } : { data, ttl: ttlSeconds };
      const item = request('POST', ['v3', 'Lists', list, 'Items'], body) as { index: number };
      return item.index;
    },
    updateListItem(list, index, data) {
      try {
        request('POST', ['v3', 'Lists', list, 'Items', String(index)], { data });
        return true;
      } catch (e) {
        if (isStatus(e, 404)) return false;
        throw e;
      }
    },
    listItems(list, limit = 10_000, order = 'asc') {
      const out: Record<string, unknown>[] = [];
      const obj = core.store.q.objectByName.get('list', list);
      if (!obj) return out;
      let from: number | undefined;
      while (out.length < limit) {
        const rows = core.store.queryItems(obj.sid, 'list', {
          order,
          limit: Math.min(limits.maxPageSize, limit - out.length),
          now: core.now(),
          ...(from !== undefined ? { from } : {}),
        });
        for (const row of rows) out.push(JSON.parse(row.data) as Record<string, unknown>);
        const last = rows.at(-1);
        if (!last || rows.length < limits.maxPageSize) break;
        from = order === 'asc' ? last.idx + 1 : last.idx - 1;
      }
      return out;
    },
    asServer(method, path, body) {
      try {
        return route(ctx, {
          method,
          segments: path.split('/').filter(Boolean),
          params: {},
          headers: {},
          body,
        });
      } catch (e) {
        if (e instanceof SyncRestError) return { status: e.status, body: e.body() };
        throw e;
      }
    },
    setMapItem(map, key, data, ttlSeconds) {
      ensureMap(map);
      const body = ttlSeconds === undefined ? { data } : { data, ttl: ttlSeconds };
      try {
        request('PUT', ['v3', 'Maps', map, 'Items', key], body);
      } catch (e) {
        // The map expired or was removed since ensureMap: make it again, once.
        if (!isStatus(e, 404)) throw e;
        ensureMap(map);
        request('PUT', ['v3', 'Maps', map, 'Items', key], body);
      }
    },
    removeMapItem(map, key) {
      try {
        request('DELETE', ['v3', 'Maps', map, 'Items', key]);
        return true;
      } catch (e) {
        if (isStatus(e, 404)) return false;
        throw e;
      }
    },
    documentData(name) {
      const obj = core.store.q.objectByName.get('document', name);
      if (!obj || (obj.date_expires !== null && obj.date_expires <= core.now())) return undefined;
      const data = JSON.parse(obj.data) as unknown;
      return typeof data === 'object' && data !== null && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : undefined;
    },
    getMapItem(map, key) {
      const obj = core.store.q.objectByName.get('map', map);
      const row = obj && core.store.q.mapItem.get(obj.sid, key);
      if (!row || (row.date_expires !== null && row.date_expires <= core.now())) return undefined;
      return JSON.parse(row.data) as Record<string, unknown>;
    },
    mapItems(map) {
      const out = new Map<string, Record<string, unknown>>();
      const obj = core.store.q.objectByName.get('map', map);
      if (!obj) return out;
      let from: string | undefined;
      for (;;) {
        const rows = core.store.queryItems(obj.sid, 'map', {
          order: 'asc',
          limit: limits.maxPageSize,
          now: core.now(),
          ...(from !== undefined ? { from } : {}),
        });
        for (const row of rows) {
          if (row.key === from) continue;
          out.set(row.key, JSON.parse(row.data) as Record<string, unknown>);
        }
        const last = rows.at(-1);
        if (rows.length < limits.maxPageSize || !last) return out;
        from = last.key;
      }
    },
  };
}
