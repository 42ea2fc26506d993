/**
 * The frame of every edit screen (a group, its announcements, an announcement, business hours,
 * holidays): the screen's title, loading and load failure with a retry, someone else's version
 * (on a refused save, or pushed while there are unsaved changes) with "use theirs" and "keep mine
 * and overwrite", a toast and `done` after a save, and the question before leaving with unsaved
 * changes (in the app and when closing the tab). The form inside is the one the create screen
 * uses, given the editor's draft as the record it is.
 */
import { useSelector } from '@xstate/react';
import { useEffect, useRef, type ReactNode } from 'react';
import type { createActor } from 'xstate';
import type { JsonObject } from '../../../contracts/record';
import type { editorMachine } from '../../../machines/editor.machine';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../machines/editor.selectors';
import { useToastActor } from '../../app/actors';
import { Screen } from '../../components/Screen';
import { Button, type FormCodec, type FormFrame, type FormState } from './form';
import { LeaveGuard } from './LeaveGuard';

export type EditorActor = ReturnType<typeof createActor<typeof editorMachine>>;

/** How an object's edit screen reads its draft and what it says. */
export interface EditSpec<V> {
  /** The draft (stored data, normalized) as the record the form edits, and back. */
  codec: FormCodec<V>;
  /** The screen's title; the value is null while loading. */
  title: (value: V | null) => string;
  /** "this group", "these business hours": for messages. */
  what: string;
  /** "Loading the group…" */
  loading: string;
  /** The toast after a save: "The group was saved." */
  saved: string;
  /** What leaving would lose, if not `what`: "this group’s announcements". */
  leave?: string;
  /** `data-testid` prefix of the conflict banner (`{testId}-conflict`). */
  testId: string;
  /** The save button's words (default "Save"). */
  saveLabel?: string;
}

/**
 * The edit screen of one `thing` of a map ("group"): "Edit {name}" (`untitled` before it has one),
 * "this group", "Loading the group…", "The group was saved.".
 */
export function itemScreen<V extends { name: string }>(
  codec: FormCodec<V>,
  thing: string,
  untitled: string,
): EditSpec<V> {
  return {
    codec,
    title: (value) => (value?.name ? `Edit ${value.name}` : untitled),
    what: `this ${thing}`,
    loading: `Loading the ${thing}…`,
    saved: `The ${thing} was saved.`,
    testId: thing,
  };
}

function EditorFrame<V>({
  editor,
  spec,
  describeTheirs,
  done,
  children,
}: {
  editor: EditorActor;
  spec: EditSpec<V>;
  describeTheirs: (theirs: V) => ReactNode;
  done: () => void;
  children: (form: FormState<V>, frame: FormFrame) => ReactNode;
}) {
  const { codec, what, saved } = spec;
  const toast = useToastActor();
  const status = useSelector(editor, selectEditorStatus);
  const draft = useSelector(editor, selectDraft);
  const errors = useSelector(editor, selectFieldErrors);
  const error = useSelector(editor, selectEditorError);
  const theirs = useSelector(editor, selectTheirs);
  const dirty = useSelector(editor, selectDirty);
  const wasSaving = useRef(false);
  useEffect(() => {
    // A save that went through (back to editing, nothing unsaved, no error).
    if (wasSaving.current && status === 'editing' && !dirty && error === null) {
      toast.send({ type: 'toast.show', message: saved, toastType: 'success' });
      done();
    }
    wasSaving.current = status === 'saving';
  }, [status, dirty, error, done, toast, saved]);
  const frame = { submitLabel: spec.saveLabel ?? 'Save', onCancel: done };
  return (
    <>
      {status === 'loading' && (
        <p className="screen-status" role="status">
          Loading {what}…
        </p>
      )}
      {status === 'loadFailed' && (
        <div className="form-error" role="alert">
          {error} <Button onClick={() => editor.send({ type: 'editor.retry' })}>Try again</Button>
        </div>
      )}
      {theirs && (
        <div className="form-error" role="alert" data-testid={`${spec.testId}-conflict`}>
          <p>
            {status === 'conflict'
              ? `Another admin saved ${what} first.`
              : `Another admin just saved ${what}.`}{' '}
            {describeTheirs(codec.read(theirs.values))}
          </p>
          <Button onClick={() => editor.send({ type: 'editor.reload' })}>Use their version</Button>{' '}
          {status === 'conflict' && (
            <Button onClick={() => editor.send({ type: 'editor.overwrite' })}>
              Keep mine and overwrite
            </Button>
          )}
        </div>
      )}
      {draft !== null &&
        status !== 'loading' &&
        status !== 'loadFailed' &&
        children(
          {
            draft: codec.read(draft),
            errors,
            busy: status === 'saving',
            formError: status === 'editing' ? error : null,
            change: (value) => editor.send({ type: 'editor.change', values: codec.write(value) }),
            save: () => {
              editor.send({ type: 'editor.save' });
              return editor.getSnapshot().context.fieldErrors;
            },
          },
          frame,
        )}
      <LeaveGuard dirty={dirty} block={dirty && status !== 'saving'} what={spec.leave ?? what} />
    </>
  );
}

/**
 * An edit screen: its title (from the draft once there is one), what it says first (`intro`), and
 * the form in the frame; until the editor exists (its object is still opening), "Loading…".
 */
export function EditScreen<V>({
  editor,
  spec,
  intro,
  ...frame
}: {
  editor: EditorActor | null;
  spec: EditSpec<V>;
  intro?: ReactNode;
  /** Where the screen goes after a save, and on Cancel. */
  done: () => void;
  /** Their version in a sentence, after "Another admin saved … first.": "Their version: …". */
  describeTheirs: (theirs: V) => ReactNode;
  /** The form, given the draft as the record and the save and cancel it offers. */
  children: (form: FormState<V>, frame: FormFrame) => ReactNode;
}) {
  if (!editor) {
    return (
      <Screen title={spec.title(null)}>
        {intro}
        <p className="screen-status" role="status">
          {spec.loading}
        </p>
      </Screen>
    );
  }
  return (
    <TitledScreen editor={editor} title={(draft) => spec.title(draft && spec.codec.read(draft))}>
      {intro}
      <EditorFrame editor={editor} spec={spec} {...frame} />
    </TitledScreen>
  );
}

function TitledScreen({
  editor,
  title,
  children,
}: {
  editor: EditorActor;
  title: (draft: JsonObject | null) => string;
  children: ReactNode;
}) {
  const draft = useSelector(editor, selectDraft);
  return <Screen title={title(draft)}>{children}</Screen>;
}
