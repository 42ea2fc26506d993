/**
 * Twilio Sync through its REST API (`client.sync.v1.services(sid)…` of the `twilio` package): what
 * the server reads to route calls (groups, hours, holidays, forwarding, announcements, presence,
 * do not disturb) and writes because only it may (the `users` directory, the `calls` history).
 * Objects are addressed by unique name, as the browser opens them. A missing object or item reads as
 * null; writing an item into a map or list that does not exist yet creates it first.
 */
import type { SaveAnswer } from '../../src/contracts/api';
import type { JsonObject } from '../../src/contracts/record';
import type { TwilioClient } from './client';

export interface StoredMapItem {
  data: JsonObject;
  /** Epoch ms when Twilio deletes it (its ttl), or null. */
  expiresAt: number | null;
}

/** What the app asks of Twilio's Sync service, through its REST API (the `twilio` package). */
export interface SyncRest {
  mapItems(map: string): Promise<Map<string, StoredMapItem>>;
  /** The item with its revision (for {@link SyncRest.updateMapItemIf}), or null. */
  getMapItem(map: string, key: string): Promise<(StoredMapItem & { revision: string }) | null>;
  /** Creates or replaces the item; `ttlSeconds` sets its expiry (0 or absent: none). */
  setMapItem(map: string, key: string, data: JsonObject, ttlSeconds?: number): Promise<void>;
  /**
   * Replaces an item's data only if it is still at `revision` (If-Match, keeping its ttl):
   * 'changed' when someone wrote it since (Twilio's 412; nothing written), 'gone' when it is gone.
   */
  updateMapItemIf(
    map: string,
    key: string,
    data: JsonObject,
    revision: string,
    ttlSeconds?: number,
  ): Promise<'written' | 'changed' | 'gone'>;
  /** Creates the item unless one of that key exists ('exists': Twilio's 409; nothing written). */
  createMapItem(
    map: string,
    key: string,
    data: JsonObject,
    ttlSeconds?: number,
  ): Promise<'created' | 'exists'>;
  /** Gives the item `ttlSeconds` more to live, its data untouched; 'gone' when there is none. */
  touchMapItem(map: string, key: string, ttlSeconds: number): Promise<'written' | 'gone'>;
  /**
   * Replaces the item with `data` only if it still holds `base` (what an edit started from, compared
   * as the browser's editors compare it), written with If-Match on the revision read; otherwise the
   * answer is what it holds now (null: it is gone), and nothing is written.
   */
  replaceMapItemIf(
    map: string,
    key: string,
    base: JsonObject,
    data: JsonObject,
  ): Promise<SaveAnswer>;
  /** Nothing when it is already gone. */
  removeMapItem(map: string, key: string): Promise<void>;
  /** A document's data, or null when there is none. */
  document(name: string): Promise<JsonObject | null>;
  /** Every document whose unique name starts with `prefix`: its data by unique name. */
  documents(prefix: string): Promise<Map<string, JsonObject>>;
  /** Every item of a list, oldest first or newest first (at most `limit`). */
  listItems(
    list: string,
    limit?: number,
    order?: 'asc' | 'desc',
  ): Promise<{ index: number; data: JsonObject }[]>;
  /** Appends an item (Twilio deletes it after `ttlSeconds`, when given); resolves with its index. */
  pushListItem(list: string, data: JsonObject, ttlSeconds?: number): Promise<number>;
  /** Replaces an item's data; its ttl stays as it was (Sync's ttl does not move with updates). */
  updateListItem(list: string, index: number, data: JsonObject): Promise<void>;
  /** Nothing when it is already gone. */
  removeListItem(list: string, index: number): Promise<void>;
  /** A list item with its revision, or null. */
  getListItem(list: string, index: number): Promise<{ data: JsonObject; revision: string } | null>;
  /** As {@link SyncRest.updateMapItemIf}, for a list item. */
  updateListItemIf(
    list: string,
    index: number,
    data: JsonObject,
    revision: string,
  ): Promise<'written' | 'changed' | 'gone'>;
  /** A document's data with its revision, or null. */
  getDocument(name: string): Promise<{ data: JsonObject; revision: string } | null>;
  /** As {@link SyncRest.updateMapItemIf}, for a document's data. */
  updateDocumentIf(
    name: string,
    data: JsonObject,
    revision: string,
  ): Promise<'written' | 'changed' | 'gone'>;
  ensureMap(name: string): Promise<void>;
  ensureList(name: string): Promise<void>;
}

