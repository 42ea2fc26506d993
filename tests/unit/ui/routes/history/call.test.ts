import { describe, expect, it } from 'vitest';
import {
  callFromData,
  callOf,
  filterFrom,
  formatDuration,
  passes,
} from '../../../../../src/ui/routes/history/call';

describe('call history items', () => {
  it('reads a well-formed call, with ISO or epoch times', () => {
    const call = callFromData(7, {
      direction: 'inbound',
      from: '+14155550100',
      to: '204',
      user: 'tom',
      group: 'Front desk',
      startedAt: '2026-11-01T09:00:00.000Z',
      answeredAt: 1_793_523_605_000,
      endedAt: null,
      duration: 125,
      outcome: 'missed',
    });
    expect(call).toMatchObject({
      index: 7,
      direction: 'inbound',
      startedAt: Date.UTC(2026, 10, 1, 9),
      answeredAt: 1_793_523_605_000,
      endedAt: null,
      duration: 125,
      outcome: 'missed',
    });
  });

  it('reads unknown or malformed fields as absent instead of failing', () => {
    const call = callFromData(0, {
      direction: 'sideways',
      startedAt: 'not a date',
      duration: -4,
      outcome: 'won',
      from: 5,
    });
    expect(call).toMatchObject({
      direction: null,
      startedAt: null,
      duration: null,
      outcome: null,
      from: '',
    });
  });

  it('reads the whole trail of a parked call, holds included, leaving out anything malformed', () => {
    const call = callFromData(3, {
      handledBy: 'cat@x.io',
      trail: [
        { action: 'held', by: 'bob@x.io', at: 1 },
        { action: 'parked', by: 'bob@x.io', at: 2 },
        { action: 'pickedUp', by: 'cat@x.io', at: 3 },
        { action: 'pickedUp', by: 4 },
        'parked',
        null,
      ],
    });
    expect(call.handledBy).toBe('cat@x.io');
    expect(call.trail.map((step) => step.action)).toEqual(['held', 'parked', 'pickedUp']);
    expect(callFromData(4, { trail: 'parked' }).trail).toEqual([]);
  });

  it('reads a voicemail by its id on either backend, and one that is not a voicemail as none', () => {
    const embedded = { id: 'vm-0123456789abcdef', seconds: 12 };
    const twilio = { id: `RE${'0a'.repeat(16)}`, seconds: 30 };
    expect(callFromData(1, { voicemail: embedded }).voicemail).toEqual(embedded);
    expect(callFromData(2, { voicemail: twilio }).voicemail).toEqual(twilio);
    expect(
      callFromData(3, { voicemail: { id: '../etc/passwd', seconds: 1 } }).voicemail,
    ).toBeNull();
    expect(
      callFromData(4, { voicemail: { recordingSid: 'RE1', seconds: 3 } }).voicemail,
    ).toBeNull();
  });

  it('keeps who was called and the group as stored, null when absent', () => {
    const call = callFromData(1, { callee: 'cat@x.io', group: 'g1', groupName: 'Front desk' });
    expect(call).toMatchObject({ callee: 'cat@x.io', group: 'g1', groupName: 'Front desk' });
    expect(callFromData(2, {})).toMatchObject({ callee: null, group: null, groupName: null });
  });

  it('parses each list item once', () => {
    const item = {
      index: 1,
      data: { direction: 'outbound' },
      revision: '1',
      lastEventId: 1,
      dateUpdated: 0,
      dateExpires: null,
    };
    expect(callOf(item)).toBe(callOf(item));
  });

  it('takes the filter from the query parameter, anything unknown meaning all', () => {
    expect(filterFrom('missed')).toBe('missed');
    expect(filterFrom('inbound')).toBe('inbound');
    expect(filterFrom('voicemail')).toBe('voicemail');
    expect(filterFrom('MISSED')).toBe('all');
    expect(filterFrom(null)).toBe('all');
    expect(filterFrom('constructor')).toBe('all');
  });

  it('filters by direction, by missed outcome (a message left included) or by voicemail', () => {
    const inboundMissed = callFromData(1, { direction: 'inbound', outcome: 'missed' });
    const outboundAnswered = callFromData(2, { direction: 'outbound', outcome: 'answered' });
    expect(passes(inboundMissed, 'all') && passes(outboundAnswered, 'all')).toBe(true);
    expect(passes(inboundMissed, 'inbound')).toBe(true);
    expect(passes(outboundAnswered, 'inbound')).toBe(false);
    expect(passes(outboundAnswered, 'outbound')).toBe(true);
    expect(passes(inboundMissed, 'missed')).toBe(true);
    expect(passes(outboundAnswered, 'missed')).toBe(false);
    const message = callFromData(3, {
      direction: 'outbound',
      outcome: 'voicemail',
      voicemail: { id: 'vm-0123456789abcdef', seconds: 14 },
    });
    expect(passes(message, 'voicemail') && passes(message, 'missed')).toBe(true);
    expect(passes(inboundMissed, 'voicemail')).toBe(false);
  });

  it('formats durations as m:ss or h:mm:ss', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(65)).toBe('1:05');
    expect(formatDuration(3723)).toBe('1:02:03');
    expect(formatDuration(null)).toBeNull();
  });
});
