// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallQuality } from '../../../../../src/contracts/records/call-quality';
import { namesFrom } from '../../../../../src/ui/names/names';
import { QualityMark } from '../../../../../src/ui/routes/history/QualityMark';

afterEach(cleanup);

const names = namesFrom(
  [
    {
      key: 'ann@x.io',
      data: { name: 'Ann Lee', email: 'ann@x.io', extension: '101' },
      revision: '1',
      lastEventId: 1,
      dateUpdated: 0,
      dateExpires: null,
    },
  ],
  [],
  [],
);

const report = (over: Partial<CallQuality>): CallQuality => ({
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

describe('QualityMark', () => {
  it('nothing for a call nobody reported on', () => {
    const { container } = render(<QualityMark quality={[]} me="ann@x.io" names={names} />);
    expect(container.textContent).toBe('');
  });

  it('the grade in a word, and why for the tooltip and screen readers; "your end" for me, a name for others', () => {
    render(<QualityMark quality={[report({ lossPercent: 11 })]} me="ann@x.io" names={names} />);
    const mark = screen.getByTestId('call-quality-mark');
    expect(mark.getAttribute('data-grade')).toBe('poor');
    expect(mark.getAttribute('title')).toBe('Poor: 11% of audio lost (at your end).');
    expect(mark.textContent).toBe('Poor: 11% of audio lost (at your end).');
    cleanup();
    render(<QualityMark quality={[report({ lossPercent: 11 })]} me="bob@x.io" names={names} />);
    expect(screen.getByTestId('call-quality-mark').getAttribute('title')).toBe(
      "Poor: 11% of audio lost (at Ann Lee's end).",
    );
  });
});
