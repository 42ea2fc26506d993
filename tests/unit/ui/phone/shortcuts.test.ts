import { describe, expect, it } from 'vitest';
import { callSummary as call } from '../../io/voice/callSummary';
import { SHORTCUT_ACTIONS } from '../../../../src/contracts/records/settings';
import {
  actionFor,
  ariaKeys,
  comboOf,
  DEFAULT_SHORTCUT_HINTS,
  DEFAULT_SHORTCUTS,
  shortcutHints,
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
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'Alt+Shift+Y')).toMatch(/already “Answer/);
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'Alt+M')).toBeNull();
    expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', 'F8')).toBeNull();
  });

  it('keeps off the browsers’ own keys: Chrome’s and Firefox’s Alt keys, their Alt+Shift keys, F5', () => {
    for (const combo of ['Alt+D', 'Alt+H', 'Alt+F', 'Alt+Shift+T', 'Alt+Shift+M', 'F5', 'F9'])
      expect(shortcutProblem(DEFAULT_SHORTCUTS, 'mute', combo)).toMatch(/belongs to the browser/);
    // The defaults pass their own checks.
    for (const action of SHORTCUT_ACTIONS)
      expect(shortcutProblem(DEFAULT_SHORTCUTS, action, DEFAULT_SHORTCUTS[action])).toBeNull();
    expect(shortcutsFrom({ shortcuts: { dial: 'Alt+D' } }).dial).toBe('Alt+Shift+D');
  });

  it('gives each action a hint for its button: the keys and the aria-keyshortcuts value', () => {
    expect(DEFAULT_SHORTCUT_HINTS.mute).toEqual({
      action: 'mute',
      label: 'Mute or unmute',
      keys: 'Alt+Shift+U',
      aria: 'Alt+Shift+U',
    });
    expect(ariaKeys('Ctrl+Shift+M')).toBe('Control+Shift+M');
    expect(shortcutHints({ ...DEFAULT_SHORTCUTS, hold: 'Ctrl+Alt+9' }).hold.aria).toBe(
      'Control+Alt+9',
    );
  });

  it('reads stored shortcuts defensively: a bad or clashing one falls back to its default', () => {
    expect(shortcutsFrom(null)).toEqual(DEFAULT_SHORTCUTS);
    expect(shortcutsFrom({ shortcuts: 'x' })).toEqual(DEFAULT_SHORTCUTS);
    expect(
      shortcutsFrom({
        shortcuts: { mute: 'Alt+U', hangUp: 'Alt+Shift+Y', dial: 5, answer: 'Ctrl+W' },
      }),
    ).toEqual({ ...DEFAULT_SHORTCUTS, mute: 'Alt+U' });
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+Shift+H')).toBe('hangUp');
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
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+Shift+O')).toBe('hold');
    expect(actionFor(DEFAULT_SHORTCUTS, 'Alt+Shift+P')).toBe('park');
  });
});
