import { ConfirmDialog } from '../../components/ConfirmDialog';

/** "Delete X?"; when a colleague deleted the contact meanwhile, says so and offers only Close. */
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
  return name === null ? (
    <ConfirmDialog
      title="Contact already deleted"
      action={null}
      cancelLabel="Close"
      onClose={onClose}
    >
      A colleague deleted this contact a moment ago.
    </ConfirmDialog>
  ) : (
    <ConfirmDialog
      title={`Delete ${name}?`}
      action={{ label: 'Delete', busyLabel: 'Deleting…', run: onConfirm }}
      onClose={onClose}
    >
      This removes the contact for everyone on your team.
    </ConfirmDialog>
  );
}
