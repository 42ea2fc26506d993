/**
 * Group commit for tunnelled requests. Requests that arrive in the same turn of the event loop (from any
 * connection) run one after another inside one SQLite transaction, each in its own savepoint; one durable
 * COMMIT (one fsync) covers them all, and only then are their replies sent, in arrival order, followed on a
 * later tick by their events. Under load this turns N fsyncs into one without weakening "acknowledged means
 * durable"; an idle server pays one event-loop turn of latency.
 */
import type { Core } from './core';
import { errors } from './errors';
import type { RestResponse } from './rest/context';

interface Task {
  run: () => RestResponse;
  done: (res: RestResponse) => void;
}

/** Requests per transaction; the rest wait for the next turn. */
const MAX_BATCH = 256;

export class RequestBatcher {
  private queue: Task[] = [];
  private scheduled = false;

  constructor(
    private readonly core: Core,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  submit(run: () => RestResponse, done: (res: RestResponse) => void): void {
    this.queue.push({ run, done });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private runOne(t: Task): RestResponse {
    try {
      return t.run();
    } catch (e) {
      // Handlers answer their own errors; this is a bug, kept to this one request.
      this.log('a request failed unexpectedly', e);
      const err = errors.internal();
      return { status: err.status, body: err.body() };
    }
  }

  private flush(): void {
    this.scheduled = false;
    const tasks = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    let results: RestResponse[];
    try {
      results = this.core.batch(() => tasks.map((t) => this.runOne(t)));
    } catch (e) {
      // The shared COMMIT failed (disk full, I/O error): nothing of this batch is stored or announced.
      this.log('committing a batch of requests failed', e);
      const err = errors.internal();
      results = tasks.map(() => ({ status: err.status, body: err.body() }));
    }
    tasks.forEach((t, i) => {
      try {
        t.done(results[i]!);
      } catch (e) {
        this.log('sending a reply failed', e);
      }
    });
  }
}
