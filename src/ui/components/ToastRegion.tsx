import { useSelector } from '@xstate/react';
import {
  selectToastMessage,
  selectToastShown,
  selectToastType,
} from '../../machines/toast.selectors';
import { selectHasSession } from '../../machines/session.selectors';
import { useSessionActor, useToastActor } from '../app/actors';

/**
 * The toast at the top right. Info and success are polite status messages; warnings and errors
 * interrupt as alerts. The message is rendered as text, never as HTML. Signed in, every screen has
 * the phone panel at the right, so the toast sits beside it from its first frame, even when it is
 * shown before the signed-in frame (a lazy route) has mounted the panel.
 */
export function ToastRegion() {
  const toast = useToastActor();
  const shown = useSelector(toast, selectToastShown);
  const message = useSelector(toast, selectToastMessage);
  const type = useSelector(toast, selectToastType);
  const besidePhone = useSelector(useSessionActor(), selectHasSession);
  if (!shown) return null;
  const urgent = type === 'warning' || type === 'error';
  return (
    <div
      className={`toast toast--${type}${besidePhone ? ' toast--beside-phone' : ''}`}
      role={urgent ? 'alert' : 'status'}
      aria-live={urgent ? 'assertive' : 'polite'}
      aria-atomic="true"
      data-testid="toast"
      data-type={type}
    >
      <p className="toast__message">{message}</p>
      <button
        type="button"
        className="toast__close"
        aria-label="Close notification"
        onClick={() => toast.send({ type: 'toast.close' })}
      />
    </div>
  );
}
