// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { QualityIndicator } from '../../../../src/ui/phone/QualityIndicator';

afterEach(cleanup);

describe('QualityIndicator', () => {
  it("says the SDK's active warnings in words, in a status region that stays while they come and go", () => {
    const { rerender } = render(<QualityIndicator warnings={[]} />);
    const region = screen.getByRole('status');
    expect(region.textContent).toBe('');
    rerender(<QualityIndicator warnings={['high-packet-loss', 'high-packets-lost-fraction']} />);
    expect(screen.getByRole('status')).toBe(region);
    expect(region.textContent).toBe('Your network is losing audio');
    rerender(<QualityIndicator warnings={['constant-audio-input-level']} />);
    expect(region.textContent).toBe('Your microphone seems muted');
    expect(region.getAttribute('data-warnings')).toBe('constant-audio-input-level');
  });
});
