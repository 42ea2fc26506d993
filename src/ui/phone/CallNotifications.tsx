import { useState } from 'react';

type Permission = NotificationPermission | 'unsupported';

const currentPermission = (): Permission =>
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;

/** Asks for notifications (for calls that ring while this tab is hidden) and says where they stand. */
export function CallNotifications({ always = false }: { always?: boolean }) {
  const [permission, setPermission] = useState<Permission>(currentPermission);
  if (permission === 'unsupported')
    return always ? (
      <p className="softphone__hint" data-testid="notifications-state">
        This browser cannot show notifications.
      </p>
    ) : null;
  if (permission === 'granted')
    return always ? (
      <p className="softphone__hint" data-testid="notifications-state">
        On: a call that rings while Switchboard is hidden shows a notification with Accept and
        Reject.
      </p>
    ) : null;
  if (permission === 'denied')
    return (
      <p className="softphone__hint" data-testid="notifications-state">
        Call notifications are blocked for this site in your browser&apos;s settings.
      </p>
    );
  return (
    <button
      type="button"
      className="button button--quiet"
      data-testid="notifications-enable"
      onClick={() => {
        void Notification.requestPermission().then(() => setPermission(currentPermission()));
      }}
    >
      Notify me of calls when this tab is hidden
    </button>
  );
}
