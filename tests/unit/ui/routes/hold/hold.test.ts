import { describe, expect, it } from 'vitest';
import { formatWaiting, holdFrom } from '../../../../../src/ui/routes/hold/hold';

describe('holdFrom', () => {
  it('reads caller, parkedBy, parkedAt (epoch ms or ISO) and claimedBy', () => {
    expect(holdFrom('CA1', { caller: ' Ada ', parkedBy: 'bob@x.io', parkedAt: 1000 })).toEqual({
      callId: 'CA1',
      caller: 'Ada',
      parkedBy: 'bob@x.io',
      parkedAt: 1000,
      claimedBy: null,
    });
    expect(
      holdFrom('CA2', { caller: '+1555', parkedAt: '2026-01-01T00:00:00Z', claimedBy: 'c@x.io' }),
    ).toMatchObject({ parkedAt: Date.UTC(2026, 0, 1), parkedBy: '', claimedBy: 'c@x.io' });
  });

  it.each([
    [{}],
    [{ caller: '', parkedAt: 1 }],
    [{ caller: 'Ada' }],
    [{ caller: 'Ada', parkedAt: 'yesterday' }],
    [{ caller: 7, parkedAt: 1 }],
  ])('is null for data that is not a hold: %o', (data) => {
    expect(holdFrom('CA1', data)).toBeNull();
  });
});

describe('formatWaiting', () => {
  it.each([
    [0, '0:00'],
    [999, '0:00'],
    [61_000, '1:01'],
    [59 * 60_000 + 59_000, '59:59'],
    [3_600_000 + 5_000, '1:00:05'],
    [-5_000, '0:00'],
  ])('%i ms after parking shows %s', (elapsed, text) => {
    expect(formatWaiting(1_000_000, 1_000_000 + elapsed)).toBe(text);
  });
});
