import type { SnapshotFrom } from 'xstate';
import type { JsonObject } from './syncPorts';
import type { editorMachine, FieldErrors, Revisioned } from './editor.machine';

type EditorSnapshot = SnapshotFrom<typeof editorMachine>;

export type EditorStatus = 'loading' | 'loadFailed' | 'editing' | 'saving' | 'conflict';

export const selectEditorStatus = (s: EditorSnapshot): EditorStatus => s.value;
export const selectDraft = (s: EditorSnapshot): JsonObject | null => s.context.draft;
export const selectFieldErrors = (s: EditorSnapshot): FieldErrors => s.context.fieldErrors;
export const selectEditorError = (s: EditorSnapshot): string | null => s.context.error;
/** Someone else's saved version, while ours differs from it (conflict, or a push while dirty). */
export const selectTheirs = (s: EditorSnapshot): Revisioned | null => s.context.theirs;
/** Unsaved changes: what leaving the screen must ask about. */
export const selectDirty = (s: EditorSnapshot): boolean =>
  s.context.draft !== null &&
  JSON.stringify(s.context.draft) !== JSON.stringify(s.context.base?.values);
