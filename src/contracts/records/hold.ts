/**
 * A call waiting in the park, an item of the `holds` map (key = the parked call's id): who waits,
 * who parked it and when. Only the server writes it; /hold lists it live.
 */
import * as v from 'valibot';
import { defineRecord, timestamp } from '../record';

export const HoldSchema = v.object({
  /** Who is waiting: a name or a number. */
  caller: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '', 'A parked call names its caller'),
  ),
  /** The identity of whoever parked the call. */
  parkedBy: v.optional(v.string(), ''),
  /** Epoch milliseconds. */
  parkedAt: v.pipe(timestamp, v.minValue(1, 'Expected a time after 1970')),
  /** Set by a pick-up's claim; the winner removes the item right after. */
  claimedBy: v.optional(v.nullable(v.string()), null),
});
export type Hold = v.InferOutput<typeof HoldSchema>;

/** A parked call as the server reports it and /hold lists it: the `holds` item with its key (the call's id). */
export const ParkedCallSchema = v.object({ callId: v.string(), ...HoldSchema.entries });
export type ParkedCall = v.InferOutput<typeof ParkedCallSchema>;

/** A hold without its caller or its time is no hold: it is not listed. */
export const holdRecord = defineRecord(
  'hold',
  HoldSchema,
  { caller: '', parkedBy: '', parkedAt: 0, claimedBy: null },
  ['caller', 'parkedAt'],
);
