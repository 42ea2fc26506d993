import type { SnapshotFrom } from 'xstate';
import type { ToastType, toastMachine } from './toast.machine';

type ToastSnapshot = SnapshotFrom<typeof toastMachine>;

/** Seed `show`: derived from the state. */
export const selectToastShown = (s: ToastSnapshot): boolean => s.matches('shown');
export const selectToastMessage = (s: ToastSnapshot): string => s.context.message;
export const selectToastType = (s: ToastSnapshot): ToastType => s.context.type;
