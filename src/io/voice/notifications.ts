/**
 * Browser notifications for incoming calls. With the service worker (public/phone-sw.js) the
 * notification carries Accept and Reject buttons; without one (no secure context, or the browser
 * has none) it is a plain notification whose click brings the tab forward.
 */

const WORKER_URL = '/phone-sw.js';
const MESSAGE = 'switchboard.notification';

export type NotificationAction = 'accept' | 'reject' | 'show';

let registration: Promise<ServiceWorkerRegistration | null> | null = null;

/** Registers the phone's service worker once per page; null where there can be none. */
export function phoneWorker(): Promise<ServiceWorkerRegistration | null> {
  if (registration) return registration;
  registration =
    typeof navigator !== 'undefined' && 'serviceWorker' in navigator && window.isSecureContext
      ? navigator.serviceWorker.register(WORKER_URL).then(
          () => navigator.serviceWorker.ready,
          () => null,
        )
      : Promise.resolve(null);
  return registration;
}

/** Whether the person allowed notifications and this tab is out of sight. */
export function canNotify(): boolean {
  return (
    typeof Notification !== 'undefined' &&
    Notification.permission === 'granted' &&
    document.visibilityState === 'hidden'
  );
}

/** Shows "Incoming call" for a call; the returned function takes the notification away again. */
export function notifyIncomingCall(callId: string, caller: string): () => void {
  const tag = `call-${callId}`;
  let closed = false;
  let fallback: Notification | null = null;
  void phoneWorker().then(async (worker) => {
    if (closed) return;
    if (worker) {
      await worker.showNotification('Incoming call', {
        body: caller,
        tag,
        requireInteraction: true,
        data: { callId },
        // Not yet in TypeScript's NotificationOptions; Chromium shows them as buttons.
        ...({
          actions: [
            { action: 'accept', title: 'Accept' },
            { action: 'reject', title: 'Reject' },
          ],
        } as object),
      });
      if (closed) for (const n of await worker.getNotifications({ tag })) n.close();
      return;
    }
    fallback = new Notification('Incoming call', { body: caller, tag, requireInteraction: true });
    fallback.onclick = () => {
      window.focus();
      fallback?.close();
    };
  });
  return () => {
    closed = true;
    fallback?.close();
    void phoneWorker().then(async (worker) => {
      for (const n of (await worker?.getNotifications({ tag })) ?? []) n.close();
    });
  };
}

/**
 * Hears the notification buttons: `handle` applies the action when the call is this tab's and says
 * whether it was (the service worker then brings this tab forward).
 */
export function onNotificationAction(
  handle: (callId: string, action: NotificationAction) => boolean,
): () => void {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return () => undefined;
  const listener = (event: MessageEvent) => {
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null) return;
    const { kind, callId, action } = data as Record<string, unknown>;
    if (kind !== MESSAGE || typeof callId !== 'string') return;
    if (action !== 'accept' && action !== 'reject' && action !== 'show') return;
    const mine = handle(callId, action);
    event.ports[0]?.postMessage({ mine });
  };
  navigator.serviceWorker.addEventListener('message', listener);
  return () => navigator.serviceWorker.removeEventListener('message', listener);
}
