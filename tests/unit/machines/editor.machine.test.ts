import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import {
  editorMachine,
  type ConflictError,
  type Revisioned,
  type SaveRequest,
} from '../../../src/machines/editor.machine';
import { selectDirty, selectEditorStatus } from '../../../src/machines/editor.selectors';
import type { JsonObject } from '../../../src/machines/syncPorts';
import { deferred, settle } from './syncModelSupport';

const validate = (v: JsonObject) =>
  typeof v.name === 'string' && v.name.trim() !== '' ? {} : { name: 'Enter a name.' };

/** The editor over a store the test answers by hand. */
function editor() {
  const loads: Array<ReturnType<typeof deferred<Revisioned>>> = [];
  const saves: Array<{ request: SaveRequest; reply: ReturnType<typeof deferred<Revisioned>> }> = [];
  const machine = editorMachine.provide({
    actors: {
      load: fromPromise(() => {
        const d = deferred<Revisioned>();
        loads.push(d);
        return d.promise;
      }),
      save: fromPromise<Revisioned, SaveRequest>(({ input }) => {
        const d = deferred<Revisioned>();
        saves.push({ request: input, reply: d });
        return d.promise;
      }),
    },
  });
  const actor = createActor(machine, { input: { validate } }).start();
  return { actor, loads, saves, status: () => selectEditorStatus(actor.getSnapshot()) };
}

const stored = (name: string, revision: string): Revisioned => ({ values: { name }, revision });
const conflict = (current: Revisioned): ConflictError & Error =>
  Object.assign(new Error('changed elsewhere'), { status: 412 as const, current });

describe('editor machine', () => {
  it('loads, edits and saves with the revision the edit started from', async () => {
    const e = editor();
    expect(e.status()).toBe('loading');
    e.loads[0]!.resolve(stored('Front desk', '1'));
    await settle();
    expect(e.status()).toBe('editing');
    e.actor.send({ type: 'editor.change', values: { name: 'Reception' } });
    expect(selectDirty(e.actor.getSnapshot())).toBe(true);
    e.actor.send({ type: 'editor.save' });
    expect(e.status()).toBe('saving');
    expect(e.saves[0]!.request).toEqual({ values: { name: 'Reception' }, revision: '1' });
    e.saves[0]!.reply.resolve(stored('Reception', '2'));
    await settle();
    expect(e.status()).toBe('editing');
    expect(selectDirty(e.actor.getSnapshot())).toBe(false);
    expect(e.actor.getSnapshot().context.base?.revision).toBe('2');
  });

  it('refuses to save invalid values, shows the field errors and sends nothing', async () => {
    const e = editor();
    e.loads[0]!.resolve(stored('Front desk', '1'));
    await settle();
    e.actor.send({ type: 'editor.change', values: { name: ' ' } });
    expect(e.actor.getSnapshot().context.fieldErrors).toEqual({});
    e.actor.send({ type: 'editor.save' });
    expect(e.status()).toBe('editing');
    expect(e.actor.getSnapshot().context.fieldErrors).toEqual({ name: 'Enter a name.' });
    expect(e.saves).toHaveLength(0);
    e.actor.send({ type: 'editor.change', values: { name: 'Fixed' } });
    expect(e.actor.getSnapshot().context.fieldErrors).toEqual({});
  });

  it('keeps what was typed when a save fails, and says why', async () => {
    const e = editor();
    e.loads[0]!.resolve(stored('A', '1'));
    await settle();
    e.actor.send({ type: 'editor.change', values: { name: 'B' } });
    e.actor.send({ type: 'editor.save' });
    e.saves[0]!.reply.reject(new Error('The server is unreachable.'));
    await settle();
    expect(e.status()).toBe('editing');
    expect(e.actor.getSnapshot().context.draft).toEqual({ name: 'B' });
    expect(e.actor.getSnapshot().context.error).toBe('The server is unreachable.');
  });

  it('on a conflict offers their version; overwrite saves ours against their revision', async () => {
    const e = editor();
    e.loads[0]!.resolve(stored('A', '1'));
    await settle();
    e.actor.send({ type: 'editor.change', values: { name: 'Mine' } });
    e.actor.send({ type: 'editor.save' });
    e.saves[0]!.reply.reject(conflict(stored('Theirs', '2')));
    await settle();
    expect(e.status()).toBe('conflict');
    expect(e.actor.getSnapshot().context.theirs).toEqual(stored('Theirs', '2'));
    expect(e.actor.getSnapshot().context.draft).toEqual({ name: 'Mine' });
    e.actor.send({ type: 'editor.overwrite' });
    expect(e.saves[1]!.request).toEqual({ values: { name: 'Mine' }, revision: '2' });
  });

  it('on a conflict, reload takes their version and drops ours', async () => {
    const e = editor();
    e.loads[0]!.resolve(stored('A', '1'));
    await settle();
    e.actor.send({ type: 'editor.change', values: { name: 'Mine' } });
    e.actor.send({ type: 'editor.save' });
    e.saves[0]!.reply.reject(conflict(stored('Theirs', '2')));
    await settle();
    e.actor.send({ type: 'editor.reload' });
    expect(e.status()).toBe('editing');
    expect(e.actor.getSnapshot().context.draft).toEqual({ name: 'Theirs' });
    expect(selectDirty(e.actor.getSnapshot())).toBe(false);
  });

  it("follows someone else's save silently while clean, and keeps it aside while dirty", async () => {
    const e = editor();
    e.loads[0]!.resolve(stored('A', '1'));
    await settle();
    e.actor.send({ type: 'editor.remoteChanged', current: stored('B', '2') });
    expect(e.actor.getSnapshot().context.draft).toEqual({ name: 'B' });
    expect(e.actor.getSnapshot().context.theirs).toBeNull();
    e.actor.send({ type: 'editor.change', values: { name: 'Mine' } });
    e.actor.send({ type: 'editor.remoteChanged', current: stored('C', '3') });
    expect(e.actor.getSnapshot().context.draft).toEqual({ name: 'Mine' });
    expect(e.actor.getSnapshot().context.theirs).toEqual(stored('C', '3'));
    // Saving still goes against the revision the edit started from, so the server reports the conflict.
    e.actor.send({ type: 'editor.save' });
    expect(e.saves[0]!.request.revision).toBe('2');
  });

  it('says why a load failed and tries again on request', async () => {
    const e = editor();
    e.loads[0]!.reject(new Error('No such ring group.'));
    await settle();
    expect(e.status()).toBe('loadFailed');
    expect(e.actor.getSnapshot().context.error).toBe('No such ring group.');
    e.actor.send({ type: 'editor.retry' });
    expect(e.status()).toBe('loading');
    expect(e.loads).toHaveLength(2);
  });
});
