import { API } from '../../../../contracts/api';
import { ApiError, errorFrom, NETWORK_ERROR_MESSAGE } from '../../../../io/api/client';
import { pathOf } from '../../../../contracts/api-route';
import { formatDuration as timeText } from '../../../components/duration';

/** 64 MiB, as the server enforces (server/audio/routes.ts). */
export const MAX_AUDIO_BYTES = 64 * 1024 * 1024;

export interface UploadedAudio {
  id: string;
  name: string;
  duration: number;
  size: number;
}

export interface Upload {
  done: Promise<UploadedAudio>;
  cancel(): void;
}

/** What a file picked by a person cannot be, before any byte is sent. */
export function checkAudioFile(file: { name: string; size: number }): string | null {
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > MAX_AUDIO_BYTES) return `${file.name} is larger than 64 MB.`;
  return null;
}

/**
 * POST /api/audio with the file as the body, reporting progress (XMLHttpRequest: fetch has no upload
 * progress). The server decides what the file is from its bytes.
 */
export function uploadAudio(
  file: Blob & { name: string },
  onProgress: (fraction: number) => void,
): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<UploadedAudio>((resolve, reject) => {
    xhr.open(
      API.uploadAudio.method,
      `${pathOf(API.uploadAudio)}?name=${encodeURIComponent(file.name)}`,
    );
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText) as unknown;
      } catch {
        body = undefined;
      }
      if (xhr.status === 201) resolve(body as UploadedAudio);
      else reject(errorFrom(xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', NETWORK_ERROR_MESSAGE));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
    xhr.send(file);
  });
  return { done, cancel: () => xhr.abort() };
}

/** An audio file's length, as every time reads (components/duration.ts). */
export function formatDuration(seconds: number): string {
  return timeText(Math.round(seconds) * 1000);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
