/**
 * The person's phone shortcut for one call control: on the button (a small key hint), in its title
 * and in `aria-keyshortcuts`. The keys come from the phone panel's `ShortcutHintsContext`
 * (useShortcuts.ts, from shortcuts.ts and the person's settings); nothing here defines a key.
 */
import type { ShortcutAction } from '../../contracts/records/settings';
import type { ShortcutHint } from './shortcuts';
import { useShortcutHints } from './useShortcuts';

/** The shortcut of `action` for the person, or null when it has none. */
export function useShortcutHint(action: ShortcutAction | undefined): ShortcutHint | null {
  const hints = useShortcutHints();
  if (action === undefined) return null;
  const hint = hints[action];
  return hint.keys ? hint : null;
}
