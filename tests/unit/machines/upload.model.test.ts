import { getShortestPaths } from '@xstate/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromCallback, getNextSnapshot, type EventObject } from 'xstate';
import {
  uploadMachine,
  type TransferEvent,
  type UploadEvent,
  type UploadContext,
  type UploadFile,
} from '../../../src/machines/upload.machine';
import { Coverage, settle } from './syncModelSupport';

const check = (f: UploadFile) => (f.size === 0 ? `${f.name} is empty.` : null);
const input = { check };
const good: UploadFile = { name: 'hold.wav', size: 1000 };
const empty: UploadFile = { name: 'blank.wav', size: 0 };

type ModelEvent = UploadEvent | (EventObject & { type: 'xstate.init' });

const picks: ModelEvent[] = [
  { type: 'upload.pick', file: good },
  { type: 'upload.pick', file: empty },
];

const byState: Record<string, ModelEvent[]> = {
  empty: picks,
  refused: picks,
  ready: [...picks, { type: 'upload.start' }],
  uploading: [
    { type: 'upload.progress', fraction: 0.5 },
    { type: 'upload.done', result: { id: 'aud-1', name: 'hold.wav', size: 1000, duration: 2 } },
    { type: 'upload.failed', message: 'This file is not WAV, MP3 or Ogg Opus audio' },
    { type: 'upload.cancel' },
    { type: 'upload.pick', file: good },
  ],
  failed: [...picks, { type: 'upload.retry' }],
  cancelled: [...picks, { type: 'upload.start' }],
  done: [],
};

const coverage = new Coverage(uploadMachine);

/**
 * The live machine with a transfer the test drives: the transfer's events (progress, done,
 * failed) come from the invoked callback actor, as in the app; the test checks a transfer is
 * running when it should be and stopped (aborted) when it leaves `uploading`.
 */
function live() {
  const transfers: { send: (e: TransferEvent) => void; stopped: boolean; file: UploadFile }[] = [];
  const machine = uploadMachine.provide({
    actors: {
      transfer: fromCallback<UploadEvent, { file: UploadFile }>(({ sendBack, input: i }) => {
        const t = { send: (e: TransferEvent) => sendBack(e), stopped: false, file: i.file };
        transfers.push(t);
        return () => {
          t.stopped = true;
        };
      }),
    },
  });
  const actor = createActor(machine, { input, inspect: coverage.inspect }).start();
  const replay = async (event: ModelEvent): Promise<void> => {
    if (event.type === 'xstate.init') return;
    if (
      event.type === 'upload.progress' ||
      event.type === 'upload.done' ||
      event.type === 'upload.failed'
    ) {
      const running = transfers.at(-1);
      expect(running && !running.stopped, 'a running transfer').toBe(true);
      running!.send(event);
    } else actor.send(event);
    await settle();
    // A transfer runs exactly while uploading, for the picked file.
    const uploading = actor.getSnapshot().value === 'uploading';
    expect(transfers.filter((t) => !t.stopped).length).toBe(uploading ? 1 : 0);
    if (uploading) expect(transfers.at(-1)!.file).toBe(actor.getSnapshot().context.file);
  };
  return { actor, replay };
}

const full = (s: { value: unknown; context: UploadContext }): string =>
  JSON.stringify([
    s.value,
    s.context.file,
    s.context.progress,
    s.context.problem,
    s.context.result,
  ]);

describe('upload model (every reachable state, then every edge out of it)', () => {
  afterAll(() => console.log(coverage.report('upload model')));

  it('the live machine agrees with the model on every path and every edge', async () => {
    const events = (state: { value: unknown }) => (byState[String(state.value)] ?? []) as never;
    const paths = getShortestPaths(uploadMachine, { input, events, serializeState: full });
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) {
      for (const extra of [null, ...byState[String(path.state.value)]!]) {
        const sut = live();
        coverage.paths += 1;
        const label = path.steps.map((x) => x.event.type).join(' > ');
        for (const step of path.steps) {
          await sut.replay(step.event);
          coverage.steps += 1;
          expect(full(sut.actor.getSnapshot()), label).toBe(full(step.state));
        }
        if (extra) {
          await sut.replay(extra);
          coverage.steps += 1;
          const expected = getNextSnapshot(uploadMachine, path.state, extra as never);
          expect(full(sut.actor.getSnapshot()), `${label} > ${extra.type}`).toBe(full(expected));
        }
        sut.actor.stop();
      }
    }
  });

  it('covered every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions(), coverage.missingTransitions().join('\n')).toEqual([]);
  });
});
