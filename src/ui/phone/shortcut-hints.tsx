/**
 * The person's phone shortcuts as the call controls show them: on the button (a small key hint),
 * in its title and in `aria-keyshortcuts`. The keys come from shortcuts.ts (their defaults and the
 * person's own choices in `settings:{identity}`, checked there); nothing here defines a key.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { SETTINGS_DOCUMENT } from '../../app/containers';
import { SETTINGS } from '../../contracts/objects';
import type { ShortcutAction } from '../../contracts/records/settings';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import { useContainerSelector, useSyncDocument } from '../sync/containers';
import { DEFAULT_SHORTCUTS, shortcutsFrom, type Shortcuts } from './shortcuts';

const ShortcutsContext = createContext<Shortcuts>(DEFAULT_SHORTCUTS);

/** Hands the signed-in person's shortcuts to the call controls below it. */
export function ShortcutHints({ identity, children }: { identity: string; children: ReactNode }) {
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const data = useContainerSelector(settings, selectDocumentData, null);
  const key = JSON.stringify(shortcutsFrom(data));
  const shortcuts = useMemo(() => JSON.parse(key) as Shortcuts, [key]);
  return <ShortcutsContext.Provider value={shortcuts}>{children}</ShortcutsContext.Provider>;
}

export interface ShortcutHint {
  /** As the person reads it ("Alt+M"). */
  keys: string;
  /** As `aria-keyshortcuts` wants it (modifier names spelt out: "Control+M"). */
  aria: string;
}

/** ARIA names the Ctrl key "Control"; the other modifiers and keys read the same. */
export function ariaKeyShortcut(combo: string): string {
  return combo
    .split('+')
    .map((part) => (part === 'Ctrl' ? 'Control' : part))
    .join('+');
}

/** The shortcut of `action` for the person, or null when it has none. */
export function useShortcutHint(action: ShortcutAction | undefined): ShortcutHint | null {
  const shortcuts = useContext(ShortcutsContext);
  if (action === undefined) return null;
  const keys = shortcuts[action];
  return keys ? { keys, aria: ariaKeyShortcut(keys) } : null;
}
