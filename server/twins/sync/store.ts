/**
 * SQLite persistence (better-sqlite3, WAL, synchronous=FULL): objects, list items, map items and the per-object
 * event log. Every mutation runs inside `store.tx()`, so a reply is only sent after its transaction committed.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { ObjectKind } from './errors';

export interface ObjectRow {
  sid: string;
  kind: ObjectKind;
  unique_name: string | null;
  /** Document data, or a list's context, as JSON. */
  data: string;
  revision: number;
  last_event_id: number;
  next_index: number;
  context_event_id: number;
  date_created: number;
  date_updated: number;
  date_expires: number | null;
  created_by: string;
}

export interface ItemRow {
  object_sid: string;
  /** List index (lists) or 0 (maps). */
  idx: number;
  /** Map key (maps) or '' (lists). */
  key: string;
  data: string;
  revision: number;
  last_event_id: number;
  date_created: number;
  date_updated: number;
  date_expires: number | null;
  created_by: string;
}

export interface EventRow {
  object_sid: string;
  id: number;
  event_type: string;
  payload: string;
}

const schema = `
CREATE TABLE IF NOT EXISTS objects (
  sid TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  unique_name TEXT,
  data TEXT NOT NULL DEFAULT '{}',
  revision INTEGER NOT NULL DEFAULT 0,
  last_event_id INTEGER NOT NULL DEFAULT 0,
  next_index INTEGER NOT NULL DEFAULT 0,
  context_event_id INTEGER NOT NULL DEFAULT 0,
  date_created INTEGER NOT NULL,
  date_updated INTEGER NOT NULL,
  date_expires INTEGER,
  created_by TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS objects_unique_name ON objects(kind, unique_name) WHERE unique_name IS NOT NULL;
CREATE INDEX IF NOT EXISTS objects_expiry ON objects(date_expires) WHERE date_expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS items (
  object_sid TEXT NOT NULL,
  idx INTEGER NOT NULL,
  key TEXT NOT NULL,
  data TEXT NOT NULL,
  revision INTEGER NOT NULL,
  last_event_id INTEGER NOT NULL,
  date_created INTEGER NOT NULL,
  date_updated INTEGER NOT NULL,
  date_expires INTEGER,
  created_by TEXT NOT NULL,
  PRIMARY KEY (object_sid, idx, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_expiry ON items(date_expires) WHERE date_expires IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_object_expiry ON items(object_sid, date_expires) WHERE date_expires IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_by_key ON items(object_sid, key);
CREATE TABLE IF NOT EXISTS events (
  object_sid TEXT NOT NULL,
  id INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (object_sid, id)
) WITHOUT ROWID;
`;

export type Store = ReturnType<typeof openStore>;

