import { useId, useState, type ReactNode } from 'react';
import { Modal } from './Modal';

/** The destructive action a confirmation offers; absent when there is nothing left to do. */
export interface ConfirmAction {
  label: string;
  /** Shown on the button while `run` is in flight. */
  busyLabel: string;
  /** Rejects with an Error whose message is shown in the dialog, which then stays open. */
  run: () => Promise<void>;
}

/**
 * "Really do X?" with Cancel focused first, so an accidental Enter changes nothing. While the action
 * runs both buttons are disabled and Escape does not close; a failure is shown in place and the
 * dialog stays open for another try.
 */
export function ConfirmDialog({
  title,
  children,
  action,
  cancelLabel = 'Cancel',
  onClose,
}: {
  title: string;
  children: ReactNode;
  action: ConfirmAction | null;
  cancelLabel?: string;
  onClose: () => void;
}) {
  const uid = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function confirm(run: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await run();
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  }
  return (
    <Modal labelledBy={`${uid}-title`} onClose={() => !busy && onClose()} role="alertdialog">
      <h2 id={`${uid}-title`}>{title}</h2>
      <p>{children}</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          className="button button--quiet"
          autoFocus
          onClick={onClose}
          disabled={busy}
        >
          {cancelLabel}
        </button>
        {action && (
          <button
            type="button"
            className="button button--danger"
            onClick={() => void confirm(action.run)}
            disabled={busy}
          >
            {busy ? action.busyLabel : action.label}
          </button>
        )}
      </div>
    </Modal>
  );
}
