/**
 * Keyboard shortcuts for the phone: what they do, their defaults, how a key press is written
 * ("Alt+Shift+U"), and the checks a remapping must pass (a modifier, not a browser's own keys, no
 * two actions on one combination). Pure: the softphone listens, /setting edits, the person's
 * `settings:{identity}` document keeps them under `shortcuts`.
 *
 * For a button that a shortcut works (the call controls, the dial box), the shape to read:
 *
 *   type ShortcutAction = 'answer' | 'hangUp' | 'mute' | 'hold' | 'park' | 'dial';
 *   interface ShortcutHint {
 *     action: ShortcutAction;
 *     label: string; // 'Mute or unmute' (SHORTCUT_LABELS)
 *     keys: string;  // 'Alt+Shift+U': what the button shows, e.g. in a <kbd> or its title
 *     aria: string;  // 'Alt+Shift+U': the button's `aria-keyshortcuts` (Ctrl written Control)
 *   }
 *   type ShortcutHints = Record<ShortcutAction, ShortcutHint>;
 *
 * In a component: `const hints = useShortcutHints()` (useShortcuts.ts; the person's own keys,
 * the defaults outside the phone panel), then
 * `<button aria-keyshortcuts={hints.mute.aria} title={`${label} (${hints.mute.keys})`}>`. Outside
 * React: `shortcutHints(shortcuts)` or `DEFAULT_SHORTCUT_HINTS`. One action may sit on two buttons:
 * hangUp is also Reject on a ringing call; Mute and Hold are toggles (aria-pressed). The keypad's typed digits and "?" (the list of
 * shortcuts) need no modifier and are not remappable: KEYPAD_KEYS, HELP_KEY.
 *
 * Why Alt+Shift and these letters (checked against the browsers' own lists):
 * - Chrome (Windows, Linux) keeps Alt+D and Alt+E/Alt+F (address bar, menu), Alt+Home, Alt+Left and
 *   Alt+Right, and with Shift Alt+Shift+A (inactive dialogs), B (bookmarks bar), I (feedback) and T
 *   (toolbar); ChromeOS adds Alt+Shift+M (Files), N, S and L.
 * - Firefox (Windows, Linux) opens its menus with Alt+F, E, V, S, B, T and H (so the old Alt+H, Help,
 *   and Alt+D, the address bar, were taken), and keeps Alt+Home and Alt+Left/Right; its Alt+Shift is
 *   only for a page's own `accesskey`, which Switchboard does not use. F1, F3, F5–F7, F9–F12 and
 *   Ctrl+D/F/H/J/K/L/P/S/U are the browsers' too.
 * - Safari (macOS) keeps Cmd and Cmd+Option combinations; Option+Shift+letter types a character in a
 *   text field, which the shortcut takes instead (the physical key is read, so Option works as Alt).
 * So the defaults are Alt+Shift with a letter none of them use: Y (yes, answer), H (hang up),
 * U (mute), O (hold), P (park), D (dial).
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
  answer: 'Alt+Shift+Y',
  hangUp: 'Alt+Shift+H',
  mute: 'Alt+Shift+U',
  hold: 'Alt+Shift+O',
  park: 'Alt+Shift+P',
  dial: 'Alt+Shift+D',
};

/** The keypad's keys, typed while it is open (focus not in a text field). */
export const KEYPAD_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;
/** Opens the list of shortcuts (focus not in a text field). */
export const HELP_KEY = '?';

export interface ShortcutHint {
  action: ShortcutAction;
  label: string;
  /** As shown: "Alt+Shift+U". */
  keys: string;
  /** As `aria-keyshortcuts` wants it: "Alt+Shift+U", Ctrl written "Control". */
  aria: string;
}
export type ShortcutHints = Record<ShortcutAction, ShortcutHint>;

/** A combination as an `aria-keyshortcuts` value (modifiers as the UI Events spec names them). */
export function ariaKeys(combo: string): string {
  return combo
    .split('+')
    .map((part) => (part === 'Ctrl' ? 'Control' : part))
    .join('+');
}

/** Each action's hint for its button. */
export function shortcutHints(shortcuts: Shortcuts): ShortcutHints {
  const out = {} as ShortcutHints;
  for (const action of SHORTCUT_ACTIONS) {
    const keys = shortcuts[action];
    out[action] = { action, label: SHORTCUT_LABELS[action], keys, aria: ariaKeys(keys) };
  }
  return out;
}

export const DEFAULT_SHORTCUT_HINTS: ShortcutHints = shortcutHints(DEFAULT_SHORTCUTS);

/** Combinations the browser or the system keeps for itself (see the list at the top). */
const RESERVED = new Set([
  // Chrome and Firefox: the address bar, the menus, home, back and forward.
  'Alt+D',
  'Alt+E',
  'Alt+F',
  'Alt+V',
  'Alt+S',
  'Alt+B',
  'Alt+T',
  'Alt+H',
  'Alt+Home',
  'Alt+ArrowLeft',
  'Alt+ArrowRight',
  'Alt+Space',
  // Chrome's and ChromeOS's Alt+Shift keys.
  'Alt+Shift+A',
  'Alt+Shift+B',
  'Alt+Shift+I',
  'Alt+Shift+T',
  'Alt+Shift+M',
  'Alt+Shift+N',
  'Alt+Shift+S',
  'Alt+Shift+L',
  // Function keys the browsers use (help, find again, reload, address bar, caret browsing, reader
  // view, menu bar, full screen, developer tools).
  'F1',
  'F3',
  'F5',
  'F6',
  'F7',
  'F9',
  'F10',
  'F11',
  'F12',
  'Ctrl+D',
  'Ctrl+F',
  'Ctrl+H',
  'Ctrl+J',
  'Ctrl+K',
  'Ctrl+P',
  'Ctrl+S',
  'Ctrl+U',
  'Ctrl+Shift+I',
  'Ctrl+Shift+J',
  'Ctrl+Shift+C',
  'Ctrl+Shift+B',
  'Ctrl+Shift+Delete',
  'Meta+D',
  'Meta+F',
  'Meta+P',
  'Meta+S',
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
