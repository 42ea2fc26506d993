/**
 * Where focus goes when a call changes under it. A control that acted on a call often disappears
 * with the change (Accept once answered, Hang up once ended, Pick up once taken), and focus would
 * drop to the page's body; instead it moves to the next sensible control: the card's first enabled
 * button (Hang up while connecting, the call controls once open), or the dial box once the call has
 * ended or its card is dismissed. A screen that starts a call elsewhere (Pick up on /hold) asks for this with
 * `focusNextCall()`, since its button may only be disabled, not gone.
 */
import { useEffect, useRef, type RefObject } from 'react';
import type { CallStatus } from '../../machines/call.selectors';

const ASK_TTL_MS = 15_000;
let askedAt = 0;

/** The next call card to appear (or change) takes the focus, within a few seconds. */
export function focusNextCall(): void {
  askedAt = Date.now();
}

const focusLost = (): boolean =>
  document.activeElement === null || document.activeElement === document.body;

/**
 * Moves focus on within the call card `card` when its `phase` (status, hold, transfer…) changes and
 * focus was lost: to the button where it was (Hold is disabled while holding, then pressed), else
 * the first enabled one; to the dial box once the call has ended or its card is dismissed.
 */
export function useCallFocus(
  card: RefObject<HTMLElement | null>,
  status: CallStatus,
  phase: string = status,
): void {
  const lastButton = useRef(-1);
  useEffect(() => {
    const element = card.current;
    if (element === null) return;
    const onFocus = (event: FocusEvent) => {
      lastButton.current = buttonsOf(element).indexOf(event.target as HTMLElement);
    };
    element.addEventListener('focusin', onFocus);
    return () => element.removeEventListener('focusin', onFocus);
  }, [card]);
  useEffect(() => {
    const element = card.current;
    if (element === null) return;
    const asked = status !== 'ended' && Date.now() - askedAt < ASK_TTL_MS;
    if (!asked && !focusLost()) return;
    if (asked) askedAt = 0;
    if (status === 'ended') {
      (dialBox() ?? element.querySelector<HTMLElement>('button:not([disabled])'))?.focus();
      return;
    }
    const buttons = buttonsOf(element);
    const same = asked ? undefined : buttons[lastButton.current];
    const target =
      same && !same.matches(':disabled') ? same : buttons.find((b) => !b.matches(':disabled'));
    target?.focus();
  }, [card, status, phase]);
  // Dismissed (the card is gone, with the button that had the focus): the dial box.
  useEffect(
    () => () => {
      if (focusLost()) dialBox()?.focus();
    },
    [],
  );
}

const buttonsOf = (element: HTMLElement): HTMLElement[] => [
  ...element.querySelectorAll<HTMLElement>('button'),
];

const dialBox = () => document.querySelector<HTMLElement>('[data-testid="dial-input"]');
