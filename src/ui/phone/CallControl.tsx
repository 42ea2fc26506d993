import type { LucideIcon } from 'lucide-react';
import type { ShortcutAction } from '../../contracts/records/settings';
import { useShortcutHint } from './shortcut-hints';

/**
 * One call control: an icon over its word, the person's shortcut for it under the word (hidden from
 * screen readers, which read `aria-keyshortcuts` instead) and in its title. A toggle (Mute, Hold)
 * keeps its word and says its state with `aria-pressed`; a control that opens something (Keypad,
 * Transfer) says it with `aria-expanded`. Both look pressed while on.
 */
export function CallControl({
  icon: Icon,
  label,
  onClick,
  action,
  pressed,
  expanded,
  tone = 'plain',
  disabled = false,
  description,
}: {
  icon: LucideIcon;
  label: string;
  onClick: () => void;
  action?: ShortcutAction;
  pressed?: boolean;
  expanded?: boolean;
  tone?: 'plain' | 'accept' | 'danger';
  disabled?: boolean;
  /** What the control does, when its word is not enough (shown as its title). */
  description?: string;
}) {
  const hint = useShortcutHint(action);
  const title = [description ?? label, hint && `(${hint.keys})`].filter(Boolean).join(' ');
  return (
    <button
      type="button"
      className={`call-control call-control--${tone}`}
      aria-pressed={pressed}
      aria-expanded={expanded}
      aria-keyshortcuts={hint?.aria}
      title={title}
      disabled={disabled}
      onClick={onClick}
    >
      <Icon className="call-control__icon" aria-hidden="true" focusable="false" size={20} />
      <span className="call-control__label">{label}</span>
      {hint && (
        <kbd className="call-control__kbd" aria-hidden="true">
          {hint.keys}
        </kbd>
      )}
    </button>
  );
}
