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
}

export interface Subscriber {
  /**
   * Sends a `twilio.sync.event` notification; `payload.event_type` is always a string. `shared` lets
   * subscribers of one event reuse each other's encoded payload.
   */
  notify(
    payload: { event_type: string } & Record<string, unknown>,
    shared?: Map<string, Buffer>,
  ): void;
}

export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly queue: Array<() => void> = [];
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
    for (const e of events) this.after(() => this.deliver(e));
  }

  /** Runs `fn` in delivery order, after every event queued so far (used for subscription replays). */
  after(fn: () => void): void {
    this.queue.push(fn);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.queue.length);
    for (const fn of batch) {
      try {
        fn();
      } catch (e) {
        // One failed delivery (e.g. the store closed during shutdown) must not stop the others or the process.
        this.onError(e);
      }
    }
  }

  private deliver(e: SyncEvent): void {
    const set = this.subscribers.get(e.objectSid);
    if (!set) return;
    const payload = { event_type: e.eventType, event_protocol_version: 4, event: e.event };
    const shared = new Map<string, Buffer>();
    for (const sub of [...set]) if (sub !== e.skip) sub.notify(payload, shared);
    if (objectRemovalEvents.has(e.eventType)) this.dropObject(e.objectSid);
  }
}

const objectRemovalEvents = new Set([
  'document_removed',
  'list_removed',
  'map_removed',
  'stream_removed',
]);
