import { describe, expect, it } from 'vitest';
import { callSummary as call } from '../../io/voice/callSummary';
import {
  actionFor,
  comboOf,
  DEFAULT_SHORTCUTS,
  shortcutProblem,
  shortcutsFrom,
} from '../../../../src/ui/phone/shortcuts';
import { commandFor } from '../../../../src/ui/phone/useShortcuts';

const press = (
  key: string,
  mods: Partial<Record<'alt' | 'ctrl' | 'meta' | 'shift', boolean>> = {},
  code?: string,
) => ({
  key,
  ...(code ? { code } : {}),
  altKey: mods.alt ?? false,
  ctrlKey: mods.ctrl ?? false,
  metaKey: mods.meta ?? false,
  shiftKey: mods.shift ?? false,
});

describe('keyboard shortcuts', () => {
  it('writes a key press as a combination, from the physical key for letters and digits', () => {
    expect(comboOf(press('µ', { alt: true }, 'KeyM'))).toBe('Alt+M');
    expect(comboOf(press('m', { ctrl: true, shift: true }, 'KeyM'))).toBe('Ctrl+Shift+M');
    expect(comboOf(press('1', { alt: true }, 'Digit1'))).toBe('Alt+1');
    expect(comboOf(press(' ', { alt: true }))).toBe('Alt+Space');
    expect(comboOf(press('F2'))).toBe('F2');
    expect(comboOf(press('Alt', { alt: true }))).toBeNull();
  });

  it('refuses a combination without a modifier, one the browser keeps, and one another action has', () => {
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'M')).toMatch(/needs Ctrl, Alt or Meta/);
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'Ctrl+W')).toMatch(/belongs to the browser/);
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'Alt+A')).toMatch(/already “Answer/);
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'Alt+M')).toBeNull();
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'F9')).toBeNull();
  });

  it('reads stored shortcuts defensively: a bad or clashing one falls back to its default', () => {
    expect(shortcutsFrom(null)).toEqual(DEFAULT_SHORTCUTS);
    expect(shortcutsFrom({ shortcuts: 'x' })).toEqual(DEFAULT_SHORTCUTS);
    expect(
      shortcutsFrom({ shortcuts: { mute: 'Alt+U', hangUp: 'Alt+A', dial: 5, answer: 'Ctrl+W' } }),
    ).toEqual({ ...DEFAULT_SHORTCUTS, mute: 'Alt+U' });
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+H')).toBe('hangUp');
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+Z')).toBeNull();
  });

  it('sends answer to the ringing call, hang up to the live one (else rejects), mute to the open one', () => {
    const ringing = call({});
    const open = call({ callId: 'CA2', status: 'open', muted: true });
    expect(commandFor('answer', [open, ringing])).toEqual({
      callId: 'CA1',
      command: { type: 'call.accept' },
    });
    expect(commandFor('hangUp', [ringing, open])).toEqual({
      callId: 'CA2',
      command: { type: 'call.hangUp' },
    });
    expect(commandFor('hangUp', [ringing])).toEqual({
      callId: 'CA1',
      command: { type: 'call.reject' },
    });
    expect(commandFor('mute', [open])).toEqual({ callId: 'CA2', command: { type: 'call.unmute' } });
    expect(commandFor('mute', [ringing])).toBeNull();
    expect(commandFor('answer', [call({ status: 'ended' })])).toBeNull();
  });

  it('holds, resumes and parks the open call, and does nothing while a request is on its way', () => {
    const open = call({ callId: 'CA2', status: 'open' });
    expect(commandFor('hold', [open])).toEqual({ callId: 'CA2', command: { type: 'call.hold' } });
    expect(commandFor('hold', [{ ...open, hold: 'onHold' }])).toEqual({
      callId: 'CA2',
      command: { type: 'call.resume' },
    });
    expect(commandFor('hold', [{ ...open, hold: 'holding' }])).toBeNull();
    expect(commandFor('park', [open])).toEqual({ callId: 'CA2', command: { type: 'call.park' } });
    expect(commandFor('park', [{ ...open, parking: true }])).toBeNull();
    expect(commandFor('park', [call({})])).toBeNull();
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+O')).toBe('hold');
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+P')).toBe('park');
  });
});
