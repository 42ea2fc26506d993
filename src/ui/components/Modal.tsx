import { useEffect, useRef, type ReactNode } from 'react';
import './dialog.css';

/**
 * A native modal `<dialog>`: the browser traps focus inside, makes the page behind it inert, closes
 * on Escape (reported through `onClose`) and returns focus to where it was when the dialog closes.
 */
export function Modal({
  labelledBy,
  onClose,
  children,
  role,
  className,
}: {
  labelledBy: string;
  onClose: () => void;
  children: ReactNode;
  role?: 'alertdialog';
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open && typeof dialog.close === 'function') dialog.close();
      // The opener may have been re-rendered away (e.g. a deleted row): then the search box.
      if (opener?.isConnected) opener.focus();
      else document.querySelector<HTMLElement>('[data-focus-fallback]')?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`modal ${className ?? ''}`}
      aria-labelledby={labelledBy}
      {...(role ? { role } : {})}
      onKeyDown={(event) => {
        // jsdom and older engines have no native cancel on Escape.
        if (event.key === 'Escape') {
          event.preventDefault();
          onCloseRef.current();
        }
      }}
    >
      {children}
    </dialog>
  );
}
