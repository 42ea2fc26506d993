import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import {
  ANNOUNCEMENT_TEXT_MAX,
  type Announcement,
} from '../../../../contracts/records/announcement';
import { KIND_LABELS } from '../../../../domain/announcement';
import { paths } from '../../../app/paths';
import { AdminForm, Button, useFormKit, type FormFrame, type FormState } from '../form';
import { byName } from '../ListScreen';
import type { AnnouncementContext } from './announcement';
import './guidance.css';
import { fetchPreview, type PreviewRequest } from './preview';

/** The fields in the order they are shown (the first at fault takes focus). */
export const ANNOUNCEMENT_FIELDS = ['name', 'kind', 'text', 'language', 'audioId'] as const;

/**
 * An announcement's fields, shared by create and edit: a name; text and its language, or an audio
 * file; and a preview of what callers will hear, rendered by the server.
 */
export function AnnouncementForm({
  form,
  context: { languages: voices, files: audio },
  frame,
}: {
  form: FormState<Announcement>;
  context: Pick<AnnouncementContext, 'languages' | 'files'>;
  frame: FormFrame;
}) {
  const kit = useFormKit(form);
  const { draft: value, fields, set } = kit;
  const { languages, error: languagesError, retry } = voices;
  const files = byName(audio);
  const textLength = [...value.text.trim()].length;
  const known = languages?.some((l) => l.code === value.language) ?? false;
  const countId = `${fields.id('text')}-count`;

  return (
    <AdminForm kit={kit} order={ANNOUNCEMENT_FIELDS} {...frame}>
      {kit.text('name', 'Name', { maxLength: 200 })}
      {kit.choices('kind', 'Callers hear', KIND_LABELS)}
      {value.kind === 'tts' ? (
        <>
          {kit.field(
            'text',
            'Text',
            <textarea
              {...fields.control('text', countId)}
              rows={5}
              value={value.text}
              onChange={(e) => set('text', e.currentTarget.value)}
            />,
            <p id={countId} className="group-form__hint">
              {textLength} of {ANNOUNCEMENT_TEXT_MAX} characters
            </p>,
          )}
          {kit.field(
            'language',
            'Language',
            kit.select({
              field: 'language',
              value: value.language,
              disabled: languages === null,
              onChange: (language) => set('language', language),
              first:
                languages === null ? (
                  <option value={value.language}>
                    {languagesError === null ? 'Loading languages…' : value.language}
                  </option>
                ) : (
                  !known && (
                    <option value={value.language}>
                      {value.language === ''
                        ? 'Choose a language…'
                        : `${value.language} (no voice)`}
                    </option>
                  )
                ),
              options: (languages ?? []).map((l) => [l.code, `${l.name} (${l.code})`]),
            }),
            languagesError !== null && (
              <p className="field__error" role="alert">
                The languages could not be loaded: {languagesError}{' '}
                <Button quiet onClick={retry}>
                  Try again
                </Button>
              </p>
            ),
          )}
        </>
      ) : (
        kit.field(
          'audioId',
          'Audio file',
          kit.select({
            field: 'audioId',
            value: value.audioId,
            onChange: (audioId) => set('audioId', audioId),
            first: (
              <>
                <option value="">
                  {files.length === 0 ? 'No audio files yet' : 'Choose a file…'}
                </option>
                {value.audioId !== '' && !audio.has(value.audioId) && (
                  <option value={value.audioId}>(deleted file)</option>
                )}
              </>
            ),
            options: files.map(([fileId, f]) => [fileId, `${f.name} (${f.kind.toUpperCase()})`]),
          }),
          files.length === 0 && (
            <p className="group-form__hint">
              <Link to={paths.adminAudioCreate.build()}>Upload an audio file</Link> first.
            </p>
          ),
        )
      )}
      <Preview
        request={
          value.kind === 'tts'
            ? value.text.trim() === ''
              ? 'Enter the text to hear it.'
              : { text: value.text, language: value.language }
            : value.audioId === ''
              ? 'Choose an audio file to hear it.'
              : { audioId: value.audioId }
        }
      />
    </AdminForm>
  );
}

/**
 * "Preview": the server renders the announcement as callers will hear it (8 kHz telephone audio) and
 * it plays here. A request that cannot be made yet (`string`) says why instead.
 */
function Preview({ request }: { request: PreviewRequest | string }) {
  const [state, setState] = useState<
    | { status: 'idle' }
    | { status: 'loading' }
    | { status: 'ready'; url: string }
    | { status: 'failed'; message: string }
  >({ status: 'idle' });
  const player = useRef<HTMLAudioElement>(null);
  const url = state.status === 'ready' ? state.url : null;
  useEffect(() => {
    if (url === null) return;
    void player.current?.play().catch(() => undefined);
    return () => URL.revokeObjectURL(url);
  }, [url]);
  // What is previewed follows the form: a changed text is a new preview.
  const key = JSON.stringify(request);
  const [shownFor, setShownFor] = useState(key);
  if (shownFor !== key) {
    setShownFor(key);
    if (state.status !== 'idle') setState({ status: 'idle' });
  }

  async function preview() {
    if (typeof request === 'string') {
      setState({ status: 'failed', message: request });
      return;
    }
    setState({ status: 'loading' });
    try {
      const blob = await fetchPreview(request);
      setState({ status: 'ready', url: URL.createObjectURL(blob) });
    } catch (e) {
      setState({ status: 'failed', message: e instanceof Error ? e.message : String(e) });
    }
  }

  return (
    <div className="guidance-preview">
      <button
        type="button"
        className="button"
        onClick={() => void preview()}
        disabled={state.status === 'loading'}
      >
        {state.status === 'loading' ? 'Rendering…' : 'Preview'}
      </button>
      {state.status === 'ready' && (
        <audio
          ref={player}
          controls
          src={state.url}
          data-testid="guidance-preview"
          aria-label="Preview of the announcement"
        />
      )}
      {state.status === 'failed' && (
        <p className="field__error" role="alert">
          {state.message}
        </p>
      )}
    </div>
  );
}
