import { createContext, useContext, useEffect, useMemo, useRef } from 'react';
import { selectCallSummary, type CallSummary } from '../../machines/call.selectors';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import type { MirrorCommand } from '../../io/voice/mirror';
import { SETTINGS_DOCUMENT } from '../../app/containers';
import { SETTINGS } from '../../contracts/objects';
import { useContainerSelector, useSyncDocument } from '../sync/useSyncContainers';
import {
  actionFor,
  comboOf,
  DEFAULT_SHORTCUT_HINTS,
  HELP_KEY,
  KEYPAD_KEYS,
  shortcutHints,
  shortcutsFrom,
  type ShortcutHints,
} from './shortcuts';
import type { CallActor } from '../../machines/device.setup';
import type { ShortcutAction } from '../../contracts/records/settings';

const LIVE = new Set(['connecting', 'ringing', 'answering', 'open', 'reconnecting']);

/** What a shortcut does to the calls on screen: the command and the call it goes to, if any. */
export function commandFor(
  action: Exclude<ShortcutAction, 'dial'>,
  calls: readonly CallSummary[],
): { callId: string; command: MirrorCommand } | null {
  const incoming = calls.find((c) => c.status === 'incoming');
  const live = calls.find((c) => LIVE.has(c.status));
  if (action === 'answer')
    return incoming ? { callId: incoming.callId, command: { type: 'call.accept' } } : null;
  if (action === 'hangUp') {
    if (live) return { callId: live.callId, command: { type: 'call.hangUp' } };
    return incoming ? { callId: incoming.callId, command: { type: 'call.reject' } } : null;
  }
  const open = calls.find((c) => c.status === 'open' || c.status === 'reconnecting');
  if (!open) return null;
  if (action === 'hold') {
    if (open.parking || open.hold === 'holding' || open.hold === 'resuming') return null;
    return {
      callId: open.callId,
      command: { type: open.hold === 'off' ? 'call.hold' : 'call.resume' },
    };
  }
  if (action === 'park')
    return open.parking ? null : { callId: open.callId, command: { type: 'call.park' } };
  return { callId: open.callId, command: { type: open.muted ? 'call.unmute' : 'call.mute' } };
}

/**
 * The person's shortcuts as hints for buttons (see the top of shortcuts.ts): provided by the phone
 * panel from their settings; the defaults anywhere else (a test rendering a card alone).
 */
export const ShortcutHintsContext = createContext<ShortcutHints>(DEFAULT_SHORTCUT_HINTS);

/** Each action's keys for its button: `hints.mute.keys` to show, `hints.mute.aria` for `aria-keyshortcuts`. */
export const useShortcutHints = (): ShortcutHints => useContext(ShortcutHintsContext);

const NOT_TEXT = new Set([
  'button',
  'checkbox',
  'radio',
  'submit',
  'reset',
  'range',
  'color',
  'file',
]);

/** Whether a key press there types text (or picks in a list): keys without a modifier are its own. */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !NOT_TEXT.has(target.type);
}

/** A plain key (no Ctrl, Alt or Meta; Shift allowed, it makes "?", "*" and "#"), not typed into a field. */
const plainKey = (e: KeyboardEvent): boolean =>
  !e.ctrlKey && !e.altKey && !e.metaKey && !e.defaultPrevented && !isTextField(e.target);

/**
 * While `open`, the keypad takes typed digits (0–9, * and #) as tones, unless focus is in a text
 * field (the dial box, the transfer box), where they are typed.
 */
export function useKeypadKeys(open: boolean, press: (digit: string) => void): void {
  const pressRef = useRef(press);
  useEffect(() => {
    pressRef.current = press;
  });
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (!plainKey(e) || !(KEYPAD_KEYS as readonly string[]).includes(e.key)) return;
      e.preventDefault();
      pressRef.current(e.key);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
}

/**
 * The person's keyboard shortcuts (from their settings document), anywhere in the app: answer,
 * hang up or reject, mute, hold or resume, park, and go to the dial box; "?" (focus not in a text
 * field) calls `showHelp`. `calls` are the calls this panel shows (its own or, in a follower tab,
 * the owner tab's) and `send` applies a command to one of them. Returns the hints for the buttons.
 */
export function useShortcuts(
  identity: string,
  calls: () => readonly CallSummary[],
  send: (callId: string, command: MirrorCommand) => void,
  focusDial: () => void,
  showHelp: () => void = () => {},
): ShortcutHints {
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const data = useContainerSelector(settings, selectDocumentData, null);
  const shortcuts = JSON.stringify(shortcutsFrom(data));
  useEffect(() => {
    const map = JSON.parse(shortcuts) as ReturnType<typeof shortcutsFrom>;
    const onKey = (e: KeyboardEvent) => {
      if (e.repeat || e.defaultPrevented) return;
      // The shortcut editor in /setting listens for the new combination itself.
      if ((e.target as Element | null)?.closest?.('[data-shortcut-capture]')) return;
      if (e.key === HELP_KEY && plainKey(e)) {
        e.preventDefault();
        showHelp();
        return;
      }
      const combo = comboOf(e);
      const action = combo === null ? null : actionFor(map, combo);
      if (action === null) return;
      e.preventDefault();
      if (action === 'dial') {
        focusDial();
        return;
      }
      const target = commandFor(action, calls());
      if (target) send(target.callId, target.command);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [shortcuts, calls, send, focusDial, showHelp]);
  return useMemo(
    () => shortcutHints(JSON.parse(shortcuts) as ReturnType<typeof shortcutsFrom>),
    [shortcuts],
  );
}

/** This tab's own calls as summaries. */
export const summariesOf = (entries: readonly [string, CallActor][]): CallSummary[] =>
  entries.map(([, call]) => selectCallSummary(call.getSnapshot()));
