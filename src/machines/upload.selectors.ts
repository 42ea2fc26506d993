import type { SnapshotFrom } from 'xstate';
import type { UploadedFile, UploadFile, uploadMachine } from './upload.machine';

type UploadSnapshot = SnapshotFrom<typeof uploadMachine>;

export type UploadStatus =
  'empty' | 'refused' | 'ready' | 'uploading' | 'failed' | 'cancelled' | 'done';

export const selectUploadStatus = (s: UploadSnapshot): UploadStatus => s.value;
export const selectUploadFile = (s: UploadSnapshot): UploadFile | null => s.context.file;
/** Whole percent sent, 0–100. */
export const selectUploadPercent = (s: UploadSnapshot): number =>
  Math.round(s.context.progress * 100);
export const selectUploadProblem = (s: UploadSnapshot): string | null => s.context.problem;
export const selectUploadResult = (s: UploadSnapshot): UploadedFile | null => s.context.result;
