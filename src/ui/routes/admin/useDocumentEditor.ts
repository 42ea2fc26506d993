/**
 * Editing one Sync document (a group's `schedule:{id}` or `calendar:{id}`) through the editor
 * machine: the edit starts from the stored revision; the save is a compare-and-set (the SDK's
 * `mutate`, If-Match on that revision) that declines when someone else saved first, and the
 * machine then holds both versions for the person to choose; someone else's save while nothing is
 * unsaved is simply taken. Screens put their own form inside `EditorFrame`.
 */
import { useEffect, useMemo, useRef } from 'react';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  editorMachine,
  type FieldErrors,
  type Revisioned,
  type SaveRequest,
} from '../../../machines/editor.machine';
import { ask } from '../../../machines/syncCommand';
import type { DocumentCommandResults } from '../../../machines/syncDocument.machine';
import {
  selectDocumentData,
  selectDocumentMeta,
  selectDocumentStatus,
} from '../../../machines/syncDocument.selectors';
import { humanMessage, toSyncFailure } from '../../../contracts/sync-errors';
import type { JsonObject } from '../../../machines/syncPorts';
import { useContainerSelector, useSyncDocument, type DocumentActor } from '../../sync/containers';
import type { EditorActor } from './EditorFrame';
import { useRunningEditor } from './useRunningEditor';

export interface DocumentEditorSpec {
  /** The document's unique name. */
  name: string;
  /** Stored data → the canonical values the form edits (tolerant of anything stored). */
  normalize: (data: JsonObject) => JsonObject;
  /** The same rules the form shows next to each field. */
  validate: (values: JsonObject) => FieldErrors;
  /** What is edited, for messages: "these business hours". */
  what: string;
}

const same = (a: JsonObject, b: JsonObject) => JSON.stringify(a) === JSON.stringify(b);

async function readDocument(doc: DocumentActor, spec: DocumentEditorSpec): Promise<Revisioned> {
  const snapshot = await waitFor(doc, (s) => selectDocumentStatus(s) !== 'opening', {
    timeout: Infinity,
  });
  const status = selectDocumentStatus(snapshot);
  const data = selectDocumentData(snapshot);
  const meta = selectDocumentMeta(snapshot);
  if (status === 'ready' && data !== null && meta !== null) {
    return { values: spec.normalize(data), revision: meta.revision };
  }
  const failure = snapshot.context.error;
  if (status === 'removed' || failure?.status === 404) {
    throw new Error(`${capitalise(spec.what)} do not exist (the group may have been deleted).`);
  }
  throw new Error(
    `${capitalise(spec.what)} could not be loaded${failure ? `: ${humanMessage(failure)}` : '.'}`,
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Opens the document (it must exist: it is created with its group) and returns an editor actor
 * for it, started for as long as the component lives; null until the document actor exists.
 */
export function useDocumentEditor(spec: DocumentEditorSpec): EditorActor | null {
  const doc = useSyncDocument(spec.name, { mode: 'open_existing' });
  const specRef = useRef(spec);
  useEffect(() => {
    specRef.current = spec;
  });

  const editor = useMemo(() => {
    if (!doc) return null;
    let actor: EditorActor | null = null;
    const machine = editorMachine.provide({
      actors: {
        load: fromPromise(() => readDocument(doc, specRef.current)),
        save: fromPromise<Revisioned, SaveRequest>(async ({ input }) => {
          const { normalize, what } = specRef.current;
          const base = actor?.getSnapshot().context.base?.values ?? {};
          let seen: JsonObject = {};
          let declined = false;
          let result: DocumentCommandResults['document.mutate'];
          try {
            result = await ask<typeof doc.logic, DocumentCommandResults['document.mutate']>(
              doc,
              {
                type: 'document.mutate',
                mutator: (current: JsonObject) => {
                  seen = current;
                  // The SDK calls this again with the fresh value after a lost race: the last call counts.
                  declined = !same(normalize(current), normalize(base));
                  return declined ? null : input.values;
                },
              },
              'document',
            );
          } catch (error) {
            const failure = toSyncFailure(error);
            throw new Error(
              failure.status === 404
                ? `${capitalise(what)} were deleted while you were editing them.`
                : `${capitalise(what)} could not be saved: ${humanMessage(failure)}`,
            );
          }
          const current = {
            values: normalize(declined ? seen : result.data),
            revision: result.revision,
          };
          if (!declined) return current;
          throw Object.assign(new Error(`Another admin saved ${what} first.`), {
            status: 412 as const,
            current,
          });
        }),
      },
    });
    actor = createActor(machine, {
      input: { validate: (values: JsonObject) => specRef.current.validate(values) },
    });
    return actor;
  }, [doc]);

  const data = useContainerSelector(doc, selectDocumentData, null);
  const revision = useContainerSelector(doc, selectDocumentMeta, null)?.revision;
  useRunningEditor(editor, revision, () =>
    data === null ? null : specRef.current.normalize(data),
  );

  return editor;
}
