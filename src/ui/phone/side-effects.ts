import { useEffect } from 'react';
import { selectCallRemote, selectCallStatus } from '../../machines/call.selectors';
import type { CallActor } from '../../machines/device.machine';
import { usePresence } from '../presence/PresenceProvider';

/**
 * What calls do outside the panel: presence says "on a call" while one is open here, and an
 * incoming call in a hidden tab raises a browser notification (when the person allowed them) that
 * brings the tab forward.
 */
export function useCallSideEffects(calls: [string, CallActor][]): void {
  const { actor: presence } = usePresence();

  useEffect(() => {
    const notified = new Map<string, Notification>();
    const update = () => {
      let onCall = false;
      for (const [id, call] of calls) {
        const snapshot = call.getSnapshot();
        const status = selectCallStatus(snapshot);
        if (status === 'open' || status === 'reconnecting') onCall = true;
        const shown = notified.get(id);
        if (status === 'incoming' && !shown && canNotify()) {
          const remote = selectCallRemote(snapshot);
          const note = new Notification('Incoming call', {
            body: remote.displayName ?? remote.identity ?? remote.number ?? 'Unknown caller',
            tag: `call-${id}`,
            requireInteraction: true,
          });
          note.onclick = () => {
            window.focus();
            note.close();
          };
          notified.set(id, note);
        } else if (status !== 'incoming' && shown) {
          shown.close();
          notified.delete(id);
        }
      }
      presence?.send({ type: 'presence.setOnCall', onCall });
    };
    const subscriptions = calls.map(([, call]) => call.subscribe(update));
    update();
    return () => {
      for (const s of subscriptions) s.unsubscribe();
      for (const note of notified.values()) note.close();
    };
  }, [calls, presence]);
}

function canNotify(): boolean {
  return (
    typeof Notification !== 'undefined' &&
    Notification.permission === 'granted' &&
    document.visibilityState === 'hidden'
  );
}
