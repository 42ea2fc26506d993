/**
 * How a call sounded, as the browser on one end of it measured it: a summary of the Voice SDK's
 * per-second samples (MOS estimate, packet loss, jitter, round trip), the codec and the warnings the
 * SDK raised. The page sends it when its call ends (`POST /api/calls/:sid/quality`, body
 * {@link QualityReportSchema}); the server adds who sent it and keeps it in the call's history row
 * (`quality` of src/contracts/records/call.ts, one report per person on the call).
 */
import * as v from 'valibot';

const finite = (min: number, max: number) =>
  v.pipe(v.number(), v.finite(), v.minValue(min), v.maxValue(max));
const ms = finite(0, 60_000);
const mos = v.nullable(finite(1, 5));

/** The SDK's warning names (`high-rtt`, `low-mos`, …): short words, a few per call. */
const WARNING_NAME = v.pipe(v.string(), v.regex(/^[a-z-]{1,60}$/, 'Not a warning name'));

export const QualityReportSchema = v.strictObject({
  /** How many per-second samples the summary is made of. */
  samples: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000)),
  /** The SDK's MOS estimate (1 to about 4.5): its lowest and its average; null when none was given. */
  mosMin: mos,
  mosAvg: mos,
  /** Audio packets lost on the way to this browser, as a percentage of those sent to it. */
  lossPercent: finite(0, 100),
  /** Jitter (ms): its average and its 95th percentile over the samples. */
  jitterAvgMs: ms,
  jitterP95Ms: ms,
  /** Round trip (ms) to the media server, on average; null when the browser had no measure. */
  rttAvgMs: v.nullable(ms),
  /** The codec the SDK reported (`pcmu`, `opus`), or '' when it reported none. */
  codec: v.pipe(v.string(), v.maxLength(20)),
  /** The SDK warnings raised during the call (each once), in the order they first came. */
  warnings: v.pipe(v.array(WARNING_NAME), v.maxLength(20)),
});
export type QualityReport = v.InferOutput<typeof QualityReportSchema>;

/** A report as the history row keeps it: whose browser measured it. */
export const CallQualitySchema = v.object({
  ...QualityReportSchema.entries,
  by: v.string(),
});
export type CallQuality = v.InferOutput<typeof CallQualitySchema>;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * The media server's own view of one side's audio at the end of the call: packets it received from
 * that browser and sent to it, how many of those the browser's RTCP reports said it lost, and the
 * codec that side's leg negotiated.
 */
export const RelayLegSchema = v.object({
  side: v.picklist(['caller', 'callee']),
  /** Who had that side at the end ('' for none). */
  identity: v.string(),
  received: count,
  sent: count,
  lostAtBrowser: count,
  /** The codec the relay and that browser settled on (`opus`, `pcmu`); absent in older rows. */
  codec: v.optional(v.pipe(v.string(), v.maxLength(20))),
});
export type RelayLeg = v.InferOutput<typeof RelayLegSchema>;
