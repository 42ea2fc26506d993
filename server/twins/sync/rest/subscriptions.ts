/**
 * `/v4/Subscriptions`: establish and cancel. The 202 reply goes out first; then, in delivery order, each object is
 * subscribed, its logged events newer than the client's `last_event_id` are replayed (tagged with the request's
 * `correlation_id`), and one `subscription_established` (plus `subscription_failed` for missing objects) follows.
 */
import { errors, type ObjectKind } from '../errors';
import { limits } from '../limits';
import type { Ctx, RestRequest, RestResponse } from './context';
import { bodyObject } from './context';

interface SubRequest {
  object_sid: string;
  object_type: ObjectKind | 'live_query';
  last_event_id: number | null;
}

const objectTypes = new Set(['document', 'list', 'map', 'stream', 'live_query']);

function parseRequests(value: unknown): SubRequest[] {
  if (!Array.isArray(value)) throw errors.invalidParam('requests', 'must be an array');
  if (value.length > limits.maxSubscriptionBatch) {
    throw errors.invalidParam('requests', `at most ${limits.maxSubscriptionBatch} per batch`);
  }
  return value.map((r: unknown, i) => {
    const o = bodyObject(r);
    if (typeof o.object_sid !== 'string' || o.object_sid === '')
      throw errors.invalidParam(`requests[${i}].object_sid`, 'must be a string');
    if (typeof o.object_type !== 'string' || !objectTypes.has(o.object_type)) {
      throw errors.invalidParam(
        `requests[${i}].object_type`,
        'must be document, list, map, stream or live_query',
      );
    }
    const last = o.last_event_id;
    const lastOk =
      last === undefined || last === null || (typeof last === 'number' && Number.isFinite(last));
    if (!lastOk)
      throw errors.invalidParam(`requests[${i}].last_event_id`, 'must be a number or null');
    return {
      object_sid: o.object_sid,
      object_type: o.object_type as SubRequest['object_type'],
      last_event_id: typeof last === 'number' ? last : null,
    };
  });
}

export function subscriptions(ctx: Ctx, req: RestRequest): RestResponse {
  const body = bodyObject(req.body);
  const action = body.action;
  if (action !== 'establish' && action !== 'cancel')
    throw errors.invalidParam('action', "must be 'establish' or 'cancel'");
  const correlationId = body.correlation_id;
  if (typeof correlationId !== 'number' || !Number.isFinite(correlationId)) {
    throw errors.invalidParam('correlation_id', 'must be a number');
  }
  const requests = parseRequests(body.requests);
  const { hub } = ctx.core;
  const conn = ctx.conn;
  if (action === 'cancel') {
    for (const r of requests) {
      hub.unsubscribe(r.object_sid, conn);
      conn.subscriptions.delete(r.object_sid);
    }
    hub.after(() => {
      if (!conn.open || requests.length === 0) return;
      conn.notify({
        event_type: 'subscription_canceled',
        correlation_id: correlationId,
        event_protocol_version: 4,
        events: requests.map((r) => ({ object_sid: r.object_sid, object_type: r.object_type })),
      });
    });
    return { status: 202, body: accepted() };
  }
  hub.after(() => establish(ctx, correlationId, requests));
  return { status: 202, body: accepted() };
}

const accepted = (): Record<string, unknown> => ({
  estimated_delivery_in_ms: 5000,
  max_batch_size: limits.maxSubscriptionBatch,
  ttl_in_s: -1,
});

function establish(ctx: Ctx, correlationId: number, requests: SubRequest[]): void {
  const conn = ctx.conn;
  if (!conn.open) return;
  const { store } = ctx.core;
  const established: Record<string, unknown>[] = [];
  const failed: Record<string, unknown>[] = [];
  for (const r of requests) {
    const fail = (status: number, code: number, message: string): void => {
      failed.push({
        object_sid: r.object_sid,
        object_type: r.object_type,
        error: { status, code, message },
      });
    };
    if (r.object_type === 'live_query') {
      const q = ctx.core.liveQueries.get(r.object_sid);
      if (!q) {
        fail(404, 54507, 'Live query not found');
        continue;
      }
      subscribe(ctx, r);
      established.push({
        object_sid: r.object_sid,
        object_type: r.object_type,
        replay_status: 'completed',
        last_event_id: q.lastEventId,
      });
      continue;
    }
    const obj = store.q.objectBySid.get(r.object_sid);
    if (
      !obj ||
      obj.kind !== r.object_type ||
      (obj.date_expires !== null && obj.date_expires <= ctx.core.now())
    ) {
      const e = errors.sidNotFound(r.object_type);
      fail(404, e.code, e.message);
      continue;
    }
    const refused = ctx.mayRead?.(obj.kind, obj.unique_name);
    if (refused) {
      fail(refused.status, refused.code, refused.message);
      continue;
    }
    if (
      !conn.subscriptions.has(obj.sid) &&
      conn.subscriptions.size >= limits.maxSubscriptionsPerConnection
    ) {
      fail(
        429,
        20429,
        `At most ${limits.maxSubscriptionsPerConnection} subscriptions per connection`,
      );
      continue;
    }
    subscribe(ctx, r);
    if (r.last_event_id !== null && r.last_event_id >= 0 && obj.kind !== 'stream') {
      for (const e of store.q.eventsAfter.all(obj.sid, r.last_event_id)) {
        conn.notify({
          event_type: e.event_type,
          correlation_id: correlationId,
          event_protocol_version: 4,
          event: JSON.parse(e.payload) as Record<string, unknown>,
        });
      }
    }
    established.push({
      object_sid: obj.sid,
      object_type: obj.kind,
      replay_status: 'completed',
      last_event_id: obj.kind === 'stream' ? null : obj.last_event_id,
    });
  }
  if (established.length > 0) {
    conn.notify({
      event_type: 'subscription_established',
      correlation_id: correlationId,
      event_protocol_version: 4,
      events: established,
    });
  }
  if (failed.length > 0) {
    conn.notify({
      event_type: 'subscription_failed',
      correlation_id: correlationId,
      event_protocol_version: 4,
      events: failed,
    });
  }
}

function subscribe(ctx: Ctx, r: SubRequest): void {
  ctx.core.hub.subscribe(r.object_sid, ctx.conn);
  ctx.conn.subscriptions.set(r.object_sid, r.object_type);
}
