import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { API } from '../../../src/contracts/api';
import { callRecord } from '../../../src/contracts/records/call';
import {
  QualityReportSchema,
  type CallQuality,
  type QualityReport,
} from '../../../src/contracts/records/call-quality';
import {
  percentile,
  qualityMark,
  summariseQuality,
  warningTexts,
  type QualitySample,
} from '../../../src/domain/call-quality';

const sample = (over: Partial<QualitySample> = {}): QualitySample => ({
  mos: 4.4,
  jitter: 2,
  rtt: 40,
  packetsLost: 0,
  packetsReceived: 50,
  codecName: 'pcmu',
  ...over,
});

const report = (over: Partial<CallQuality> = {}): CallQuality => ({
  samples: 30,
  mosMin: 4.3,
  mosAvg: 4.4,
  lossPercent: 0,
  jitterAvgMs: 2,
  jitterP95Ms: 4,
  rttAvgMs: 40,
  codec: 'pcmu',
  warnings: [],
  by: 'ann@x.io',
  ...over,
});

describe('summariseQuality', () => {
  it('summarises per-second samples: MOS min and average, loss over the call, jitter p95, RTT, codec', () => {
    const samples = [
      sample({ mos: null, jitter: 1, rtt: null }),
      sample({ mos: 4.4, jitter: 2, rtt: 30, packetsLost: 5, packetsReceived: 45 }),
      sample({ mos: 3.5, jitter: 30, rtt: 50, packetsLost: 5, packetsReceived: 45 }),
      sample({ mos: 4.1, jitter: 3, rtt: 40, packetsLost: 0, packetsReceived: 50 }),
    ];
    expect(summariseQuality(samples, ['high-packet-loss', 'high-packet-loss', 'low-mos'])).toEqual({
      samples: 4,
      mosMin: 3.5,
      mosAvg: 4,
      lossPercent: 5,
      jitterAvgMs: 9,
      jitterP95Ms: 30,
      rttAvgMs: 40,
      codec: 'pcmu',
      warnings: ['high-packet-loss', 'low-mos'],
    } satisfies QualityReport);
  });

  it('with no samples, or samples without measures, says so rather than inventing numbers', () => {
    expect(summariseQuality([], [], 'opus')).toEqual({
      samples: 0,
      mosMin: null,
      mosAvg: null,
      lossPercent: 0,
      jitterAvgMs: 0,
      jitterP95Ms: 0,
      rttAvgMs: null,
      codec: 'opus',
      warnings: [],
    });
    const odd = summariseQuality([
      sample({ mos: null, rtt: null, packetsLost: -3, codecName: '' }),
    ]);
    expect(odd).toMatchObject({ mosMin: null, rttAvgMs: null, lossPercent: 0, codec: '' });
  });

  it('always makes a report the contract accepts', () => {
    const made = summariseQuality(
      [
        sample({ jitter: 1e9, rtt: 1e9, mos: 4.9 }),
        sample({ packetsReceived: 0, packetsLost: 10 }),
      ],
      ['high-rtt', 'Not A Name'],
      'PCMU',
    );
    expect(v.safeParse(QualityReportSchema, made).success).toBe(true);
    expect(made.warnings).toEqual(['high-rtt']);
  });

  it('nearest-rank percentile', () => {
    expect(percentile([5, 1, 3, 2, 4], 95)).toBe(5);
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([7], 95)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 95)).toBe(95);
  });
});

describe('warningTexts', () => {
  it("words for the SDK's warnings, each once; names it does not know are not shown", () => {
    expect(
      warningTexts([
        'high-packet-loss',
        'high-packets-lost-fraction',
        'high-rtt',
        'high-jitter',
        'low-mos',
        'constant-audio-input-level',
        'something-new',
      ]),
    ).toEqual([
      'Your network is losing audio',
      'Your connection is slow',
      'Your audio is choppy',
      'Call quality is low',
      'Your microphone seems muted',
    ]);
    expect(warningTexts([])).toEqual([]);
  });
});

describe('qualityMark', () => {
  it('no mark without a report that measured something', () => {
    expect(qualityMark([])).toBeNull();
    expect(qualityMark([report({ samples: 0 })])).toBeNull();
  });

  it('good, fair and poor by the documented thresholds, saying why and at whose end', () => {
    expect(qualityMark([report()])).toEqual({
      grade: 'good',
      text: 'Good: 0% of audio lost, quality score 4.4 of 5.',
    });
    expect(qualityMark([report({ lossPercent: 2 })])?.grade).toBe('fair');
    expect(qualityMark([report({ lossPercent: 11 })])).toEqual({
      grade: 'poor',
      text: "Poor: 11% of audio lost (at ann@x.io's end).",
    });
    expect(qualityMark([report({ mosAvg: 2.9 })])?.text).toBe(
      "Poor: quality score 2.9 of 5 (at ann@x.io's end).",
    );
    expect(qualityMark([report({ jitterP95Ms: 35 })])?.text).toBe(
      "Fair: choppy audio (jitter 35 ms) (at ann@x.io's end).",
    );
    expect(qualityMark([report({ rttAvgMs: 450 })])?.grade).toBe('poor');
  });

  it('the worst end decides the grade and is named first; every end that was not good is named', () => {
    const mark = qualityMark(
      [report({ by: 'bob@x.io', rttAvgMs: 300 }), report({ lossPercent: 10.5, mosAvg: 3.4 })],
      (id) => (id === 'ann@x.io' ? 'your' : `${id}'s`),
    );
    expect(mark).toEqual({
      grade: 'poor',
      text:
        'Poor: 10.5% of audio lost, quality score 3.4 of 5 (at your end); ' +
        "slow connection (round trip 300 ms) (at bob@x.io's end).",
    });
  });
});

describe('the contract', () => {
  it('the report is a strict object with bounded numbers', () => {
    const ok = summariseQuality([sample()]);
    expect(v.safeParse(QualityReportSchema, ok).success).toBe(true);
    for (const bad of [
      { ...ok, lossPercent: 101 },
      { ...ok, mosMin: 9 },
      { ...ok, samples: 1.5 },
      { ...ok, warnings: ['<script>'] },
      { ...ok, by: 'me@x.io' },
      { ...ok, jitterAvgMs: -1 },
    ])
      expect(v.safeParse(QualityReportSchema, bad).success).toBe(false);
    expect(API.callQuality.body).toBe(QualityReportSchema);
  });

  it('a history row keeps reports; rows from before read as none', () => {
    const row = {
      callSid: 'CA1',
      direction: 'outbound',
      from: 'ann@x.io',
      to: 'bob@x.io',
      startedAt: 1000,
      endedAt: 9000,
      duration: 5,
      outcome: 'answered',
    };
    expect(callRecord.decode(row).value.quality).toEqual([]);
    const checked = callRecord.check({ ...row, quality: [report()] });
    expect(checked.ok).toBe(true);
    expect(callRecord.check({ ...row, quality: [{ ...report(), lossPercent: 'x' }] }).ok).toBe(
      false,
    );
  });
});