export function openStore(dataDir: string) {
  const db = new Database(join(dataDir, 'sync.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(schema);

  const q = {
    objectBySid: db.prepare<[string], ObjectRow>('SELECT * FROM objects WHERE sid = ?'),
    objectByName: db.prepare<[string, string], ObjectRow>(
      'SELECT * FROM objects WHERE kind = ? AND unique_name = ?',
    ),
    insertObject: db.prepare<ObjectRow>(
      `INSERT INTO objects (sid, kind, unique_name, data, revision, last_event_id, next_index, context_event_id,
        date_created, date_updated, date_expires, created_by)
       VALUES (@sid, @kind, @unique_name, @data, @revision, @last_event_id, @next_index, @context_event_id,
        @date_created, @date_updated, @date_expires, @created_by)`,
    ),
    updateObject: db.prepare<ObjectRow>(
      `UPDATE objects SET data = @data, revision = @revision, last_event_id = @last_event_id, next_index = @next_index,
        context_event_id = @context_event_id, date_updated = @date_updated, date_expires = @date_expires WHERE sid = @sid`,
    ),
    deleteObject: db.prepare<[string]>('DELETE FROM objects WHERE sid = ?'),
    deleteItemsOf: db.prepare<[string]>('DELETE FROM items WHERE object_sid = ?'),
    deleteEventsOf: db.prepare<[string]>('DELETE FROM events WHERE object_sid = ?'),
    listItem: db.prepare<[string, number], ItemRow>(
      "SELECT * FROM items WHERE object_sid = ? AND idx = ? AND key = ''",
    ),
    mapItem: db.prepare<[string, string], ItemRow>(
      'SELECT * FROM items WHERE object_sid = ? AND idx = 0 AND key = ?',
    ),
    upsertItem: db.prepare<ItemRow>(
      `INSERT INTO items (object_sid, idx, key, data, revision, last_event_id, date_created, date_updated, date_expires, created_by)
       VALUES (@object_sid, @idx, @key, @data, @revision, @last_event_id, @date_created, @date_updated, @date_expires, @created_by)
       ON CONFLICT (object_sid, idx, key) DO UPDATE SET data = excluded.data, revision = excluded.revision,
        last_event_id = excluded.last_event_id, date_updated = excluded.date_updated, date_expires = excluded.date_expires`,
    ),
    deleteItem: db.prepare<[string, number, string]>(
      'DELETE FROM items WHERE object_sid = ? AND idx = ? AND key = ?',
    ),
    insertEvent: db.prepare<EventRow>(
      'INSERT INTO events (object_sid, id, event_type, payload) VALUES (@object_sid, @id, @event_type, @payload)',
    ),
    eventsAfter: db.prepare<[string, number], EventRow>(
      'SELECT * FROM events WHERE object_sid = ? AND id > ? ORDER BY id',
    ),
    expiredObjects: db.prepare<[number], ObjectRow>(
      'SELECT * FROM objects WHERE date_expires IS NOT NULL AND date_expires <= ? LIMIT 200',
    ),
    expiredItems: db.prepare<[number], ItemRow>(
      'SELECT * FROM items WHERE date_expires IS NOT NULL AND date_expires <= ? LIMIT 500',
    ),
    expiredItemsOf: db.prepare<[string, number], ItemRow>(
      'SELECT * FROM items WHERE object_sid = ? AND date_expires IS NOT NULL AND date_expires <= ?',
    ),
  };

  const cache = new Map<string, Database.Statement>();
  const prepared = (sql: string): Database.Statement => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare(sql)));
    return st;
  };

  return {
    db,
    q,
    tx<T>(fn: () => T): T {
      return db.transaction(fn).immediate();
    },
    /** Items of one object in index (lists) or key (maps) order; bounds are inclusive; `now` hides expired. */
    queryItems(
      objectSid: string,
      kind: 'list' | 'map',
      opts: { from?: number | string; order: 'asc' | 'desc'; limit: number; now: number },
    ): ItemRow[] {
      const col = kind === 'list' ? 'idx' : 'key';
      const dir = opts.order === 'asc' ? 'ASC' : 'DESC';
      const cmp = opts.order === 'asc' ? '>=' : '<=';
      const where = ['object_sid = @sid', '(date_expires IS NULL OR date_expires > @now)'];
      if (opts.from !== undefined) where.push(`${col} ${cmp} @from`);
      const sql = `SELECT * FROM items WHERE ${where.join(' AND ')} ORDER BY ${col} ${dir} LIMIT @limit`;
      return (prepared(sql) as Database.Statement<Record<string, unknown>, ItemRow>).all({
        sid: objectSid,
        now: opts.now,
        limit: opts.limit,
        ...(opts.from !== undefined ? { from: opts.from } : {}),
      });
    },
    /** Whether any visible item lies strictly beyond `bound` in the given direction. */
    hasItemBeyond(
      objectSid: string,
      kind: 'list' | 'map',
      bound: number | string,
      beyond: 'after' | 'before',
      now: number,
    ): boolean {
      const col = kind === 'list' ? 'idx' : 'key';
      const cmp = beyond === 'after' ? '>' : '<';
      const sql = `SELECT 1 FROM items WHERE object_sid = @sid AND (date_expires IS NULL OR date_expires > @now) AND ${col} ${cmp} @bound LIMIT 1`;
      return prepared(sql).get({ sid: objectSid, now, bound }) !== undefined;
    },
    close(): void {
      if (db.open) db.close();
    },
  };
}
