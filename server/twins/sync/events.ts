/**
 * Event fan-out. Events are written to the SQLite log inside the write's transaction (see `core.commit`) and
 * delivered here afterwards, on a later tick, so the writer always gets its reply before its own notification.
 * Delivery is FIFO per connection because every delivery goes through one setImmediate queue.
 */

export interface SyncEvent {
  objectSid: string;
  eventType: string;
  event: Record<string, unknown>;
  /** Stream messages are not echoed to the connection that published them. */
  skip?: Subscriber;
  /**
   * Who made the change (core.ts `actingAs`): a client over Twilsock or the REST API. Absent for what
   * nobody asked for (an expiry), and for events the service derives itself.
   */
  origin?: EventOrigin;
  /** The object's unique name and revision, for a removal (its notification has only the SID). */
  subject?: { uniqueName: string | null; revision: string };
}

/** Who made a change: Sync webhooks say so (`Identity`, `EndpointId`; twilio-api/webhooks.ts). */
export type EventOrigin =
  { via: 'client'; identity: string; endpointId: string } | { via: 'rest'; identity: 'system' };

export interface Subscriber {
  /**
   * Whether the subscriber may still hear of the object (it may read it now: permissions can be
   * taken away after a subscription is made). Absent: always.
   */
  hears?(objectSid: string): boolean;
  /**
   * Sends a `twilio.sync.event` notification; `payload.event_type` is always a string. `shared` lets
   * subscribers of one event reuse each other's encoded payload.
   */
  notify(
    payload: { event_type: string } & Record<string, unknown>,
    shared?: Map<string, Buffer>,
  ): void;
  /**
   * Sends several committed events of one type in one notification (`events: [...]`, which the SDK applies in
   * order like separate ones). Optional: without it each event goes through `notify`.
   */
  notifyMany?(eventType: string, events: SyncEvent[], fanout: Fanout): void;
}

/** Events per notification frame; a longer run of one type is split. */
const MAX_EVENTS_PER_FRAME = 100;

/**
 * Encodings shared by the subscribers of one delivery round: each event is serialised once per URL base, and
 * subscribers receiving the same run of events share one frame (and its id), so a write fanned out to many
 * connections costs one JSON encoding and one buffer, whatever the subscriber count.
 */
export class Fanout {
  private readonly seqs = new Map<SyncEvent, number>();
  private readonly json = new Map<string, string>();
  readonly frames = new Map<string, Buffer>();

  seq(e: SyncEvent): number {
    let n = this.seqs.get(e);
    if (n === undefined) this.seqs.set(e, (n = this.seqs.size));
    return n;
  }

  /** The event's JSON, with `encode` applied once per (event, key). */
  eventJson(e: SyncEvent, key: string, encode: (e: SyncEvent) => string): string {
    const k = `${this.seq(e)} ${key}`;
    let text = this.json.get(k);
    if (text === undefined) this.json.set(k, (text = encode(e)));
    return text;
  }
}

type Queued = SyncEvent | (() => void);

export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly queue: Queued[] = [];
  private scheduled = false;

  constructor(private readonly onError: (e: unknown) => void = () => undefined) {}

  subscribe(objectSid: string, sub: Subscriber): void {
    let set = this.subscribers.get(objectSid);
    if (!set) this.subscribers.set(objectSid, (set = new Set()));
    set.add(sub);
  }

  unsubscribe(objectSid: string, sub: Subscriber): void {
    const set = this.subscribers.get(objectSid);
    if (!set) return;
    set.delete(sub);
    if (set.size === 0) this.subscribers.delete(objectSid);
  }

  /** Forgets every subscription of an object (after it was removed, once its removal event went out). */
  dropObject(objectSid: string): void {
    this.subscribers.delete(objectSid);
  }

  subscriberCount(objectSid: string): number {
    return this.subscribers.get(objectSid)?.size ?? 0;
  }

  /** Queues committed events; they go out after the current I/O callback (and its reply) completed. */
  publish(events: SyncEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) this.queue.push(e);
    this.schedule();
  }

  /** Runs `fn` in delivery order, after every event queued so far (used for subscription replays). */
  after(fn: () => void): void {
    this.queue.push(fn);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * Delivers everything queued. Consecutive events of one type for one connection share a notification;
   * a queued function first sends what is pending, so per-connection order is exactly queue order.
   */
  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.queue.length);
    const outbox = new Outbox(this.onError);
    for (const item of batch) {
      try {
        if (typeof item === 'function') {
          outbox.send();
          item();
        } else this.route(item, outbox);
      } catch (e) {
        // One failed delivery (e.g. the store closed during shutdown) must not stop the others or the process.
        this.onError(e);
      }
    }
    outbox.send();
  }

  private route(e: SyncEvent, outbox: Outbox): void {
    const set = this.subscribers.get(e.objectSid);
    if (!set) return;
    for (const sub of set)
      if (sub !== e.skip && (sub.hears?.(e.objectSid) ?? true)) outbox.add(sub, e);
    if (objectRemovalEvents.has(e.eventType)) this.dropObject(e.objectSid);
  }
}

/** Per-subscriber runs of same-type events waiting to be sent at the end of a delivery round. */
class Outbox {
  private readonly runs = new Map<Subscriber, { type: string; events: SyncEvent[] }>();
  private fanout = new Fanout();

  constructor(private readonly onError: (e: unknown) => void) {}

  add(sub: Subscriber, e: SyncEvent): void {
    const run = this.runs.get(sub);
    if (run && run.type === e.eventType && run.events.length < MAX_EVENTS_PER_FRAME) {
      run.events.push(e);
      return;
    }
    if (run) this.sendRun(sub, run);
    // Re-inserted at the end: Map order is only used to send, and each subscriber's runs stay in order.
    this.runs.delete(sub);
    this.runs.set(sub, { type: e.eventType, events: [e] });
  }

  send(): void {
    if (this.runs.size === 0) return;
    for (const [sub, run] of this.runs) this.sendRun(sub, run);
    this.runs.clear();
    this.fanout = new Fanout();
  }

  private sendRun(sub: Subscriber, run: { type: string; events: SyncEvent[] }): void {
    try {
      if (sub.notifyMany) sub.notifyMany(run.type, run.events, this.fanout);
      else
        for (const e of run.events)
          sub.notify({ event_type: e.eventType, event_protocol_version: 4, event: e.event });
    } catch (e) {
      this.onError(e);
    }
  }
}

const objectRemovalEvents = new Set([
  'document_removed',
  'list_removed',
  'map_removed',
  'stream_removed',
]);
