/**
 * Editing one Sync document (a group's `schedule:{id}` or `calendar:{id}`) through the editor
 * machine: the edit starts from the stored revision; the save goes through the screen's mutator
 * (`replaceDocumentIf`: the SDK's `mutate`, If-Match on the revision it holds) and declines when
 * someone else saved first, and the machine then holds both versions for the person to choose;
 * someone else's save while nothing is unsaved is simply taken. Screens put their own form inside
 * `EditorFrame`.
 */
import { useMemo } from 'react';
import { waitFor } from 'xstate';
import { WriteRefused } from '../../../app/mutators/core';
import type { SaveAnswer } from '../../../app/mutators/admin/written';
import type { JsonObject } from '../../../contracts/record';
import { humanMessage, toSyncFailure } from '../../../contracts/sync-errors';
import {
  selectDocumentData,
  selectDocumentMeta,
  selectDocumentStatus,
} from '../../../machines/syncDocument.selectors';
import {
  useContainerSelector,
  useSyncDocument,
  type DocumentActor,
} from '../../sync/useSyncContainers';
import type { EditorActor } from './EditorFrame';
import { useStoredEditor, type Stored, type StoredEditorSpec } from './editing';

export interface DocumentEditorSpec<V> extends StoredEditorSpec<V> {
  /** The document's unique name. */
  name: string;
  /** The mutator: writes `value` only if the document's stored data is still `base`. */
  save: (doc: DocumentActor, base: JsonObject, value: V) => Promise<SaveAnswer>;
  /** What is edited, for messages: "these business hours". */
  what: string;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What the document actor holds now, once it is open; rejects with why there is nothing. */
async function readDocument(doc: DocumentActor, what: string): Promise<Stored> {
  const snapshot = await waitFor(doc, (s) => selectDocumentStatus(s) !== 'opening', {
    timeout: Infinity,
  });
  const status = selectDocumentStatus(snapshot);
  const data = selectDocumentData(snapshot);
  const meta = selectDocumentMeta(snapshot);
  if (status === 'ready' && data !== null && meta !== null)
    return { data, revision: meta.revision };
  const failure = snapshot.context.error;
  if (status === 'removed' || failure?.status === 404) {
    throw new Error(`${capitalise(what)} do not exist (the group may have been deleted).`);
  }
  throw new Error(
    `${capitalise(what)} could not be loaded${failure ? `: ${humanMessage(failure)}` : '.'}`,
  );
}

/**
 * Opens the document (it must exist: it is created with its group) and returns an editor actor
 * for it, started for as long as the component lives; null until the document actor exists.
 */
export function useDocumentEditor<V>(spec: DocumentEditorSpec<V>): EditorActor | null {
  const doc = useSyncDocument(spec.name, { mode: 'open_existing' });
  const data = useContainerSelector(doc, selectDocumentData, null);
  const revision = useContainerSelector(doc, selectDocumentMeta, null)?.revision;
  const stored = useMemo(
    () => (data === null || revision === undefined ? null : { data, revision }),
    [data, revision],
  );
  const What = capitalise(spec.what);
  return useStoredEditor(
    doc ?? null,
    spec,
    (open) => ({
      read: () => readDocument(open, spec.what),
      save: (base, value) => spec.save(open, base, value),
      failed: (error) => {
        if (error instanceof WriteRefused) return error;
        const failure = toSyncFailure(error);
        return new Error(
          failure.status === 404
            ? `${What} were deleted while you were editing them.`
            : `${What} could not be saved: ${humanMessage(failure)}`,
        );
      },
      first: `Another admin saved ${spec.what} first.`,
      deleted: `${What} were deleted while you were editing them.`,
    }),
    stored,
  );
}
