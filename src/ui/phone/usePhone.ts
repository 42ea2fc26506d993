/** The signed-in person's phone as the screens reach it (the workspace runs it: src/app/phone.ts). */
import { useSelector } from '@xstate/react';
import type { PhoneHandle } from '../../app/phone';
import { useWorkspaceSnapshot } from '../app/WorkspaceProvider';

export type { PhoneHandle } from '../../app/phone';

/** The phone of this frame (runtime null while starting). */
export function usePhone(): PhoneHandle {
  return useWorkspaceSnapshot().phone;
}

/**
 * Click to call: a function that places a call from this tab's phone, or null while the phone cannot
 * place one (starting, held by another tab, broken). `to` is `client:<identity>` for a colleague,
 * otherwise what to dial.
 */
export function useDial(): ((to: string, displayName?: string | null) => void) | null {
  const { runtime } = usePhone();
  const ready = useSelector(runtime?.device, (s) => s?.hasTag('ready') ?? false);
  return runtime && ready ? runtime.dial : null;
}