/** Twilio's REST errors carry the HTTP status. */
export function restStatus(err: unknown): number | null {
  return typeof err === 'object' &&
    err !== null &&
    typeof (err as { status?: unknown }).status === 'number'
    ? (err as { status: number }).status
    : null;
}

const notFound = (err: unknown): boolean => restStatus(err) === 404;
const conflict = (err: unknown): boolean => restStatus(err) === 409;

/**
 * The package puts keys into the path as they are: characters that would end or change a path
 * segment are escaped (identities are emails; `@` and `.` stay as they are).
 */
export function pathKey(key: string): string {
  return key.replace(/[^A-Za-z0-9@._~!$&'()*+,;=:-]/g, (c) => encodeURIComponent(c));
}

const asObject = (data: unknown): JsonObject =>
  typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as JsonObject) : {};

/** Reads and conditional writes before a save gives up on an item that keeps changing. */
const REPLACE_TRIES = 5;

/**
 * A write with If-Match (https://www.twilio.com/docs/sync/api/map-item-resource, `ifMatch`):
 * 'changed' when Twilio answers 412 (someone wrote it since; nothing written), 'gone' on 404.
 */
async function conditionally(
  write: () => Promise<unknown>,
): Promise<'written' | 'changed' | 'gone'> {
  try {
    await write();
    return 'written';
  } catch (err) {
    if (notFound(err)) return 'gone';
    if (restStatus(err) === 412) return 'changed';
    throw err;
  }
}

export function createSyncRest(client: TwilioClient, serviceSid: string): SyncRest {
  const service = () => client.sync.v1.services(serviceSid);
  const map = (name: string) => service().syncMaps(pathKey(name));
  const list = (name: string) => service().syncLists(pathKey(name));

  async function ensureMap(name: string): Promise<void> {
    try {
      await service().syncMaps.create({ uniqueName: name });
    } catch (err) {
      if (!conflict(err)) throw err;
    }
  }
  async function ensureList(name: string): Promise<void> {
    try {
      await service().syncLists.create({ uniqueName: name });
    } catch (err) {
      if (!conflict(err)) throw err;
    }
  }

  const rest: SyncRest = {
    ensureMap,
    ensureList,
    async mapItems(name) {
      const out = new Map<string, StoredMapItem>();
      try {
        for (const item of await map(name).syncMapItems.list({ pageSize: 100 }))
          out.set(item.key, {
            data: asObject(item.data),
            expiresAt: item.dateExpires ? item.dateExpires.getTime() : null,
          });
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      return out;
    },
    async getMapItem(name, key) {
      try {
        const item = await map(name).syncMapItems(pathKey(key)).fetch();
        return {
          data: asObject(item.data),
          expiresAt: item.dateExpires ? item.dateExpires.getTime() : null,
          revision: item.revision,
        };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    updateMapItemIf: (name, key, data, revision, ttlSeconds) =>
      conditionally(() =>
        map(name)
          .syncMapItems(pathKey(key))
          .update({
            data,
            ifMatch: revision,
            ...(ttlSeconds === undefined ? {} : { ttl: ttlSeconds }),
          }),
      ),
    async createMapItem(name, key, data, ttlSeconds) {
      const ttl = ttlSeconds === undefined ? {} : { ttl: ttlSeconds };
      const create = () => map(name).syncMapItems.create({ key, data, ...ttl });
      try {
        await create();
        return 'created';
      } catch (err) {
        if (conflict(err)) return 'exists';
        if (!notFound(err)) throw err;
      }
      await ensureMap(name);
      try {
        await create();
        return 'created';
      } catch (err) {
        if (conflict(err)) return 'exists';
        throw err;
      }
    },
    async touchMapItem(name, key, ttlSeconds) {
      try {
        await map(name).syncMapItems(pathKey(key)).update({ ttl: ttlSeconds });
        return 'written';
      } catch (err) {
        if (notFound(err)) return 'gone';
        throw err;
      }
    },
    async replaceMapItemIf(name, key, base, data) {
      for (let tries = 0; tries < REPLACE_TRIES; tries++) {
        const current = await rest.getMapItem(name, key);
        if (!current) return { ok: false, current: null };
        if (JSON.stringify(current.data) !== JSON.stringify(base))
          return { ok: false, current: current.data };
        const done = await rest.updateMapItemIf(name, key, data, current.revision);
        if (done === 'written') return { ok: true };
      }
      throw new Error(`${name}/${key} kept changing while it was being saved`);
    },
    async setMapItem(name, key, data, ttlSeconds) {
      const ttl = ttlSeconds === undefined ? {} : { ttl: ttlSeconds };
      try {
        await map(name)
          .syncMapItems(pathKey(key))
          .update({ data, ...ttl });
        return;
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      const create = () => map(name).syncMapItems.create({ key, data, ...ttl });
      try {
        await create();
      } catch (err) {
        if (conflict(err)) {
          // Someone created it meanwhile: this write still wins, as an update would have.
          await map(name)
            .syncMapItems(pathKey(key))
            .update({ data, ...ttl });
        } else if (notFound(err)) {
          await ensureMap(name);
          await create();
        } else throw err;
      }
    },
    async removeMapItem(name, key) {
      try {
        await map(name).syncMapItems(pathKey(key)).remove();
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    },
    async document(name) {
      try {
        return asObject((await service().documents(pathKey(name)).fetch()).data);
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async documents(prefix) {
      const out = new Map<string, JsonObject>();
      for (const doc of await service().documents.list({ pageSize: 100 }))
        if (doc.uniqueName?.startsWith(prefix)) out.set(doc.uniqueName, asObject(doc.data));
      return out;
    },
    async listItems(name, limit = 1000, order = 'asc') {
      try {
        return (await list(name).syncListItems.list({ pageSize: 100, limit, order })).map(
          (item) => ({
            index: item.index,
            data: asObject(item.data),
          }),
        );
      } catch (err) {
        if (notFound(err)) return [];
        throw err;
      }
    },
    async pushListItem(name, data, ttlSeconds) {
      const item = ttlSeconds === undefined ? { data } : { data, ttl: ttlSeconds };
      try {
        return (await list(name).syncListItems.create(item)).index;
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      await ensureList(name);
      return (await list(name).syncListItems.create(item)).index;
    },
    async removeListItem(name, index) {
      try {
        await list(name).syncListItems(index).remove();
      } catch (err) {
        if (!notFound(err)) throw err;
      }
    },
    async getListItem(name, index) {
      try {
        const item = await list(name).syncListItems(index).fetch();
        return { data: asObject(item.data), revision: item.revision };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    updateListItemIf: (name, index, data, revision) =>
      conditionally(() => list(name).syncListItems(index).update({ data, ifMatch: revision })),
    async getDocument(name) {
      try {
        const doc = await service().documents(pathKey(name)).fetch();
        return { data: asObject(doc.data), revision: doc.revision };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    updateDocumentIf: (name, data, revision) =>
      conditionally(() => service().documents(pathKey(name)).update({ data, ifMatch: revision })),
    async updateListItem(name, index, data) {
      await list(name).syncListItems(index).update({ data });
    },
  };
  return rest;
}
