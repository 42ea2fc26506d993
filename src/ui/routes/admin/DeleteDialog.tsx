import type { ReactNode } from 'react';
import { useToastActor } from '../../app/actors';
import { ConfirmDialog } from '../../components/ConfirmDialog';

/**
 * "Delete X?" for any admin object: the mutator runs on confirm (its refusal stays in the dialog),
 * then a toast says it was deleted and `onDeleted` runs.
 */
export function DeleteDialog({
  name,
  title = name,
  remove,
  onDeleted,
  onClose,
  children,
}: {
  /** For the toast: "Front desk was deleted." */
  name: string;
  /** For the question, if not `name`. */
  title?: string;
  /** The mutator; null while it cannot run (the dialog then offers only Cancel). */
  remove: (() => Promise<void>) | null;
  onDeleted?: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  const toast = useToastActor();
  return (
    <ConfirmDialog
      title={`Delete ${title}?`}
      action={
        remove
          ? {
              label: 'Delete',
              busyLabel: 'Deleting…',
              run: async () => {
                await remove();
                toast.send({
                  type: 'toast.show',
                  message: `${name} was deleted.`,
                  toastType: 'success',
                });
                onDeleted?.();
              },
            }
          : null
      }
      onClose={onClose}
    >
      {children}
    </ConfirmDialog>
  );
}

/** A row's "Delete" button, naming the row for screen readers. */
export function DeleteButton({
  name,
  disabled,
  onClick,
}: {
  name: string;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" className="button" onClick={onClick} disabled={disabled}>
      Delete<span className="visually-hidden"> {name}</span>
    </button>
  );
}
