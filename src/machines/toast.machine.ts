import { assign, setup, type ActorRefFrom } from 'xstate';

export type ToastType = 'info' | 'success' | 'warning' | 'error';

export interface ToastContext {
  message: string;
  /** Seed section 3: the toast's type, `info` by default. */
  type: ToastType;
}

/**
 * `toastType` rather than `type`, because `type` already names the event. It defaults to `info`.
 */
export type ToastEvent =
  { type: 'toast.show'; message: string; toastType?: ToastType } | { type: 'toast.close' };

/** How long a non-error toast stays before it closes itself. */
export const AUTO_DISMISS_MS = 5000;

/**
 * The app's single notification slot (seed section 3: show, message, type).
 *
 * Invariants: at most one toast is shown; a newer `toast.show` replaces the current one and
 * restarts its timer; error toasts stay until `toast.close`, every other type closes itself after
 * the named `autoDismiss` delay. `show` is derived from the state (`shown`), never stored.
 * Emits nothing: the UI reads it through `toast.selectors.ts`.
 */
export const toastMachine = setup({
  types: {
    context: {} as ToastContext,
    events: {} as ToastEvent,
  },
  delays: {
    autoDismiss: AUTO_DISMISS_MS,
  },
  guards: {
    isErrorToast: ({ event }) => event.type === 'toast.show' && event.toastType === 'error',
  },
  actions: {
    storeToast: assign(({ event }) =>
      event.type === 'toast.show'
        ? { message: event.message, type: event.toastType ?? 'info' }
        : {},
    ),
  },
}).createMachine({
  id: 'toast',
  context: { message: '', type: 'info' },
  initial: 'hidden',
  states: {
    hidden: {
      on: {
        'toast.show': [
          { guard: 'isErrorToast', target: 'shown.persistent', actions: 'storeToast' },
          { target: 'shown.timed', actions: 'storeToast' },
        ],
      },
    },
    shown: {
      description: 'A toast is on screen at the top right.',
      initial: 'timed',
      on: {
        // Re-entering restarts the auto-dismiss timer for the newer toast.
        'toast.show': [
          { guard: 'isErrorToast', target: '.persistent', reenter: true, actions: 'storeToast' },
          { target: '.timed', reenter: true, actions: 'storeToast' },
        ],
        'toast.close': { target: 'hidden' },
      },
      states: {
        timed: {
          description: 'An info, success or warning toast: closes itself after autoDismiss.',
          after: { autoDismiss: { target: '#toast.hidden' } },
        },
        persistent: {
          description: 'An error toast: stays until the user closes it.',
        },
      },
    },
  },
});

/** A running toast machine (the page's, systemId `toast`). */
export type ToastActor = ActorRefFrom<typeof toastMachine>;
