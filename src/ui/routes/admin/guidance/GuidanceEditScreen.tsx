import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { createActor, fromPromise } from 'xstate';
import {
  editorMachine,
  type Revisioned,
  type SaveRequest,
} from '../../../../machines/editor.machine';
import { selectDraft } from '../../../../machines/editor.selectors';
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { humanMessage, toSyncFailure } from '../../../../contracts/sync-errors';
import type { JsonObject } from '../../../../machines/syncPorts';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import type { MapActor } from '../../../sync/containers';
import { EditorFrame, type EditorActor } from '../EditorFrame';
import { useRunningEditor } from '../useRunningEditor';
import { updateGuidance } from './commands';
import {
  guidanceDraft,
  guidanceFromData,
  KIND_LABELS,
  validateGuidance,
  type AudioFile,
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

  // Someone else's save arrives through the map.
  const stored = items.find((i) => i.key === id);
  useRunningEditor(editor, stored?.revision, () =>
    stored ? guidanceDraft(guidanceFromData(stored.data)) : null,
  );

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

function Editor({
  editor,
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
  const draft = useSelector(editor, selectDraft);
  const name = draft ? guidanceFromData(draft).name : '';
  return (
    <Screen title={name ? `Edit ${name}` : 'Edit guidance'}>
      <EditorFrame
        editor={editor}
        what="this announcement"
        testId="guidance"
        describeTheirs={(values) => {
          const their = guidanceFromData(values);
          const what =
            their.kind === 'tts'
              ? `: “${their.text.slice(0, 80)}${their.text.length > 80 ? '…' : ''}”`
              : `: ${audio.get(their.audioId)?.name ?? 'a deleted file'}`;
          return `Their version: ${their.name}, ${KIND_LABELS[their.kind].toLowerCase()}${what}`;
        }}
        savedMessage="The announcement was saved."
        onSaved={onDone}
      >
        {(form) => (
          <GuidanceForm
            value={guidanceFromData(form.draft)}
            errors={form.errors}
            languages={languages}
            languagesError={languagesError}
            onRetryLanguages={onRetryLanguages}
            audio={audio}
            busy={form.busy}
            submitLabel="Save"
            formError={form.formError}
            onChange={(g) => form.change(guidanceDraft(g))}
            onSubmit={form.save}
            onCancel={onDone}
          />
        )}
      </EditorFrame>
    </Screen>
  );
}
