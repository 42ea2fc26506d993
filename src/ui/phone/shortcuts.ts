/**
 * Keyboard shortcuts for the phone: what they do, their defaults, how a key press is written
 * ("Alt+Shift+M"), and the checks a remapping must pass (a modifier, not a browser's own keys, no
 * two actions on one combination). Pure: the softphone listens, /setting edits, the person's
 * `settings:{identity}` document keeps them under `shortcuts`.
 */
import type { JsonObject } from '../../contracts/record';
import {
  SHORTCUT_ACTIONS,
  settingsRecord,
  type ShortcutAction,
} from '../../contracts/records/settings';

export type Shortcuts = Record<ShortcutAction, string>;

export const SHORTCUT_LABELS: Record<ShortcutAction, string> = {
  answer: 'Answer the ringing call',
  hangUp: 'Hang up (or reject a ringing call)',
  mute: 'Mute or unmute',
  hold: 'Hold or resume the call',
  park: 'Park the call on the Hold screen',
  dial: 'Go to the dial box',
};

export const DEFAULT_SHORTCUTS: Shortcuts = {
  answer: 'Alt+A',
  hangUp: 'Alt+H',
  mute: 'Alt+M',
  hold: 'Alt+O',
  park: 'Alt+P',
  dial: 'Alt+D',
};

/** Combinations the browser or the system keeps for itself. */
const RESERVED = new Set([
  'Ctrl+W',
  'Ctrl+T',
  'Ctrl+N',
  'Ctrl+L',
  'Ctrl+R',
  'Ctrl+Q',
  'Ctrl+Tab',
  'Ctrl+Shift+Tab',
  'Ctrl+Shift+T',
  'Ctrl+Shift+N',
  'Alt+F4',
  'Alt+Tab',
  'Meta+Q',
  'Meta+W',
  'Meta+T',
  'Meta+N',
  'Meta+L',
  'Meta+R',
  'Meta+Tab',
]);

export interface KeyPress {
  key: string;
  code?: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

const MODIFIER_KEYS = new Set(['Alt', 'Control', 'Meta', 'Shift', 'AltGraph', 'CapsLock']);

/**
 * A key press as a combination ("Alt+M"), or null for a lone modifier. Letters and digits come
 * from the physical key (`code`), so Alt+M reads the same on a Mac, where Alt changes the character.
 */
export function comboOf(e: KeyPress): string | null {
  if (MODIFIER_KEYS.has(e.key)) return null;
  let key = e.key;
  if (e.code && /^Key[A-Z]$/.test(e.code)) key = e.code.slice(3);
  else if (e.code && /^Digit[0-9]$/.test(e.code)) key = e.code.slice(5);
  else if (key === ' ') key = 'Space';
  else if (key.length === 1) key = key.toUpperCase();
  const parts = [
    e.ctrlKey && 'Ctrl',
    e.altKey && 'Alt',
    e.shiftKey && 'Shift',
    e.metaKey && 'Meta',
  ];
  return [...parts.filter(Boolean), key].join('+');
}

/** Why a combination cannot be used for `action`, or null when it can. */
export function shortcutProblem(
  shortcuts: Shortcuts,
  action: ShortcutAction,
  combo: string,
): string | null {
  const parts = combo.split('+');
  const key = parts[parts.length - 1] ?? '';
  const hasModifier = parts.some((p) => p === 'Ctrl' || p === 'Alt' || p === 'Meta');
  if (!hasModifier && !/^F([1-9]|1[0-2])$/.test(key))
    return `${combo} needs Ctrl, Alt or Meta (or use F1 to F12), so typing is never taken for a shortcut.`;
  if (RESERVED.has(combo)) return `${combo} belongs to the browser.`;
  const taken = SHORTCUT_ACTIONS.find((a) => a !== action && shortcuts[a] === combo);
  if (taken) return `${combo} is already “${SHORTCUT_LABELS[taken]}”.`;
  return null;
}

/**
 * The shortcuts a settings document holds (read by its contract), each checked again: one that
 * clashes, lacks a modifier or belongs to the browser falls back to its default.
 */
export function shortcutsFrom(data: JsonObject | null | undefined): Shortcuts {
  const stored = settingsRecord.read(data ?? {}).shortcuts;
  const out: Shortcuts = { ...DEFAULT_SHORTCUTS };
  for (const action of SHORTCUT_ACTIONS) {
    const combo = stored[action];
    if (combo !== undefined && combo.length <= 40 && shortcutProblem(out, action, combo) === null)
      out[action] = combo;
  }
  return out;
}

/** The action a combination triggers, if any. */
export function actionFor(shortcuts: Shortcuts, combo: string): ShortcutAction | null {
  return SHORTCUT_ACTIONS.find((a) => shortcuts[a] === combo) ?? null;
}
