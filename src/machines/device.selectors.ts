import type { SnapshotFrom } from 'xstate';
import type { VoiceError } from './call.types';
import type { deviceMachine } from './device.machine';
import type { CallActor } from './device.setup';

type DeviceSnapshot = SnapshotFrom<typeof deviceMachine>;

export type DeviceStatus =
  | 'follower'
  | 'acquiring'
  | 'starting'
  | 'registering'
  | 'registered'
  | 'checking'
  | 'reconnecting'
  | 'error'
  | 'releasing'
  | 'signingOut'
  | 'signedOut';

/** One word for the phone's status line. */
export function selectDeviceStatus(s: DeviceSnapshot): DeviceStatus {
  const value = s.value;
  if (typeof value === 'string') return value === 'choosing' ? 'follower' : value;
  return value.owner.registration;
}

/** Calls can be placed and received. */
export const selectDeviceReady = (s: DeviceSnapshot): boolean => s.hasTag('ready');
/** Waiting on the voice service or the tab lock. */
export const selectDeviceBusy = (s: DeviceSnapshot): boolean => s.hasTag('busy');
/** Another tab holds the phone; this one may offer to take it over. */
export const selectIsFollower = (s: DeviceSnapshot): boolean => s.matches('follower');
/** What the person should read: a registration problem first, else a failed token renewal. */
export const selectDeviceError = (s: DeviceSnapshot): VoiceError | null =>
  s.context.lastError ?? s.context.tokenError;
/** The calls record (stable until a call is added or dismissed); read each call with its selectors. */
export const selectCalls = (s: DeviceSnapshot): Record<string, CallActor> => s.context.calls;
export const selectCall =
  (callId: string) =>
  (s: DeviceSnapshot): CallActor | null =>
    s.context.calls[callId] ?? null;
