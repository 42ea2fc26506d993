import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useBlocker, useNavigate, useParams } from 'react-router-dom';
import { createActor, fromPromise } from 'xstate';
import {
  editorMachine,
  type Revisioned,
  type SaveRequest,
} from '../../../../machines/editor.machine';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../../machines/editor.selectors';
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { humanMessage, toSyncFailure } from '../../../../sync/errors';
import type { JsonObject } from '../../../../sync/ports';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Screen } from '../../../components/Screen';
import type { MapActor } from '../../../sync/containers';
import { updateGuidance } from './commands';
import {
  guidanceDraft,
  guidanceFromData,
  KIND_LABELS,
  validateGuidance,
  type AudioFile,
  type Guidance,
  type GuidanceErrors,
} from './guidance';
import { GuidanceForm } from './GuidanceForm';
import './guidance.css';
import { useAudioFiles, useGuidanceMap, useLanguages, type Language } from './useGuidance';

async function readGuidance(map: MapActor, id: string): Promise<Revisioned> {
  try {
    const item = await ask<typeof map.logic, MapCommandResults['map.get']>(
      map,
      { type: 'map.get', key: id },
      'map',
    );
    return { values: guidanceDraft(guidanceFromData(item.data)), revision: item.revision };
  } catch (error) {
    const failure = toSyncFailure(error);
    throw new Error(
      failure.status === 404
        ? 'This announcement does not exist (it may have been deleted).'
        : `The announcement could not be loaded: ${humanMessage(failure)}`,
    );
  }
}

