/**
 * What the page keeps of one SDK call's quality while it lasts: the fields of each per-second
 * `sample` the summary needs (src/domain/call-quality.ts) and every warning name raised, so the
 * call's report can be made when it ends.
 */
import type { QualityReport } from '../../contracts/records/call-quality';
import { summariseQuality, type QualitySample } from '../../domain/call-quality';
import type { CallAdapterEvent } from '../../machines/call.setup';

/** Four hours of samples, one a second; a longer call keeps its latest four hours. */
const MAX_SAMPLES = 4 * 60 * 60;

export interface QualityCollector {
  /** One SDK `sample` event (its RTCSample). */
  sample(raw: unknown): void;
  /** One SDK `warning` event's name. */
  warned(name: string): void;
  /** The call's summary so far; `codec` is the SDK call's own `codec` when samples named none. */
  report(codec?: string): QualityReport;
}

const numberOr = <T>(value: unknown, fallback: T): number | T =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

export function createQualityCollector(): QualityCollector {
  const samples: QualitySample[] = [];
  const warnings: string[] = [];
  return {
    sample(raw) {
      if (typeof raw !== 'object' || raw === null) return;
      const s = raw as Record<string, unknown>;
      samples.push({
        mos: numberOr(s.mos, null),
        jitter: numberOr(s.jitter, 0),
        rtt: numberOr(s.rtt, null),
        packetsLost: numberOr(s.packetsLost, 0),
        packetsReceived: numberOr(s.packetsReceived, 0),
        ...(typeof s.codecName === 'string' ? { codecName: s.codecName } : {}),
      });
      if (samples.length > MAX_SAMPLES) samples.shift();
    },
    warned(name) {
      if (!warnings.includes(name)) warnings.push(name);
    },
    report: (codec = '') => summariseQuality(samples, warnings, codec),
  };
}

/** The SDK's EventEmitter listener type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SdkListener = (...args: any[]) => void;

/**
 * Listens to one SDK call's quality: its warnings go to the call machine (the card shows them), its
 * per-second samples stay in the collector returned, summarised for the history row when it ends.
 * `on` adds a listener to the SDK call (and removes it with the call's others).
 */
export function watchQuality(
  on: (name: string, handler: SdkListener) => void,
  send: (event: CallAdapterEvent) => void,
): QualityCollector {
  const quality = createQualityCollector();
  on('warning', (name: string) => {
    quality.warned(name);
    send({ type: 'call.quality.warning', name });
  });
  on('warning-cleared', (name: string) => send({ type: 'call.quality.cleared', name }));
  on('sample', (sample: unknown) => quality.sample(sample));
  return quality;
}
