/**
 * Where focus goes when a call changes under it. A control that acted on a call often disappears
 * with the change (Accept once answered, Hang up once ended, Pick up once taken), and focus would
 * drop to the page's body; instead it moves to the next sensible control: the card's first enabled
 * button (Hang up while connecting, the call controls once open), or the dial box once the call has
 * ended or its card is dismissed. A screen that starts a call elsewhere (Pick up on /hold) asks for this with
 * `focusNextCall()`, since its button may only be disabled, not gone.
 */
import { useEffect, type RefObject } from 'react';
import type { CallStatus } from '../../machines/call.selectors';

const ASK_TTL_MS = 15_000;
let askedAt = 0;

/** The next call card to appear (or change) takes the focus, within a few seconds. */
export function focusNextCall(): void {
  askedAt = Date.now();
}

const focusLost = (): boolean =>
  document.activeElement === null || document.activeElement === document.body;

/** Moves focus into (or on from) the call card `card` when its status changes and focus was lost. */
export function useCallFocus(card: RefObject<HTMLElement | null>, status: CallStatus): void {
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
    element.querySelector<HTMLElement>('button:not([disabled])')?.focus();
  }, [card, status]);
  // Dismissed (the card is gone, with the button that had the focus): the dial box.
  useEffect(
    () => () => {
      if (focusLost()) dialBox()?.focus();
    },
    [],
  );
}

const dialBox = () => document.querySelector<HTMLElement>('[data-testid="dial-input"]');
