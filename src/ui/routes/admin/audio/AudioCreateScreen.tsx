import { useId, useRef, useState, type DragEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import './audio.css';
import { checkAudioFile, formatSize, uploadAudio, type Upload } from './upload';

/**
 * /admin/audio/create: drop a file (or choose one), watch it upload, and go back to the list. The
 * server checks what the file really is; its answer is shown here when it refuses.
 */
export function Component() {
  const navigate = useNavigate();
  const toast = useToastActor();
  const uid = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [over, setOver] = useState(false);
  const current = useRef<Upload | null>(null);

  const pick = (f: File | undefined) => {
    if (!f || progress !== null) return;
    setFile(f);
    setProblem(checkAudioFile(f));
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    pick(e.dataTransfer.files[0]);
  };

  async function upload() {
    if (!file || checkAudioFile(file) !== null) return;
    setProblem(null);
    setProgress(0);
    const u = uploadAudio(file, setProgress);
    current.current = u;
    try {
      const saved = await u.done;
      toast.send({
        type: 'toast.show',
        message: `${saved.name} was uploaded.`,
        toastType: 'success',
      });
      void navigate(paths.adminAudio.build());
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
      setProgress(null);
    } finally {
      current.current = null;
    }
  }

  const percent = progress === null ? 0 : Math.round(progress * 100);
  return (
    <Screen title="Upload audio">
      <div
        className={over ? 'dropzone dropzone--over' : 'dropzone'}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>Drop a WAV, MP3 or Ogg Opus file here (at most 64 MB), or</p>
        <button
          type="button"
          className="button"
          disabled={progress !== null}
          onClick={() => input.current?.click()}
        >
          Choose a file…
        </button>
        <input
          ref={input}
          id={`${uid}-file`}
          type="file"
          accept="audio/wav,audio/x-wav,audio/mpeg,audio/ogg,.wav,.mp3,.ogg,.opus"
          className="visually-hidden"
          aria-label="Audio file"
          onChange={(e) => pick(e.currentTarget.files?.[0])}
        />
        {file && (
          <p data-testid="picked">
            {file.name}, {formatSize(file.size)}
          </p>
        )}
      </div>
      {progress !== null && (
        <div className="upload-progress">
          <label htmlFor={`${uid}-progress`}>Uploading {file?.name}…</label>
          <progress id={`${uid}-progress`} max={100} value={percent} data-testid="upload-progress">
            {percent}%
          </progress>
          <span aria-live="polite">{percent}%</span>
          <button type="button" className="button" onClick={() => current.current?.cancel()}>
            Cancel upload
          </button>
        </div>
      )}
      {problem !== null && (
        <p className="form-error" role="alert" data-testid="upload-error">
          {problem}
        </p>
      )}
      <div className="group-form__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={!file || progress !== null || checkAudioFile(file) !== null}
          onClick={() => void upload()}
        >
          Upload
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void navigate(paths.adminAudio.build())}
        >
          Back to audio files
        </button>
      </div>
    </Screen>
  );
}
