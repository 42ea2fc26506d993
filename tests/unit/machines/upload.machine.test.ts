import { describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import {
  uploadMachine,
  type UploadEvent,
  type UploadFile,
} from '../../../src/machines/upload.machine';
import { selectUploadPercent, selectUploadProblem } from '../../../src/machines/upload.selectors';

const check = (f: UploadFile) => (f.size > 100 ? `${f.name} is larger than 100 bytes.` : null);

function start() {
  let sendBack: ((e: UploadEvent) => void) | null = null;
  let aborted = 0;
  const actor = createActor(
    uploadMachine.provide({
      actors: {
        transfer: fromCallback<UploadEvent, { file: UploadFile }>(({ sendBack: s }) => {
          sendBack = s;
          return () => {
            aborted += 1;
          };
        }),
      },
    }),
    { input: { check } },
  ).start();
  return { actor, transfer: (e: UploadEvent) => sendBack!(e), aborted: () => aborted };
}

describe('upload machine', () => {
  it('refuses a file that fails the check, with the reason, and sends nothing', () => {
    const { actor } = start();
    actor.send({ type: 'upload.pick', file: { name: 'big.wav', size: 500 } });
    expect(actor.getSnapshot().value).toBe('refused');
    expect(selectUploadProblem(actor.getSnapshot())).toBe('big.wav is larger than 100 bytes.');
    actor.send({ type: 'upload.start' });
    expect(actor.getSnapshot().value).toBe('refused');
  });

  it('uploads with progress that never goes backwards, and ends done with the server’s answer', () => {
    const { actor, transfer } = start();
    actor.send({ type: 'upload.pick', file: { name: 'a.wav', size: 50 } });
    actor.send({ type: 'upload.start' });
    transfer({ type: 'upload.progress', fraction: 0.6 });
    transfer({ type: 'upload.progress', fraction: 0.4 });
    expect(selectUploadPercent(actor.getSnapshot())).toBe(60);
    transfer({
      type: 'upload.done',
      result: { id: 'aud-x', name: 'a.wav', size: 50, duration: 1 },
    });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.result?.id).toBe('aud-x');
  });

  it('cancel aborts the transfer; a new pick is ignored while uploading; retry after a failure starts over', () => {
    const { actor, transfer, aborted } = start();
    actor.send({ type: 'upload.pick', file: { name: 'a.wav', size: 50 } });
    actor.send({ type: 'upload.start' });
    actor.send({ type: 'upload.pick', file: { name: 'b.wav', size: 10 } });
    expect(actor.getSnapshot().context.file?.name).toBe('a.wav');
    actor.send({ type: 'upload.cancel' });
    expect(actor.getSnapshot().value).toBe('cancelled');
    expect(aborted()).toBe(1);
    actor.send({ type: 'upload.start' });
    transfer({ type: 'upload.progress', fraction: 0.9 });
    transfer({ type: 'upload.failed', message: 'The upload was interrupted; nothing was kept' });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(selectUploadProblem(actor.getSnapshot())).toBe(
      'The upload was interrupted; nothing was kept',
    );
    actor.send({ type: 'upload.retry' });
    expect(actor.getSnapshot().value).toBe('uploading');
    expect(selectUploadPercent(actor.getSnapshot())).toBe(0);
    expect(selectUploadProblem(actor.getSnapshot())).toBeNull();
  });
});
