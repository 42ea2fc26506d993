/**
 * The transactional core shared by the REST handlers and the expiry sweep: every mutation goes through
 * `commit()`, which runs it in one SQLite transaction, records its events in the log with per-object increasing
 * ids, and hands the events to the hub only after the commit (delivery itself is deferred by the hub).
 */
import type { ObjectKind } from './errors';
import { EventHub, type EventOrigin, type Subscriber, type SyncEvent } from './events';
import { LiveQueries } from './live-queries';
import { iso, parseData, rev } from './model';
import type { ItemRow, ObjectRow, Store } from './store';

export interface Emit {
  /** Stores the event (id = next per-object id, already assigned by the caller) and queues its delivery. */
  logged(
    obj: ObjectRow,
    eventType: string,
    event: Record<string, unknown>,
    skip?: Subscriber,
  ): void;
  /** Queues a delivery that is not logged (object creations and removals, stream messages). */
  transient(
    objectSid: string,
    eventType: string,
    event: Record<string, unknown>,
    skip?: Subscriber,
    /** The object's unique name and revision, when the event does not carry them (a removal). */
    subject?: SyncEvent['subject'],
  ): void;
}

export class Core {
  readonly hub: EventHub;
  /** Events of the batch in progress (see `batch`), published after its COMMIT. */
  private pending: SyncEvent[] | null = null;
  readonly liveQueries = new LiveQueries();
  /** Who the request being run is (stamped on its events), or undefined (expiries, the server's own). */
  private actor: EventOrigin | undefined;
  /** Told every committed change after its COMMIT (the Sync webhooks, twilio-api/webhooks.ts). */
  private readonly watchers = new Set<(events: readonly SyncEvent[]) => void>();

  constructor(
    readonly store: Store,
    readonly now: () => number,
    onError: (e: unknown) => void = () => undefined,
  ) {
    this.hub = new EventHub(onError);
  }

  /** Runs `fn` as `origin`: the events it commits say who made them. */
  actingAs<T>(origin: EventOrigin, fn: () => T): T {
    return this.as(origin, fn);
  }

  /** Runs `fn` as nobody: what expired is removed by the service, not by whoever asked. */
  expiring<T>(fn: () => T): T {
    return this.as(undefined, fn);
  }

  private as<T>(origin: EventOrigin | undefined, fn: () => T): T {
    const before = this.actor;
    this.actor = origin;
    try {
      return fn();
    } finally {
      this.actor = before;
    }
  }

