import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { fromCallback } from 'xstate';
import {
  uploadMachine,
  type UploadEvent,
  type UploadFile,
} from '../../../../machines/upload.machine';
import {
  selectUploadFile,
  selectUploadPercent,
  selectUploadProblem,
  selectUploadResult,
  selectUploadStatus,
} from '../../../../machines/upload.selectors';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import './audio.css';
import { checkAudioFile, formatSize, uploadAudio } from './upload';

/** The upload machine with its transfer: the XHR of upload.ts, aborted when the actor stops. */
const uploadLogic = uploadMachine.provide({
  actors: {
    transfer: fromCallback<UploadEvent, { file: UploadFile }>(({ sendBack, input }) => {
      let stopped = false;
      const u = uploadAudio(input.file as File, (fraction) => {
        if (!stopped) sendBack({ type: 'upload.progress', fraction });
      });
      u.done.then(
        (result) => {
          if (!stopped) sendBack({ type: 'upload.done', result });
        },
        (error: unknown) => {
          if (!stopped)
            sendBack({
              type: 'upload.failed',
              message: error instanceof Error ? error.message : String(error),
            });
        },
      );
      return () => {
        stopped = true;
        u.cancel();
      };
    }),
  },
});

/**
 * /admin/audio/create: drop a file (or choose one), watch it upload, and go back to the list. The
 * server checks what the file really is; its answer is shown here when it refuses.
 */
export function Component() {
  const navigate = useNavigate();
  const toast = useToastActor();
  const uid = useId();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  // Runs for the screen's life: leaving mid-upload stops the transfer, and the server keeps
  // nothing of it.
  const upload = useActorRef(uploadLogic, { input: { check: checkAudioFile } });
  const status = useSelector(upload, selectUploadStatus);
  const file = useSelector(upload, selectUploadFile);
  const percent = useSelector(upload, selectUploadPercent);
  const problem = useSelector(upload, selectUploadProblem);
  const saved = useSelector(upload, selectUploadResult);
  useEffect(() => {
    if (status !== 'done' || saved === null) return;
    toast.send({
      type: 'toast.show',
      message: `${saved.name} was uploaded.`,
      toastType: 'success',
    });
    void navigate(paths.adminAudio.build());
  }, [status, saved, toast, navigate]);

  const uploading = status === 'uploading';
  const pick = (f: File | undefined) => {
    if (f) upload.send({ type: 'upload.pick', file: f });
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    pick(e.dataTransfer.files[0]);
  };
  const progress = uploading ? percent / 100 : null;

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
          disabled={uploading}
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
          <button
            type="button"
            className="button"
            onClick={() => upload.send({ type: 'upload.cancel' })}
          >
            Cancel upload
          </button>
        </div>
      )}
      {problem !== null && (
        <p className="form-error" role="alert" data-testid="upload-error">
          {problem}
        </p>
      )}
      {status === 'cancelled' && (
        <p className="screen-status" role="status" data-testid="upload-cancelled">
          The upload was cancelled; nothing was kept.
        </p>
      )}
      <div className="group-form__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={status !== 'ready' && status !== 'cancelled' && status !== 'failed'}
          onClick={() =>
            upload.send(status === 'failed' ? { type: 'upload.retry' } : { type: 'upload.start' })
          }
        >
          {status === 'failed' ? 'Try again' : 'Upload'}
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
