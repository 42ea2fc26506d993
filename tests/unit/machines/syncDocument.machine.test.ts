import { describe, expect, it } from 'vitest';
import { ask } from '../../../src/machines/syncCommand';
import type { DocumentCommandEvent } from '../../../src/machines/syncDocument.machine';
import {
  selectDocumentData,
  selectDocumentMeta,
  selectDocumentOffline,
  selectDocumentStatus,
} from '../../../src/machines/syncDocument.selectors';
import { FakeDocument, notFound } from './syncFakes';
import { startContainer } from './syncHarness';

async function startDocument(existing: FakeDocument | null = new FakeDocument()) {
  const input = { id: 'settings', mode: 'open_existing' } as const;
  return { ...(await startContainer('document', { input, existing })), doc: existing };
}

const version = (lastEventId: number, data: object) => ({
  data: data as Record<string, unknown>,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: 1_000 + lastEventId,
});

describe('syncDocument machine', () => {
  it('opens with the document data and version', async () => {
    const { actor } = await startDocument();
    expect(selectDocumentStatus(actor.getSnapshot())).toBe('ready');
    expect(selectDocumentData(actor.getSnapshot())).toEqual({ theme: 'light' });
    expect(selectDocumentMeta(actor.getSnapshot())).toMatchObject({
      revision: 'r1',
      lastEventId: 1,
    });
  });

  it('fails open_existing on a missing document', async () => {
    const { actor } = await startDocument(null);
    expect(selectDocumentStatus(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toBe('No document named "settings" exists');
  });

  it('applies newer updates only, and re-emits them', async () => {
    const { actor, events, emitted } = await startDocument();
    events.push({ type: 'document.updated', state: version(3, { theme: 'dark' }), isLocal: false });
    events.push({ type: 'document.updated', state: version(2, { theme: 'old' }), isLocal: false });
    events.push({ type: 'document.updated', state: version(3, { theme: 'dup' }), isLocal: false });
    expect(selectDocumentData(actor.getSnapshot())).toEqual({ theme: 'dark' });
    expect(selectDocumentMeta(actor.getSnapshot())).toMatchObject({
      revision: 'r3',
      lastEventId: 3,
    });
    expect(emitted.filter((e) => e.type === 'document.updated')).toHaveLength(1);
  });

  it('sets, updates and mutates through the port and shows the result', async () => {
    const { actor } = await startDocument();
    await ask(actor, { type: 'document.set', data: { a: 1 } }, 'document');
    await ask(actor, { type: 'document.update', data: { b: 2 } }, 'document');
    await ask(actor, { type: 'document.mutate', mutator: (d) => ({ ...d, c: 3 }) }, 'document');
    expect(selectDocumentData(actor.getSnapshot())).toEqual({ a: 1, b: 2, c: 3 });
  });

  it.each([
    [
      'set with array data',
      { type: 'document.set', data: [] as never },
      /data must be a plain object/,
    ],
    [
      'mutate without a function',
      { type: 'document.mutate', mutator: 3 as never },
      /must be a function/,
    ],
    ['setTtl -1', { type: 'document.setTtl', ttl: -1 }, /ttl must be a non-negative integer/],
    [
      'update with a ttl of "1"',
      { type: 'document.update', data: {}, ttl: '1' as never },
      /ttl must be/,
    ],
  ] satisfies Array<[string, DocumentCommandEvent, RegExp]>)(
    'rejects %s and sends nothing',
    async (_, command, message) => {
      const { actor, doc } = await startDocument();
      await expect(ask(actor, command, 'document')).rejects.toThrow(message);
      expect(doc!.calls).toEqual([]);
    },
  );

  it('treats a 404 on a write as removed locally and re-throws', async () => {
    const doc = new FakeDocument();
    doc.failNext('set', notFound(54100));
    const { actor, events, onRemoved, emitted } = await startDocument(doc);
    await expect(ask(actor, { type: 'document.set', data: {} }, 'document')).rejects.toMatchObject({
      status: 404,
    });
    expect(selectDocumentStatus(actor.getSnapshot())).toBe('removed');
    expect(events.unsubscribed).toBe(1);
    expect(onRemoved).toHaveBeenCalledTimes(1);
    expect(emitted.at(-1)).toEqual({ type: 'document.removed', isLocal: true });
  });

  it('shows connection loss', async () => {
    const { actor } = await startDocument();
    actor.send({ type: 'sync.connectionChanged', state: 'disconnected' });
    expect(selectDocumentOffline(actor.getSnapshot())).toBe(true);
  });
});
