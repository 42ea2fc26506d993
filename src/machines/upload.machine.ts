import { assign, fromCallback, setup } from 'xstate';

/** What the machine needs of a picked file (a browser `File` in the app). */
export interface UploadFile {
  readonly name: string;
  readonly size: number;
}

/** What the server answers for a stored file. */
export interface UploadedFile {
  id: string;
  name: string;
  size: number;
  duration: number;
}

export interface UploadInput {
  /** Pure check of a picked file before any byte is sent: a message, or null when it may go. */
  check: (file: UploadFile) => string | null;
}

export interface UploadContext extends UploadInput {
  file: UploadFile | null;
  /** 0–1 of the bytes sent. */
  progress: number;
  /** Why the file was refused or the upload failed, in words a person can act on. */
  problem: string | null;
  result: UploadedFile | null;
}

export type UploadEvent =
  | { type: 'upload.pick'; file: UploadFile }
  | { type: 'upload.start' }
  | { type: 'upload.cancel' }
  | { type: 'upload.retry' }
  /** From the transfer: */
  | { type: 'upload.progress'; fraction: number }
  | { type: 'upload.done'; result: UploadedFile }
  | { type: 'upload.failed'; message: string };

/** The transfer's events back to the machine. */
export type TransferEvent = Extract<
  UploadEvent,
  { type: 'upload.progress' | 'upload.done' | 'upload.failed' }
>;

const pickTransitions = [
  {
    guard: 'fileAccepted' as const,
    target: '#upload.ready',
    actions: 'takeFile' as const,
  },
  { target: '#upload.refused', actions: 'refuseFile' as const },
];

/**
 * One file upload, from picking a file to the server's answer. Provided: `transfer`, a callback
 * actor that sends the file (input `{ file }`), reports `upload.progress`, and ends with
 * `upload.done` or `upload.failed`; stopping it (cancel, or leaving the screen) aborts the
 * transfer, and the server keeps nothing of an interrupted upload. Invariants: nothing is sent
 * before the file passes `check`; one transfer at a time; a new file cannot be picked while one is
 * uploading; progress never goes backwards within a transfer.
 */
export const uploadMachine = setup({
  types: {
    context: {} as UploadContext,
    events: {} as UploadEvent,
    input: {} as UploadInput,
  },
  actors: {
    transfer: fromCallback<UploadEvent, { file: UploadFile }>(() => {
      throw new Error('transfer is provided by the screen');
    }),
  },
  guards: {
    fileAccepted: ({ context, event }) =>
      event.type === 'upload.pick' && context.check(event.file) === null,
  },
  actions: {
    takeFile: assign(({ event }) =>
      event.type === 'upload.pick'
        ? { file: event.file, problem: null, progress: 0, result: null }
        : {},
    ),
    refuseFile: assign(({ context, event }) =>
      event.type === 'upload.pick'
        ? { file: event.file, problem: context.check(event.file), progress: 0, result: null }
        : {},
    ),
  },
}).createMachine({
  id: 'upload',
  context: ({ input }) => ({
    check: input.check,
    file: null,
    progress: 0,
    problem: null,
    result: null,
  }),
  initial: 'empty',
  states: {
    empty: {
      description: 'No file yet: drop one or choose one.',
      on: { 'upload.pick': pickTransitions },
    },
    refused: {
      description:
        'The picked file cannot be sent (empty, too large…); the reason is shown. Pick another.',
      on: { 'upload.pick': pickTransitions },
    },
    ready: {
      description: 'A file that may be sent is picked; Upload starts it, or pick another.',
      on: {
        'upload.pick': pickTransitions,
        'upload.start': { target: 'uploading' },
      },
    },
    uploading: {
      description: 'Sending the file, with progress; Cancel stops it and the server keeps nothing.',
      tags: ['busy'],
      entry: assign({ progress: 0, problem: null }),
      invoke: {
        id: 'transfer',
        src: 'transfer',
        input: ({ context }) => ({ file: context.file! }),
      },
      on: {
        'upload.progress': {
          actions: assign(({ context, event }) => ({
            progress: Math.min(1, Math.max(context.progress, event.fraction)),
          })),
        },
        'upload.done': {
          target: 'done',
          actions: assign(({ event }) => ({ result: event.result, progress: 1 })),
        },
        'upload.failed': {
          target: 'failed',
          actions: assign(({ event }) => ({ problem: event.message })),
        },
        'upload.cancel': { target: 'cancelled' },
      },
    },
    failed: {
      description:
        'The server refused the file or the connection failed; the reason is shown. Retry or pick another.',
      on: {
        'upload.retry': { target: 'uploading' },
        'upload.pick': pickTransitions,
      },
    },
    cancelled: {
      description: 'The upload was stopped; nothing was kept. Upload again or pick another.',
      on: {
        'upload.start': { target: 'uploading' },
        'upload.pick': pickTransitions,
      },
    },
    done: {
      description: 'The server stored the file and described it in the audio map.',
      type: 'final',
    },
  },
});