/**
 * /admin/guidance/{id}/edit through the editor machine: the save carries what the edit started from;
 * when another admin saved first the screen shows their version and offers to reload or overwrite;
 * leaving with unsaved changes asks first.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { actor: mapActor, status, items } = useGuidanceMap();
  const { files } = useAudioFiles();
  const { languages, error: languagesError, retry } = useLanguages();
  // The editor reads through the map's machine, so it starts once the map is open (and stays).
  const [opened, setOpened] = useState(false);
  if (!opened && status === 'ready') setOpened(true);
  const checkRef = useRef({ languages, files });
  useEffect(() => {
    checkRef.current = { languages, files };
  });

  const editor = useMemo(() => {
    if (!mapActor || !opened) return null;
    let actor: ReturnType<typeof createActor<typeof editorMachine>> | null = null;
    const machine = editorMachine.provide({
      actors: {
        load: fromPromise(() => readGuidance(mapActor, id)),
        save: fromPromise<Revisioned, SaveRequest>(async ({ input }) => {
          const base = actor?.getSnapshot().context.base?.values ?? {};
          const result = await updateGuidance(mapActor, id, base, guidanceFromData(input.values));
          if (result.ok) return readGuidance(mapActor, id);
          if (result.current === null) {
            throw new Error('Another admin deleted this announcement while you were editing it.');
          }
          const current = await readGuidance(mapActor, id);
          throw Object.assign(new Error('Another admin saved this announcement first.'), {
            status: 412 as const,
            current,
          });
        }),
      },
    });
    actor = createActor(machine, {
      input: {
        validate: (values: JsonObject) => {
          const { languages: list, files: audio } = checkRef.current;
          return validateGuidance(
            guidanceFromData(values),
            list === null ? null : new Set(list.map((l) => l.code)),
            audio,
          );
        },
      },
    });
    return actor;
  }, [mapActor, id, opened]);

  // Someone else's save arrives through the map: the editor follows it, or keeps it aside while dirty.
  const stored = items.find((i) => i.key === id);
  const storedRevision = stored?.revision;
  const storedRef = useRef(stored);
  useEffect(() => {
    storedRef.current = stored;
  });
  useEffect(() => {
    const item = storedRef.current;
    if (!editor || !item || storedRevision === undefined) return;
    const base = editor.getSnapshot().context.base;
    if (base === null || base.revision === storedRevision) return;
    editor.send({
      type: 'editor.remoteChanged',
      current: { values: guidanceDraft(guidanceFromData(item.data)), revision: storedRevision },
    });
  }, [editor, storedRevision]);

  useEffect(() => {
    if (!editor) return;
    editor.start();
    return () => {
      editor.stop();
    };
  }, [editor]);

  return editor ? (
    <Editor
      editor={editor}
      languages={languages}
      languagesError={languagesError}
      onRetryLanguages={retry}
      audio={files}
      onDone={() => void navigate(paths.adminGuidance.build())}
    />
  ) : (
    <Screen title="Edit guidance">
      <p className="screen-status" role="status">
        Loading the announcement…
      </p>
    </Screen>
  );
}

type EditorActor = ReturnType<typeof createActor<typeof editorMachine>>;

function Editor({
  editor: e,
  languages,
  languagesError,
  onRetryLanguages,
  audio,
  onDone,
}: {
  editor: EditorActor;
  languages: readonly Language[] | null;
  languagesError: string | null;
  onRetryLanguages: () => void;
  audio: ReadonlyMap<string, AudioFile>;
  onDone: () => void;
}) {
  const toast = useToastActor();
  const status = useSelector(e, selectEditorStatus);
  const draft = useSelector(e, selectDraft);
  const fieldErrors = useSelector(e, selectFieldErrors) as GuidanceErrors;
  const error = useSelector(e, selectEditorError);
  const theirs = useSelector(e, selectTheirs);
  const dirty = useSelector(e, selectDirty);
  const blocker = useBlocker(dirty && status !== 'saving');
  const wasSaving = useRef(false);
  useEffect(() => {
    // A save that went through (back to editing, nothing unsaved) returns to the list.
    if (wasSaving.current && status === 'editing' && !dirty && error === null) {
      toast.send({
        type: 'toast.show',
        message: 'The announcement was saved.',
        toastType: 'success',
      });
      onDone();
    }
    wasSaving.current = status === 'saving';
  }, [status, dirty, error, onDone, toast]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (ev: BeforeUnloadEvent) => ev.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const value: Guidance | null = draft ? guidanceFromData(draft) : null;
  const their = theirs ? guidanceFromData(theirs.values) : null;
  return (
    <Screen title={value ? `Edit ${value.name || 'guidance'}` : 'Edit guidance'}>
      {status === 'loading' && (
        <p className="screen-status" role="status">
          Loading the announcement…
        </p>
      )}
      {status === 'loadFailed' && (
        <div className="form-error" role="alert">
          {error}{' '}
          <button type="button" className="button" onClick={() => e.send({ type: 'editor.retry' })}>
            Try again
          </button>
        </div>
      )}
      {their && (
        <div className="form-error" role="alert" data-testid="guidance-conflict">
          <p>
            {status === 'conflict'
              ? 'Another admin saved this announcement first.'
              : 'Another admin just saved this announcement.'}{' '}
            Their version: {their.name}, {KIND_LABELS[their.kind].toLowerCase()}
            {their.kind === 'tts'
              ? `: “${their.text.slice(0, 80)}${their.text.length > 80 ? '…' : ''}”`
              : `: ${audio.get(their.audioId)?.name ?? 'a deleted file'}`}
          </p>
          <button
            type="button"
            className="button"
            onClick={() => e.send({ type: 'editor.reload' })}
          >
            Use their version
          </button>{' '}
          {status === 'conflict' && (
            <button
              type="button"
              className="button"
              onClick={() => e.send({ type: 'editor.overwrite' })}
            >
              Keep mine and overwrite
            </button>
          )}
        </div>
      )}
      {value && (
        <GuidanceForm
          value={value}
          errors={fieldErrors}
          languages={languages}
          languagesError={languagesError}
          onRetryLanguages={onRetryLanguages}
          audio={audio}
          busy={status === 'saving'}
          submitLabel="Save"
          formError={status === 'editing' ? error : null}
          onChange={(g) => e.send({ type: 'editor.change', values: guidanceDraft(g) })}
          onSubmit={() => {
            e.send({ type: 'editor.save' });
            return e.getSnapshot().context.fieldErrors;
          }}
          onCancel={onDone}
        />
      )}
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
          Your changes to this announcement are not saved.
        </ConfirmDialog>
      )}
    </Screen>
  );
}
