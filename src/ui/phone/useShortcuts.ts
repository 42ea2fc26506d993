import { useEffect } from 'react';
import { selectCallSummary, type CallSummary } from '../../machines/call.selectors';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import type { MirrorCommand } from '../../io/voice/mirror';
import { SETTINGS_DOCUMENT } from '../../app/containers';
import { SETTINGS } from '../../contracts/objects';
import { useContainerSelector, useSyncDocument } from '../sync/containers';
import { actionFor, comboOf, shortcutsFrom } from './shortcuts';
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
 * The person's keyboard shortcuts (from their settings document), anywhere in the app: answer,
 * hang up or reject, mute, hold or resume, park, and go to the dial box. `calls` are the calls this panel shows (its own
 * or, in a follower tab, the owner tab's) and `send` applies a command to one of them.
 */
export function useShortcuts(
  identity: string,
  calls: () => readonly CallSummary[],
  send: (callId: string, command: MirrorCommand) => void,
  focusDial: () => void,
): void {
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const data = useContainerSelector(settings, selectDocumentData, null);
  const shortcuts = JSON.stringify(shortcutsFrom(data));
  useEffect(() => {
    const map = JSON.parse(shortcuts) as ReturnType<typeof shortcutsFrom>;
    const onKey = (e: KeyboardEvent) => {
      if (e.repeat || e.defaultPrevented) return;
      // The shortcut editor in /setting listens for the new combination itself.
      if ((e.target as Element | null)?.closest?.('[data-shortcut-capture]')) return;
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
  }, [shortcuts, calls, send, focusDial]);
}

/** This tab's own calls as summaries. */
export const summariesOf = (entries: readonly [string, CallActor][]): CallSummary[] =>
  entries.map(([, call]) => selectCallSummary(call.getSnapshot()));
