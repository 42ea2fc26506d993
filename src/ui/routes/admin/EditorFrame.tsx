import { useSelector } from '@xstate/react';
import { useEffect, useRef, type ReactNode } from 'react';
import { useBlocker } from 'react-router-dom';
import type { FieldErrors } from '../../../machines/editor.machine';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../machines/editor.selectors';
import type { JsonObject } from '../../../machines/syncPorts';
import { useToastActor } from '../../app/actors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { createActor } from 'xstate';
import type { editorMachine } from '../../../machines/editor.machine';

export type EditorActor = ReturnType<typeof createActor<typeof editorMachine>>;

export interface EditorFormProps {
  /** What the person is editing (the machine's draft). */
  draft: JsonObject;
  errors: FieldErrors;
  /** A save is under way: the form keeps its values but does not take another save. */
  busy: boolean;
  /** A refused save's reason (not a field's), or null. */
  formError: string | null;
  change: (values: JsonObject) => void;
  /** Asks to save; returns the field errors that kept it from being sent (empty when sent). */
  save: () => FieldErrors;
}

/**
 * Everything around a form that every screen editing through the editor machine shares (a group,
 * its announcements, an announcement, business hours, holidays): loading and load failure with
 * a retry, someone else's version (on a refused save, or pushed while there are unsaved changes)
 * with "use theirs" and "keep mine and overwrite", a toast and `onSaved` after a save, and the
 * question before leaving with unsaved changes (in the app and when closing the tab).
 */
export function EditorFrame({
  editor,
  what,
  leaveWhat = what,
  testId,
  describeTheirs,
  savedMessage,
  onSaved,
  children,
}: {
  editor: EditorActor;
  /** "these business hours", "this group": for messages. */
  what: string;
  /** What leaving would lose, if not `what`: "this group’s announcements". */
  leaveWhat?: string;
  /** `data-testid` prefix for the conflict banner (`{testId}-conflict`). */
  testId: string;
  /** Their version in a sentence, after "Another admin saved … first.": "Their version: …". */
  describeTheirs: (values: JsonObject) => ReactNode;
  savedMessage: string;
  onSaved: () => void;
  children: (form: EditorFormProps) => ReactNode;
}) {
  const toast = useToastActor();
  const status = useSelector(editor, selectEditorStatus);
  const draft = useSelector(editor, selectDraft);
  const errors = useSelector(editor, selectFieldErrors);
  const error = useSelector(editor, selectEditorError);
  const theirs = useSelector(editor, selectTheirs);
  const dirty = useSelector(editor, selectDirty);
  const blocker = useBlocker(dirty && status !== 'saving');
  const wasSaving = useRef(false);
  useEffect(() => {
    // A save that went through (back to editing, nothing unsaved, no error).
    if (wasSaving.current && status === 'editing' && !dirty && error === null) {
      toast.send({ type: 'toast.show', message: savedMessage, toastType: 'success' });
      onSaved();
    }
    wasSaving.current = status === 'saving';
  }, [status, dirty, error, onSaved, toast, savedMessage]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (ev: BeforeUnloadEvent) => ev.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  return (
    <>
      {status === 'loading' && (
        <p className="screen-status" role="status">
          Loading {what}…
        </p>
      )}
      {status === 'loadFailed' && (
        <div className="form-error" role="alert">
          {error}{' '}
          <button
            type="button"
            className="button"
            onClick={() => editor.send({ type: 'editor.retry' })}
          >
            Try again
          </button>
        </div>
      )}
      {theirs && (
        <div className="form-error" role="alert" data-testid={`${testId}-conflict`}>
          <p>
            {status === 'conflict'
              ? `Another admin saved ${what} first.`
              : `Another admin just saved ${what}.`}{' '}
            {describeTheirs(theirs.values)}
          </p>
          <button
            type="button"
            className="button"
            onClick={() => editor.send({ type: 'editor.reload' })}
          >
            Use their version
          </button>{' '}
          {status === 'conflict' && (
            <button
              type="button"
              className="button"
              onClick={() => editor.send({ type: 'editor.overwrite' })}
            >
              Keep mine and overwrite
            </button>
          )}
        </div>
      )}
      {draft !== null &&
        status !== 'loading' &&
        status !== 'loadFailed' &&
        children({
          draft,
          errors,
          busy: status === 'saving',
          formError: status === 'editing' ? error : null,
          change: (values) => editor.send({ type: 'editor.change', values }),
          save: () => {
            editor.send({ type: 'editor.save' });
            return editor.getSnapshot().context.fieldErrors;
          },
        })}
      {blocker.state === 'blocked' && (
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
          Your changes to {leaveWhat} are not saved.
        </ConfirmDialog>
      )}
    </>
  );
}
