import { useEffect } from 'react';
import { useBlocker } from 'react-router-dom';
import { ConfirmDialog } from '../../components/ConfirmDialog';

/**
 * The question before leaving with unsaved changes: in the app ("Leave without saving?", Stay or
 * Leave) while `block` holds, and when closing the tab while `dirty` does.
 */
export function LeaveGuard({
  dirty,
  block,
  what,
}: {
  dirty: boolean;
  /** Leaving is asked about (false during a save, which navigates on its own when done). */
  block: boolean;
  /** What leaving would lose: "this group". */
  what: string;
}) {
  const blocker = useBlocker(block);
  useEffect(() => {
    if (!dirty) return;
    const warn = (ev: BeforeUnloadEvent) => ev.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  if (blocker.state !== 'blocked') return null;
  return (
    <ConfirmDialog
      title="Leave without saving?"
      cancelLabel="Stay"
      action={{
        label: 'Leave',
        busyLabel: 'Leaving…',
        run: () => {
          blocker.proceed();
          return Promise.resolve();
        },
      }}
      onClose={() => {
        if (blocker.state === 'blocked') blocker.reset();
      }}
    >
      Your changes to {what} are not saved.
    </ConfirmDialog>
  );
}
