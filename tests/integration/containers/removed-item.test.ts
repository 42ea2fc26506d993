/**
 * twilio-sync 4.0.1 keeps a removed list item in its cache as null, so a plain SDK `update`,
 * `mutate` or `set` of that index throws a TypeError and `get` resolves null. Through the list
 * machine the same commands must fail as the service would: 404 "No item with index N found",
 * leaving the view equal to the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askList } from '../../../src/machines/syncAsk';
import { shutdownClients } from '../sync/support';
import { openContainer, serviceItems } from './containerDriver';
import { startWorld, unique, waitFor, withFreshReader, type World } from './modelSupport';

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 90_000);
afterAll(async () => {
  world?.runtime.stop();
  await shutdownClients();
  await world?.server.stop();
  world?.server.cleanup();
});

describe('a list item removed under the SDK cache', () => {
  it('the plain SDK throws a TypeError (the quirk this guards against)', async () => {
    const list = await world.b.list(unique('sdk-tombstone'));
    const { index } = await list.push({ a: 1 });
    await list.remove(index);
    await expect(list.update(index, { b: 2 })).rejects.toBeInstanceOf(TypeError);
    await expect(list.get(index)).resolves.toBeNull();
    list.close();
  });

  it('through the machine, update/mutate/set/get of it fail with 404 and change nothing', async () => {
    const id = unique('machine-tombstone');
    const c = openContainer(world, 'list', { id });
    await waitFor(() => c.actor.getSnapshot().matches({ ready: 'idle' }), 15_000, 'ready');
    const actor = c.actor as Parameters<typeof askList>[0];
    const keep = await askList(actor, { type: 'list.push', data: { keep: true } });
    const gone = await askList(actor, { type: 'list.push', data: { gone: true } });
    await askList(actor, { type: 'list.remove', index: gone.index });
    const failure = { status: 404, code: 54151, message: `No item with index ${gone.index} found` };
    await expect(
      askList(actor, { type: 'list.update', index: gone.index, data: { b: 2 } }),
    ).rejects.toMatchObject(failure);
    await expect(
      askList(actor, { type: 'list.mutate', index: gone.index, mutator: (d) => d }),
    ).rejects.toMatchObject(failure);
    await expect(
      askList(actor, { type: 'list.set', index: gone.index, data: { c: 3 } }),
    ).rejects.toMatchObject(failure);
    await expect(askList(actor, { type: 'list.get', index: gone.index })).rejects.toMatchObject(
      failure,
    );
    expect(c.status()).toBe('ready');
    expect(c.view()).toEqual([[keep.index, { keep: true }]]);
    expect(await withFreshReader(world, (r) => serviceItems(r, 'list', id))).toEqual(c.view());
    c.actor.stop();
  });
});
