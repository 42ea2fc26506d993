import { ConfirmDialog } from '../../components/ConfirmDialog';

/** "Remove X from the team?": they are signed out everywhere and leave the directory. */
export function RemoveUserDialog({
  name,
  onConfirm,
  onClose,
}: {
  name: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Remove ${name} from the team?`}
      action={{ label: 'Remove', busyLabel: 'Removing…', run: onConfirm }}
      onClose={onClose}
    >
      They are signed out everywhere and disappear from the directory. They can sign in again later,
      as an agent.
    </ConfirmDialog>
  );
}
