import { describe, expect, it } from 'vitest';
import { ask } from '../../../src/machines/syncCommand';
import type { SyncStreamInput } from '../../../src/machines/syncStream.machine';
import {
  selectStreamLastMessage,
  selectStreamMessages,
  selectStreamStatus,
} from '../../../src/machines/syncStream.selectors';
import { FakeStream } from './syncFakes';
import { startContainer } from './syncHarness';

async function startStream(input: SyncStreamInput = { id: 'ringing' }, stream = new FakeStream()) {
  return { ...(await startContainer('stream', { input, existing: stream })), stream };
}

const message = (n: number) => ({ sid: `TZ${n}`, data: { n } });

describe('syncStream machine', () => {
  it('keeps published messages in order, without dedupe, up to `keep`', async () => {
    const { actor, events, emitted } = await startStream({ id: 'ringing', keep: 2 });
    for (const n of [1, 2, 2, 3]) {
      events.push({ type: 'stream.messagePublished', message: message(n), isLocal: false });
    }
    expect(selectStreamMessages(actor.getSnapshot())).toEqual([message(2), message(3)]);
    expect(selectStreamLastMessage(actor.getSnapshot())).toEqual(message(3));
    expect(emitted.filter((e) => e.type === 'stream.messagePublished')).toHaveLength(4);
  });

  it('publishes a message and answers with its sid', async () => {
    const { actor } = await startStream();
    await expect(
      ask(actor, { type: 'stream.publish', data: { call: 'CA1' } }, 'stream'),
    ).resolves.toEqual({ sid: 'TZ1', data: { call: 'CA1' } });
  });

  it('rejects a message that is not a plain object and sends nothing', async () => {
    const { actor, stream } = await startStream();
    await expect(
      ask(actor, { type: 'stream.publish', data: 'hi' as never }, 'stream'),
    ).rejects.toThrow(/data must be a plain object/);
    expect(stream.calls).toEqual([]);
  });

  it('rejects a bad history size before opening', async () => {
    const { actor } = await startStream({ id: 'ringing', keep: 0 });
    expect(selectStreamStatus(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toBe(
      'keep must be a positive integer, got 0',
    );
  });
});
