/**
 * Someone's presence, an item of the `presence` map (key = identity) with a ttl, written only by
 * the server for each signed-in browser (`PUT /api/presence`, renewed on its heartbeat,
 * server/identity/presence.ts); a closed browser's item lapses and its person reads as Offline.
 * `onCall` is the server's (server/calls/on-call.ts: it knows the calls). `doNotDisturb` mirrors
 * the person's own setting (their `settings:{identity}`, which only they read) so colleagues see
 * it; routing reads the setting itself (server/routing/routing-data.ts).
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const PRESENCE_STATUSES = ['available', 'away'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];

export const PresenceSchema = v.object({
  status: v.picklist(PRESENCE_STATUSES),
  onCall: v.optional(v.boolean(), false),
  doNotDisturb: v.optional(v.boolean(), false),
});
export type Presence = v.InferOutput<typeof PresenceSchema>;

export const presenceRecord = defineRecord('presence', PresenceSchema, {
  status: 'available',
  onCall: false,
  doNotDisturb: false,
});
