import { describe, expect, it } from 'vitest';
import { namesFrom, remoteParty } from '../../../../src/ui/names/names';
import type { MapItem } from '../../../../src/machines/syncPorts';

const item = (key: string, data: Record<string, unknown>): MapItem => ({
  key,
  data,
  revision: '1',
  lastEventId: 1,
  dateUpdated: 0,
  dateExpires: null,
});

const names = namesFrom(
  [
    item('ben@example.com', { name: 'Ben Agent', email: 'ben@example.com', extension: '101' }),
    item('cat@example.com', { name: 'Cat Lead', email: 'cat@example.com', extension: '102' }),
  ],
  [
    item('grp-1', {
      name: 'Support',
      number: '200',
      members: ['ben@example.com'],
      strategy: 'simultaneous',
    }),
  ],
  [item('c-1', { name: 'Acme Ltd', phones: [{ label: 'main', number: '+442079460958' }] })],
);

describe('names', () => {
  it('names a colleague by identity, with the extension beside it', () => {
    expect(names.person('ben@example.com')).toEqual({ name: 'Ben Agent', detail: '101' });
    expect(names.address('client:cat@example.com')).toEqual({ name: 'Cat Lead', detail: '102' });
    expect(names.person('gone@example.com').name).toBe('gone@example.com');
  });

  it('names a number by the colleague, group or contact behind it', () => {
    expect(names.address('200')).toEqual({ name: 'Support', detail: '200' });
    expect(names.address('102')).toEqual({ name: 'Cat Lead', detail: '102' });
    // With no team country, numbers read in international form.
    expect(names.address('+442079460958')).toEqual({
      name: 'Acme Ltd',
      detail: '+44 20 7946 0958',
    });
    expect(names.address('+12025550143')).toEqual({ name: '+1 202 555 0143', detail: null });
    expect(names.group('grp-gone', 'Old desk')).toEqual({ name: 'Old desk', detail: null });
  });

  it("reads a number at home in the team's national form", () => {
    const uk = namesFrom([], [], [], 'GB');
    expect(uk.address('+442079460958')).toEqual({ name: '020 7946 0958', detail: null });
    expect(uk.address('+12025550143', 'Jo Bloggs')).toEqual({
      name: 'Jo Bloggs',
      detail: '+1 202 555 0143',
    });
  });

  it('never shows a parked call or a test call by its id', () => {
    expect(names.address('park:CAefa8', 'Ben Agent')).toEqual({ name: 'Ben Agent', detail: '101' });
    expect(names.address('park:CAefa8')).toEqual({ name: 'A parked call', detail: null });
    expect(names.address('test:grp-1')).toEqual({ name: 'Test call to Support', detail: '200' });
  });

  it('reads what was typed for a transfer as the person or group it reaches', () => {
    expect(names.typed('102').name).toBe('Cat Lead');
    expect(names.typed('ben@example.com').name).toBe('Ben Agent');
    expect(names.typed('support').name).toBe('Support');
    expect(names.typed('Dee').name).toBe('Dee');
  });

  it('names the other party of a call from its remote', () => {
    const remote = { identity: 'ben@example.com', number: null, displayName: 'ben@example.com' };
    expect(remoteParty(names, remote)).toEqual({ name: 'Ben Agent', detail: '101' });
    expect(remoteParty(names, { identity: null, number: '200', displayName: null })).toEqual({
      name: 'Support',
      detail: '200',
    });
    expect(
      remoteParty(names, { identity: 'x@example.com', number: null, displayName: 'Xavier' }),
    ).toEqual({ name: 'Xavier', detail: null });
  });
});
