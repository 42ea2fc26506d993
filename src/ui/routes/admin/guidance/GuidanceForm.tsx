import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { paths } from '../../../app/paths';
import './guidance.css';
import {
  KIND_LABELS,
  TEXT_MAX,
  type AudioFile,
  type Guidance,
  type GuidanceErrors,
  type GuidanceKind,
} from './guidance';
import { fetchPreview, type Language } from './useGuidance';

const FIELD_ORDER = ['name', 'kind', 'text', 'language', 'audioId'] as const;

/**
 * An announcement's fields, shared by create and edit: a name; text and its language, or an audio
 * file; and a preview of what callers will hear, rendered by the server. Errors sit beside their
 * fields; on a refused submit the first invalid field takes focus.
 */
export function GuidanceForm({
  value,
  errors,
  languages,
  languagesError,
  onRetryLanguages,
  audio,
  busy,
  submitLabel,
  formError,
  onChange,
  onSubmit,
  onCancel,
}: {
  value: Guidance;
  errors: GuidanceErrors;
  /** Null while loading. */
  languages: readonly Language[] | null;
  languagesError: string | null;
  onRetryLanguages: () => void;
  audio: ReadonlyMap<string, AudioFile>;
  busy: boolean;
  submitLabel: string;
  formError: string | null;
  onChange: (guidance: Guidance) => void;
  /** Returns the errors found; the form focuses the first. */
  onSubmit: () => GuidanceErrors;
  onCancel: () => void;
}) {
  const uid = useId();
  const id = (field: string) => `${uid}-${field}`;
  const set = <K extends keyof Guidance>(field: K, v: Guidance[K]) =>
    onChange({ ...value, [field]: v });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const found = onSubmit();
    const first = FIELD_ORDER.find((f) => found[f] !== undefined);
    if (first) document.getElementById(id(first))?.focus();
  }

  const describedBy = (field: keyof Guidance, ...more: string[]) =>
    [errors[field] === undefined ? '' : `${id(field)}-error`, ...more]
      .filter((s) => s !== '')
      .join(' ') || undefined;
  const error = (field: keyof Guidance) =>
    errors[field] === undefined ? null : (
      <p id={`${id(field)}-error`} className="field__error">
        {errors[field]}
      </p>
    );
  const files = [...audio.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name));
  const textLength = [...value.text.trim()].length;
  const known = languages?.some((l) => l.code === value.language) ?? false;

  return (
    <form className="group-form" noValidate onSubmit={submit} aria-busy={busy}>
      <div className="field">
        <label htmlFor={id('name')}>Name</label>
        <input
          id={id('name')}
          value={value.name}
          maxLength={200}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy('name')}
          onChange={(e) => set('name', e.currentTarget.value)}
        />
        {error('name')}
      </div>
      <fieldset className="field">
        <legend>Callers hear</legend>
        {(Object.keys(KIND_LABELS) as GuidanceKind[]).map((k, i) => (
          <label key={k} className="group-form__choice">
            <input
              type="radio"
              name={id('kind')}
              id={i === 0 ? id('kind') : undefined}
              checked={value.kind === k}
              onChange={() => set('kind', k)}
            />
            {KIND_LABELS[k]}
          </label>
        ))}
        {error('kind')}
      </fieldset>
      {value.kind === 'tts' ? (
        <>
          <div className="field">
            <label htmlFor={id('text')}>Text</label>
            <textarea
              id={id('text')}
              rows={5}
              value={value.text}
              aria-invalid={errors.text ? true : undefined}
              aria-describedby={describedBy('text', `${id('text')}-count`)}
              onChange={(e) => set('text', e.currentTarget.value)}
            />
            <p id={`${id('text')}-count`} className="group-form__hint">
              {textLength} of {TEXT_MAX} characters
            </p>
            {error('text')}
          </div>
          <div className="field">
            <label htmlFor={id('language')}>Language</label>
            <select
              id={id('language')}
              value={value.language}
              disabled={languages === null}
              aria-invalid={errors.language ? true : undefined}
              aria-describedby={describedBy('language')}
              onChange={(e) => set('language', e.currentTarget.value)}
            >
              {languages === null && (
                <option value={value.language}>
                  {languagesError === null ? 'Loading languages…' : value.language}
                </option>
              )}
              {languages !== null && !known && (
                <option value={value.language}>
                  {value.language === '' ? 'Choose a language…' : `${value.language} (no voice)`}
                </option>
              )}
              {languages?.map((l) => (
                <option key={l.code} value={l.code}>
                  {l.name} ({l.code})
                </option>
              ))}
            </select>
            {languagesError !== null && (
              <p className="field__error" role="alert">
                The languages could not be loaded: {languagesError}{' '}
                <button type="button" className="button button--quiet" onClick={onRetryLanguages}>
                  Try again
                </button>
              </p>
            )}
            {error('language')}
          </div>
        </>
      ) : (
        <div className="field">
          <label htmlFor={id('audioId')}>Audio file</label>
          <select
            id={id('audioId')}
            value={value.audioId}
            aria-invalid={errors.audioId ? true : undefined}
            aria-describedby={describedBy('audioId')}
            onChange={(e) => set('audioId', e.currentTarget.value)}
          >
            <option value="">{files.length === 0 ? 'No audio files yet' : 'Choose a file…'}</option>
            {value.audioId !== '' && !audio.has(value.audioId) && (
              <option value={value.audioId}>(deleted file)</option>
            )}
            {files.map(([fileId, f]) => (
              <option key={fileId} value={fileId}>
                {f.name} ({f.kind.toUpperCase()})
              </option>
            ))}
          </select>
          {files.length === 0 && (
            <p className="group-form__hint">
              <Link to={paths.adminAudioCreate.build()}>Upload an audio file</Link> first.
            </p>
          )}
          {error('audioId')}
        </div>
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
      {formError !== null && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className="group-form__actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type PreviewRequest = { text: string; language: string } | { audioId: string };

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
