/**
 * Switchboard's service worker. It does one thing: the Accept and Reject buttons of an incoming
 * call's notification (a page cannot put buttons on a notification; only a service worker can show
 * one with actions and hear which was pressed). It caches nothing and never answers fetches.
 *
 * On a click it asks every Switchboard tab whose call it is; the tab holding that call answers,
 * applies Accept or Reject to it, and (unless rejected) is brought to the front.
 */
const MESSAGE = 'switchboard.notification';
const REPLY_WITHIN_MS = 2000;

self.addEventListener('install', () => {
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

/** Asks one tab whether the call is its own; resolves true when it says so in time. */
function ask(client, callId, action) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(false), REPLY_WITHIN_MS);
    channel.port1.onmessage = (reply) => {
      clearTimeout(timer);
      resolve(Boolean(reply.data && reply.data.mine));
    };
    client.postMessage({ kind: MESSAGE, callId, action }, [channel.port2]);
  });
}

self.addEventListener('notificationclick', (event) => {
  const data = event.notification.data || {};
  const callId = typeof data.callId === 'string' ? data.callId : null;
  const action = event.action === 'accept' || event.action === 'reject' ? event.action : 'show';
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (clients) => {
      const answers = await Promise.all(
        clients.map((c) => (callId ? ask(c, callId, action) : false)),
      );
      const owner = clients[answers.indexOf(true)] || clients[0];
      if (owner && action !== 'reject') await owner.focus();
    }),
  );
});
