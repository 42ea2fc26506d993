import { useId, useState } from 'react';
import { Modal } from '../contacts/Modal';

/** "Remove X from the team?" with Cancel focused first, so an accidental Enter removes nobody. */
export function RemoveUserDialog({
  name,
  onConfirm,
  onClose,
}: {
  name: string;
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
    <Modal
      labelledBy={`${uid}-title`}
      onClose={() => !busy && onClose()}
      role="alertdialog"
      className="users-dialog"
    >
      <h2 id={`${uid}-title`}>Remove {name} from the team?</h2>
      <p>
        They are signed out everywhere and disappear from the directory. They can sign in again
        later, as an agent.
      </p>
      {error && (
        <p className="users__error" role="alert">
          {error}
        </p>
      )}
      <div className="users-dialog__actions">
        <button
          type="button"
          className="button button--quiet"
          autoFocus
          onClick={onClose}
          disabled={busy}
        >
          Cancel
        </button>
        <button
          type="button"
          className="button users__danger"
          onClick={() => void confirm()}
          disabled={busy}
        >
          {busy ? 'Removing…' : 'Remove'}
        </button>
      </div>
    </Modal>
  );
}