  /** Calls `fn` with the events of every commit, after it; returns the unsubscribe. */
  watch(fn: (events: readonly SyncEvent[]) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  commit<T>(fn: (emit: Emit) => T): T {
    const out: SyncEvent[] = [];
    const { q } = this.store;
    const stamp = (e: SyncEvent): SyncEvent => {
      if (this.actor) e.origin = this.actor;
      return e;
    };
    const emit: Emit = {
      logged(obj, eventType, event, skip) {
        q.insertEvent.run({
          object_sid: obj.sid,
          id: obj.last_event_id,
          event_type: eventType,
          payload: JSON.stringify(event),
        });
        out.push(
          stamp(
            skip
              ? { objectSid: obj.sid, eventType, event, skip }
              : { objectSid: obj.sid, eventType, event },
          ),
        );
      },
      transient(objectSid, eventType, event, skip, subject) {
        const e: SyncEvent = skip
          ? { objectSid, eventType, event, skip }
          : { objectSid, eventType, event };
        if (subject) e.subject = subject;
        out.push(stamp(e));
      },
    };
    const result = this.store.tx(() => fn(emit));
    if (this.pending) this.pending.push(...out);
    else this.publish(out);
    return result;
  }

  /**
   * Group commit: runs `fn` inside one outer transaction, so every `commit()` within it is a savepoint (a
   * failing request rolls back alone) and all of them share one durable COMMIT, i.e. one fsync. Their
   * events are published only after that COMMIT succeeded. Throws (having rolled everything back) if the
   * COMMIT itself fails.
   */
  batch<T>(fn: () => T): T {
    const { db } = this.store;
    if (this.pending || db.inTransaction) return fn();
    this.pending = [];
    let events: SyncEvent[];
    let result: T;
    db.exec('BEGIN IMMEDIATE');
    try {
      result = fn();
      db.exec('COMMIT');
      events = this.pending;
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    } finally {
      this.pending = null;
    }
    this.publish(events);
    return result;
  }

  private publish(events: SyncEvent[]): void {
    this.hub.publish(events);
    this.hub.publish(this.liveQueries.derive(events));
    if (events.length > 0) for (const watcher of this.watchers) watcher(events);
  }

  /** Advances the object's event id, revision and date_updated (never backwards); returns the timestamp used. */
  bump(obj: ObjectRow): number {
    const t = Math.max(this.now(), obj.date_updated);
    obj.last_event_id += 1;
    obj.revision += 1;
    obj.date_updated = t;
    return t;
  }

  saveObject(obj: ObjectRow): void {
    this.store.q.updateObject.run(obj);
  }

  /**
   * The SDK applies a remote item removal without checking its event id, so the remover's own connection
   * (`origin`) is not sent the echo: it would show up as a second, remote itemRemoved.
   */
  removeListItem(emit: Emit, list: ObjectRow, item: ItemRow, origin?: Subscriber): number {
    const t = this.bump(list);
    this.store.q.deleteItem.run(list.sid, item.idx, '');
    emit.logged(
      list,
      'list_item_removed',
      {
        id: list.last_event_id,
        list_sid: list.sid,
        list_unique_name: list.unique_name,
        item_index: item.idx,
        item_data: parseData(item.data),
        item_revision: rev(item.revision + 1),
        date_created: iso(t),
        list_revision: rev(list.revision),
      },
      origin,
    );
    this.saveObject(list);
    return t;
  }

  removeMapItem(emit: Emit, map: ObjectRow, item: ItemRow, origin?: Subscriber): number {
    const t = this.bump(map);
    this.store.q.deleteItem.run(map.sid, 0, item.key);
    emit.logged(
      map,
      'map_item_removed',
      {
        id: map.last_event_id,
        map_sid: map.sid,
        map_unique_name: map.unique_name,
        item_key: item.key,
        item_data: parseData(item.data),
        item_revision: rev(item.revision + 1),
        date_created: iso(t),
        map_revision: rev(map.revision),
      },
      origin,
    );
    this.saveObject(map);
    return t;
  }

  /** Deletes an object with its items and event log, and tells its subscribers. */
  removeObject(emit: Emit, obj: ObjectRow): void {
    const { q } = this.store;
    q.deleteItemsOf.run(obj.sid);
    q.deleteEventsOf.run(obj.sid);
    q.deleteObject.run(obj.sid);
    const field = `${obj.kind}_sid`;
    emit.transient(
      obj.sid,
      `${obj.kind}_removed`,
      { id: obj.last_event_id + 1, [field]: obj.sid, date_created: iso(this.now()) },
      undefined,
      { uniqueName: obj.unique_name, revision: rev(obj.revision) },
    );
  }

  /** Removes the object's expired items (emitting their removal events); call inside `commit`. */
  expireItemsOf(emit: Emit, obj: ObjectRow): void {
    if (obj.kind !== 'list' && obj.kind !== 'map') return;
    this.expiring(() => {
      for (const item of this.store.q.expiredItemsOf.all(obj.sid, this.now())) {
        if (obj.kind === 'list') this.removeListItem(emit, obj, item);
        else this.removeMapItem(emit, obj, item);
      }
    });
  }

  /** One sweep: removes expired objects and items. Returns how many things were removed. */
  sweep(): number {
    const now = this.now();
    const { q } = this.store;
    let removed = 0;
    const objects = q.expiredObjects.all(now);
    if (objects.length > 0) {
      this.commit((emit) => {
        for (const o of objects) this.removeObject(emit, o);
      });
      removed += objects.length;
    }
    const items = q.expiredItems.all(now);
    const owners = new Set(items.map((i) => i.object_sid));
    if (owners.size > 0) {
      this.commit((emit) => {
        for (const sid of owners) {
          const obj = q.objectBySid.get(sid);
          if (obj) this.expireItemsOf(emit, obj);
        }
      });
      removed += items.length;
    }
    return removed;
  }

  kindOf(sid: string): ObjectKind | undefined {
    return this.store.q.objectBySid.get(sid)?.kind;
  }
}
