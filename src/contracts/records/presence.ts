/**
 * Someone's presence, an item of the `presence` map (key = identity) with a ttl: each signed-in
 * browser writes its person's own item and refreshes it; a closed browser's item lapses and its
 * person reads as Offline. `onCall` is the server's on the embedded backend (it knows the calls).
 * `doNotDisturb` mirrors the person's own setting (their `settings:{identity}`, which only they
 * read) so colleagues see it; the voice service reads the setting itself.
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
