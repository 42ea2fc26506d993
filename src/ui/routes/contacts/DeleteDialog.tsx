import { useId, useState } from 'react';
import { Modal } from './Modal';

/** "Delete X?" with Cancel focused first, so Enter on an accidental open deletes nothing. */
export function DeleteDialog({
  name,
  onConfirm,
  onClose,
}: {
  /** null when the contact is already gone (deleted elsewhere while this was open). */
  name: string | null;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const uid = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  }
  return (
    <Modal labelledBy={`${uid}-title`} onClose={() => !busy && onClose()} role="alertdialog">
      <h2 id={`${uid}-title`}>{name === null ? 'Contact already deleted' : `Delete ${name}?`}</h2>
      <p>
        {name === null
          ? 'A colleague deleted this contact a moment ago.'
          : 'This removes the contact for everyone on your team.'}
      </p>
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
          {name === null ? 'Close' : 'Cancel'}
        </button>
        {name !== null && (
          <button
            type="button"
            className="button button--danger"
            onClick={() => void confirm()}
            disabled={busy}
          >
            {busy ? 'Deleting…' : 'Delete'}
          </button>
        )}
      </div>
    </Modal>
  );
}
