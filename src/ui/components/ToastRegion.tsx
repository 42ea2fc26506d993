import { useSelector } from '@xstate/react';
import {
  selectToastMessage,
  selectToastShown,
  selectToastType,
} from '../../machines/toast.selectors';
import { useToastActor } from '../app/actors';

/**
 * The toast at the top right. Info and success are polite status messages; warnings and errors
 * interrupt as alerts. The message is rendered as text, never as HTML.
 */
export function ToastRegion() {
  const toast = useToastActor();
  const shown = useSelector(toast, selectToastShown);
  const message = useSelector(toast, selectToastMessage);
  const type = useSelector(toast, selectToastType);
  if (!shown) return null;
  const urgent = type === 'warning' || type === 'error';
  return (
    <div
      className={`toast toast--${type}`}
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
