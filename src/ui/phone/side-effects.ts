import { useEffect } from 'react';
import { selectCallRemote, selectCallStatus } from '../../machines/call.selectors';
import { canNotify, notifyIncomingCall } from '../../io/voice/notifications';
import type { CallActor } from '../../machines/device.setup';

/**
 * What calls do outside the panel: an incoming call in a hidden tab raises a browser notification
 * (when the person allowed them) with Accept and Reject (see notifications.ts). Presence's "on a
 * call" is not written here: the server sets it from the calls Twilio's webhooks report (every tab
 * and device of the person, server/calls/on-call.ts), and only the server writes presence.
 */
export function useCallSideEffects(calls: [string, CallActor][]): void {
  useEffect(() => {
    const notified = new Map<string, () => void>();
    const update = () => {
      for (const [id, call] of calls) {
        const snapshot = call.getSnapshot();
        const status = selectCallStatus(snapshot);
        const shown = notified.get(id);
        if (status === 'incoming' && !shown && canNotify()) {
          const remote = selectCallRemote(snapshot);
          const caller = remote.displayName ?? remote.identity ?? remote.number ?? 'Unknown caller';
          notified.set(id, notifyIncomingCall(id, caller));
        } else if (status !== 'incoming' && shown) {
          shown();
          notified.delete(id);
        }
      }
    };
    const subscriptions = calls.map(([, call]) => call.subscribe(update));
    update();
    return () => {
      for (const s of subscriptions) s.unsubscribe();
      for (const close of notified.values()) close();
    };
  }, [calls]);
}
