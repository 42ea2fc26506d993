/** The lifecycle every container kind shares (opening to removal), checked once per kind. */
import { describe, expect, it } from 'vitest';
import { ask } from '../../../src/machines/syncCommand';
import { selectStatus } from '../../../src/machines/syncContainer.selectors';
import { FakeDocument, FakeStream, notFound } from './syncFakes';
import { seededList, seededMap, startContainer } from './syncHarness';

/** Per kind: a container to open, and one ordinary command with the port method it calls. */
const cases = [
  {
    kind: 'list',
    existing: () => seededList(1),
    command: { type: 'list.push', data: {} },
    method: 'push',
  },
  {
    kind: 'map',
    existing: () => seededMap(['a']),
    command: { type: 'map.set', key: 'a', data: {} },
    method: 'set',
  },
  {
    kind: 'document',
    existing: () => new FakeDocument(),
    command: { type: 'document.set', data: {} },
    method: 'set',
  },
  {
    kind: 'stream',
    existing: () => new FakeStream(),
    command: { type: 'stream.publish', data: {} },
    method: 'publishMessage',
  },
] as const;

describe.each(cases.map((c) => [c.kind, c] as const))(
  'sync %s machine: lifecycle',
  (_, { kind, existing, command, method }) => {
    const start = async (port = existing()) => {
      const started = await startContainer(kind as 'list', { existing: port as never });
      return { ...started, port, ask: (c: object) => ask(started.actor, c as never, kind) };
    };
    const removeCommand = `${kind}.remove${kind[0]!.toUpperCase()}${kind.slice(1)}`;

    it('on remote removal unsubscribes, runs the removal handler, emits removed and ends', async () => {
      const { actor, events, onRemoved, emitted } = await start();
      expect(events.subscribed).toBe(1);
      events.push({ type: `${kind}.removed`, isLocal: false } as never);
      expect(selectStatus(actor.getSnapshot())).toBe('removed');
      expect(events.unsubscribed).toBe(1);
      expect(onRemoved).toHaveBeenCalledTimes(1);
      expect(emitted.at(-1)).toEqual({ type: `${kind}.removed`, isLocal: false });
      expect(actor.getSnapshot().status).toBe('done');
    });

    it(`on local ${removeCommand} answers the caller, unsubscribes and emits a local removal`, async () => {
      const { actor, events, onRemoved, emitted, port, ask } = await start();
      await expect(ask({ type: removeCommand })).resolves.toBeUndefined();
      expect(port.calls.at(-1)?.method).toBe(removeCommand.slice(kind.length + 1));
      expect(selectStatus(actor.getSnapshot())).toBe('removed');
      expect(events.unsubscribed).toBe(1);
      expect(onRemoved).toHaveBeenCalledTimes(1);
      expect(emitted.at(-1)).toEqual({ type: `${kind}.removed`, isLocal: true });
    });

    it('treats a 404 on setTtl as removed locally and re-throws the error to the caller', async () => {
      const port = existing();
      port.failNext('setTtl', notFound());
      const { actor, events, onRemoved, ask } = await start(port);
      await expect(ask({ type: `${kind}.setTtl`, ttl: 60 })).rejects.toMatchObject({ status: 404 });
      expect(selectStatus(actor.getSnapshot())).toBe('removed');
      expect(events.unsubscribed).toBe(1);
      expect(onRemoved).toHaveBeenCalledTimes(1);
    });

    it('does not leave a caller waiting when the actor is stopped mid-command', async () => {
      const port = existing();
      Object.assign(port, { [method]: () => new Promise(() => {}) });
      const { actor, ask } = await start(port);
      const pending = ask(command);
      actor.stop();
      await expect(pending).rejects.toMatchObject({ reason: 'containerGone' });
    });

    it('rejects commands once removed without sending them', async () => {
      const { events, port, ask } = await start();
      const before = port.calls.length;
      events.push({ type: `${kind}.removed`, isLocal: false } as never);
      await expect(ask(command)).rejects.toMatchObject({ reason: 'containerGone' });
      expect(port.calls).toHaveLength(before);
    });
  },
);
