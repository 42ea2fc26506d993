// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallQuality } from '../../../../../src/contracts/records/call-quality';
import { QualityMark } from '../../../../../src/ui/routes/history/QualityMark';

afterEach(cleanup);

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
    const { container } = render(<QualityMark quality={[]} me="ann@x.io" />);
    expect(container.textContent).toBe('');
  });

  it('the grade in a word, and why for the tooltip and screen readers; "your end" for me', () => {
    render(<QualityMark quality={[report({ lossPercent: 11 })]} me="ann@x.io" />);
    const mark = screen.getByTestId('call-quality-mark');
    expect(mark.getAttribute('data-grade')).toBe('poor');
    expect(mark.getAttribute('title')).toBe('Poor: 11% of audio lost (at your end).');
    expect(mark.textContent).toBe('Poor: 11% of audio lost (at your end).');
    cleanup();
    render(<QualityMark quality={[report({ lossPercent: 11 })]} me="bob@x.io" />);
    expect(screen.getByTestId('call-quality-mark').getAttribute('title')).toBe(
      "Poor: 11% of audio lost (at ann@x.io's end).",
    );
  });
});
