/**
 * Call quality, pure: the page's summary of the Voice SDK's per-second samples (what the history row
 * keeps), the words for the SDK's warnings on the call card, and the Good / Fair / Poor mark of a
 * finished call with the reason a person reads. Thresholds: docs/call-quality.md.
 */
import type { CallQuality, QualityReport } from '../contracts/records/call-quality';

/** What the page keeps of one SDK `sample` event (the SDK's RTCSample, those fields only). */
export interface QualitySample {
  /** The SDK's MOS estimate, null while it has none. */
  mos: number | null;
  /** Jitter (ms). */
  jitter: number;
  /** Round trip (ms), when the browser has a measure. */
  rtt?: number | null;
  /** Packets lost and received in this sample's second. */
  packetsLost: number;
  packetsReceived: number;
  codecName?: string;
}

const round = (value: number, places: number): number => {
  const f = 10 ** places;
  return Math.round(value * f) / f;
};
const num = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const average = (values: number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** The nearest-rank percentile `p` (0 to 100) of `values` (not empty). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

/**
 * The report of a call from its samples: MOS min and average (of the samples that had one), the share
 * of packets lost (lost / (lost + received) over the whole call), jitter average and 95th percentile,
 * round trip average, the last codec named, and the warnings raised (each once).
 */
export function summariseQuality(
  samples: readonly QualitySample[],
  warnings: readonly string[] = [],
  codec = '',
): QualityReport {
  const mos = samples.map((s) => s.mos).filter(num);
  const jitter = samples
    .map((s) => s.jitter)
    .filter(num)
    .map((j) => Math.max(0, j));
  const rtt = samples
    .map((s) => s.rtt)
    .filter(num)
    .map((r) => Math.max(0, r));
  let lost = 0;
  let received = 0;
  for (const s of samples) {
    if (num(s.packetsLost)) lost += Math.max(0, s.packetsLost);
    if (num(s.packetsReceived)) received += Math.max(0, s.packetsReceived);
  }
  const named = [...samples].reverse().find((s) => s.codecName)?.codecName ?? codec;
  const clamp = (value: number, max: number) => Math.min(max, value);
  return {
    samples: samples.length,
    mosMin: mos.length ? round(Math.min(...mos), 2) : null,
    mosAvg: mos.length ? round(average(mos), 2) : null,
    lossPercent: lost + received > 0 ? round((lost / (lost + received)) * 100, 1) : 0,
    jitterAvgMs: jitter.length ? clamp(round(average(jitter), 1), 60_000) : 0,
    jitterP95Ms: jitter.length ? clamp(round(percentile(jitter, 95), 1), 60_000) : 0,
    rttAvgMs: rtt.length ? clamp(round(average(rtt), 0), 60_000) : null,
    codec: named.toLowerCase().slice(0, 20),
    warnings: [...new Set(warnings)].filter((w) => /^[a-z-]{1,60}$/.test(w)).slice(0, 20),
  };
}

/** What the card says for each SDK warning it shows; warnings not named here are not shown. */
const WARNING_TEXT: Record<string, string> = {
  'high-packet-loss': 'Your network is losing audio',
  'high-packets-lost-fraction': 'Your network is losing audio',
  'high-rtt': 'Your connection is slow',
  'high-jitter': 'Your audio is choppy',
  'low-mos': 'Call quality is low',
  'constant-audio-input-level': 'Your microphone seems muted',
  'low-bytes-received': 'No sound is reaching you',
  'low-bytes-sent': 'Your sound is not getting through',
  'ice-connectivity-lost': 'Your connection dropped',
};

/** The sentences for the SDK warnings active now, each once, in the order the warnings came. */
export function warningTexts(warnings: readonly string[]): string[] {
  const texts = warnings.map((w) => WARNING_TEXT[w]).filter((t): t is string => t !== undefined);
  return [...new Set(texts)];
}

export type QualityGrade = 'good' | 'fair' | 'poor';

/**
 * Where each measure turns a call fair or poor (docs/call-quality.md). Loss is what a person hears
 * first: 1% is heard as the odd click, 5% as words lost.
 */
export const QUALITY_THRESHOLDS = {
  lossPercent: { fair: 1, poor: 5 },
  mosAvg: { fair: 3.6, poor: 3.0 },
  jitterP95Ms: { fair: 30, poor: 50 },
  rttAvgMs: { fair: 250, poor: 400 },
} as const;

export interface QualityMark {
  grade: QualityGrade;
  /** The mark and why, in a sentence: "Poor: 11% of audio lost (at Ann's end)." */
  text: string;
}

const GRADE_WORD: Record<QualityGrade, string> = { good: 'Good', fair: 'Fair', poor: 'Poor' };
const RANK: Record<QualityGrade, number> = { good: 0, fair: 1, poor: 2 };

/** Each measure of one report that is not good, worst first: its grade and words. */
function findings(q: QualityReport): { grade: QualityGrade; words: string }[] {
  const t = QUALITY_THRESHOLDS;
  const out: { grade: QualityGrade; words: string }[] = [];
  const high = (value: number, limits: { fair: number; poor: number }): QualityGrade | null =>
    value >= limits.poor ? 'poor' : value >= limits.fair ? 'fair' : null;
  const loss = high(q.lossPercent, t.lossPercent);
  if (loss) out.push({ grade: loss, words: `${formatNumber(q.lossPercent)}% of audio lost` });
  if (q.mosAvg !== null) {
    const grade: QualityGrade | null =
      q.mosAvg < t.mosAvg.poor ? 'poor' : q.mosAvg < t.mosAvg.fair ? 'fair' : null;
    if (grade) out.push({ grade, words: `quality score ${round(q.mosAvg, 2)} of 5` });
  }
  const jitter = high(q.jitterP95Ms, t.jitterP95Ms);
  if (jitter)
    out.push({ grade: jitter, words: `choppy audio (jitter ${Math.round(q.jitterP95Ms)} ms)` });
  if (q.rttAvgMs !== null) {
    const rtt = high(q.rttAvgMs, t.rttAvgMs);
    if (rtt) out.push({ grade: rtt, words: `slow connection (round trip ${q.rttAvgMs} ms)` });
  }
  return out.sort((a, b) => RANK[b.grade] - RANK[a.grade]);
}

const formatNumber = (value: number): string =>
  Number.isInteger(value) ? String(value) : value.toFixed(1);

/**
 * The mark of a call from its reports (one per browser that sent one), or null when none did: the
 * worst grade any report earns, and why. `whose` names whose end measured it ("Ann's", "your").
 */
export function qualityMark(
  reports: readonly CallQuality[],
  whose: (identity: string) => string = (identity) => `${identity}'s`,
): QualityMark | null {
  const measured = reports.filter((r) => r.samples > 0);
  if (measured.length === 0) return null;
  let grade: QualityGrade = 'good';
  const reasons: { rank: number; text: string }[] = [];
  for (const report of measured) {
    const found = findings(report);
    const worst = found[0]?.grade ?? 'good';
    if (RANK[worst] > RANK[grade]) grade = worst;
    if (found.length > 0)
      reasons.push({
        rank: RANK[worst],
        text: `${found.map((f) => f.words).join(', ')} (at ${whose(report.by)} end)`,
      });
  }
  // The end that made the grade is named first.
  reasons.sort((a, b) => b.rank - a.rank);
  if (grade === 'good') {
    const loss = Math.max(...measured.map((r) => r.lossPercent));
    const mos = measured.map((r) => r.mosAvg).filter(num);
    const score = mos.length ? `, quality score ${round(Math.min(...mos), 2)} of 5` : '';
    return { grade, text: `Good: ${formatNumber(loss)}% of audio lost${score}.` };
  }
  return { grade, text: `${GRADE_WORD[grade]}: ${reasons.map((r) => r.text).join('; ')}.` };
}
