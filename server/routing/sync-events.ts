/**
 * Sync's webhooks (https://www.twilio.com/docs/sync/webhooks), which keep routing's copy of presence
 * and do not disturb current instead of a read of both for every call (routing-data.ts), and through
 * which a browser's write that breaks its record is put right (server/records/put-right.ts).
 *
 * - At start (`followSyncEvents`): the Sync service's `WebhookUrl` is pointed at this server's
 *   `/api/twilio/sync-events`, with `WebhooksFromRestEnabled` on (this server's own REST writes,
 *   the on-call flag and the removals, reach the copy the same way, in the same order), through the
 *   Service resource (https://www.twilio.com/docs/sync/api/service). A URL an operator set to
 *   something else is kept: it is logged, and presence is read for every call as before.
 * - Then every change to a document or map (item) of the service is POSTed there, signed as every
 *   Twilio webhook (signature.ts: a missing or wrong signature is refused, 403, before anything is
 *   read). A `presence` item added, updated or removed, a person's `settings:` document made,
 *   updated or removed, change the copy; every other event is answered and ignored. A body that is
 *   not what the page documents (no `EventType`, an item without its key, data that is not a JSON
 *   object, another service's event) is refused, 400, and changes nothing.
 *
 * The events reach the same public URL as Twilio's voice webhooks: a server Twilio cannot reach
 * takes no calls either. What may still be lost on the way is caught by reading the copy whole
 * again every LIVE_REFRESH_MS; webhooks that do not arrive at all are noticed by events-check.ts,
 * and calls then read presence and do not disturb for every call.
 */
import { TWILIO_PATHS } from '../../src/contracts/api';
import { PRESENCE, SETTINGS } from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import { HttpError } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import type { TwilioClient } from '../twilio/client';
import type { TwilioConfig } from '../twilio/config';
import { sendNothing } from '../calls/fallback';
import { LIVE_REFRESH_MS, type RoutingData, type SyncChange } from './routing-data';
import { readSignedForm } from '../twilio/signature';

const bad = (message: string): HttpError => new HttpError(400, 'bad_request', message);

/** A parameter's JSON object (`ItemData`, `DocumentData`: "The data … as JSON"). */
function jsonObject(params: Record<string, string>, name: string): JsonObject {
  const text = params[name];
  if (text === undefined) throw bad(`The Sync event has no ${name}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad(`The Sync event's ${name} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(`The Sync event's ${name} is not a JSON object`);
  return value as JsonObject;
}

/** An integer parameter (`EventId`, `DocumentRevision`), or null when absent. */
function order(params: Record<string, string>, name: string): number | null {
  const text = params[name];
  if (text === undefined || text === '') return null;
  if (!/^\d{1,15}$/.test(text)) throw bad(`The Sync event's ${name} is not an integer`);
  return Number(text);
}

/** A Sync event as its webhook posts it: its type, its parameters, and its data (null: none). */
export interface SyncEvent {
  type: string;
  params: Record<string, string>;
  data: JsonObject | null;
}

/** The event a webhook body is; throws 400 for a body that is not a Sync event of `serviceSid`. */
export function syncEventOf(params: Record<string, string>, serviceSid: string): SyncEvent {
  const type = params.EventType;
  if (type === undefined || !/^[a-z_]{1,64}$/.test(type))
    throw bad('The Sync event has no valid EventType');
  if (params.ServiceSid !== undefined && params.ServiceSid !== serviceSid)
    throw bad('The Sync event is for another Sync service');
  const name = type.startsWith('document_') ? 'DocumentData' : 'ItemData';
  return { type, params, data: params[name] === undefined ? null : jsonObject(params, name) };
}

/**
 * What a Sync event changes for routing, or null for an event routing does not follow; throws 400
 * for a body that is not a Sync event of `serviceSid`.
 */
export function syncChangeOf(
  params: Record<string, string>,
  serviceSid: string,
): SyncChange | null {
  const { type } = syncEventOf(params, serviceSid);
  const byServer = params.Identity === 'system' && params.EndpointId === undefined;
  if (type.startsWith('map_') && params.MapUniqueName === PRESENCE.name) {
    if (type === 'map_created' || type === 'map_removed') return { kind: 'presenceMap' };
    const removed = type === 'map_item_removed';
    if (!removed && type !== 'map_item_added' && type !== 'map_item_updated') return null;
    const identity = params.ItemKey;
    if (identity === undefined || identity === '') throw bad('The Sync event has no ItemKey');
    return {
      kind: 'presence',
      identity,
      data: removed ? null : jsonObject(params, 'ItemData'),
      order: order(params, 'EventId'),
      byServer,
    };
  }
  if (type.startsWith('document_')) {
    const identity = SETTINGS.idOf(params.DocumentUniqueName ?? '');
    if (identity === null) return null;
    const removed = type === 'document_removed';
    const made = type === 'document_created';
    if (!removed && !made && type !== 'document_updated') return null;
    return {
      kind: 'settings',
      identity,
      data: removed ? null : jsonObject(params, 'DocumentData'),
      order: order(params, 'DocumentRevision'),
      made,
    };
  }
  return null;
}

/**
 * `POST /api/twilio/sync-events`: the Sync service's webhook. Routing's copy takes the change at
 * once; `written` (the record keeper) looks at the event after the answer.
 */
export function registerSyncEvents(
  router: Router,
  deps: {
    config: TwilioConfig;
    data: RoutingData;
    written: (event: SyncEvent) => Promise<void>;
  },
): void {
  router.on('POST', TWILIO_PATHS.syncEvents, async (ctx) => {
    const params = await readSignedForm(ctx.req, deps.config);
    const event = syncEventOf(params, deps.config.syncServiceSid);
    const change = syncChangeOf(params, deps.config.syncServiceSid);
    if (change) deps.data.syncChanged(change);
    sendNothing(ctx.res);
    void deps.written(event);
  });
}

/**
 * Points the Sync service's webhooks at this server and has routing follow them; false (logged)
 * when the service's webhook URL is someone else's or could not be set: presence is then read for
 * every call.
 */
export async function followSyncEvents(deps: {
  client: TwilioClient;
  config: TwilioConfig;
  data: RoutingData;
  log: (message: string) => void;
}): Promise<boolean> {
  const { config, log } = deps;
  if (config.publicUrl === '') return false;
  const url = `${config.publicUrl}${TWILIO_PATHS.syncEvents}`;
  const service = deps.client.sync.v1.services(config.syncServiceSid);
  const before = await service.fetch();
  if (before.webhookUrl && before.webhookUrl !== url) {
    log(
      `twilio: the Sync service's webhook URL is ${before.webhookUrl}, not this server's, so presence and do not disturb are read from Sync for every call. To have routing follow Sync's events instead (no read per call), set the service's Webhook URL to ${url} with "webhooks from REST" on, or clear it, and restart (docs/twilio.md)`,
    );
    return false;
  }
  const after =
    before.webhookUrl === url && before.webhooksFromRestEnabled
      ? before
      : await service.update({ webhookUrl: url, webhooksFromRestEnabled: true });
  if (after.webhookUrl !== url || after.webhooksFromRestEnabled !== true) {
    log(
      `twilio: the Sync service did not take the webhook URL ${url}: presence and do not disturb are read from Sync for every call`,
    );
    return false;
  }
  deps.data.followEvents();
  log(
    `twilio: presence and do not disturb follow the Sync service's webhooks at ${url} (read whole again every ${LIVE_REFRESH_MS / 1000} s)`,
  );
  return true;
}
