import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { openEntityMachine, type OpenEntityOutput } from '../../../src/machines/openEntity.machine';
import { MAX_REOPEN_ATTEMPTS } from '../../../src/contracts/sync-constants';
import type { OpenRequest } from '../../../src/machines/syncPorts';
import { FakeDirectory, FakeList, conflict, notFound, serverError } from './syncFakes';

async function open(
  request: OpenRequest,
  prepare: (d: FakeDirectory<FakeList>) => void = () => {},
) {
  const directory = new FakeDirectory<FakeList>((id) => new FakeList(`ES-${id}`, id));
  prepare(directory);
  const actor = createActor(openEntityMachine.provide({ actors: directory.actors }), {
    input: { request },
  });
  const states: string[] = [];
  actor.subscribe((s) => states.push(String(s.value)));
  actor.start();
  const output: OpenEntityOutput = await toPromise(actor);
  return { output, directory, states };
}

const existing = (d: FakeDirectory<FakeList>) =>
  d.entities.set('calls', new FakeList('ES1', 'calls'));

describe('openEntity machine', () => {
  it('open_or_create opens an existing entity without creating', async () => {
    const { output, directory } = await open(
      { kind: 'list', id: 'calls', mode: 'open_or_create' },
      existing,
    );
    expect(output.ok && output.opened.port.describe().sid).toBe('ES1');
    expect(directory.creates).toHaveLength(0);
  });

  it('open_or_create creates the entity when opening answers 404', async () => {
    const { output, directory, states } = await open({
      kind: 'list',
      id: 'calls',
      mode: 'open_or_create',
    });
    expect(output.ok).toBe(true);
    expect(directory.opens).toHaveLength(1);
    expect(directory.creates).toEqual([{ kind: 'list', id: 'calls', mode: 'open_or_create' }]);
    expect(states).toEqual(['opening', 'creating', 'opened']);
  });

  it('re-opens when the create answers 409 because a concurrent creator won', async () => {
    const { output, directory, states } = await open(
      { kind: 'list', id: 'calls', mode: 'open_or_create' },
      (d) => {
        d.openErrors.push(notFound());
        existing(d); // the other creator's list exists by the time we create
      },
    );
    expect(states).toEqual(['opening', 'creating', 'opening', 'opened']);
    expect(output.ok && output.opened.port.describe().sid).toBe('ES1');
    expect(directory.creates).toHaveLength(1);
  });

  it('gives up after repeated lost races instead of looping', async () => {
    const { output, directory } = await open(
      { kind: 'map', id: 'x', mode: 'open_or_create' },
      (d) => {
        for (let i = 0; i <= MAX_REOPEN_ATTEMPTS; i += 1) {
          d.openErrors.push(notFound());
          d.createErrors.push(conflict());
        }
      },
    );
    expect(output.ok).toBe(false);
    expect(!output.ok && output.error.message).toBe(
      'The map "x" kept disappearing while it was being opened',
    );
    expect(directory.creates).toHaveLength(MAX_REOPEN_ATTEMPTS + 1);
  });

  it('open_existing fails on a missing entity, saying it does not exist', async () => {
    const { output, directory } = await open({ kind: 'list', id: 'calls', mode: 'open_existing' });
    expect(!output.ok && output.error).toMatchObject({
      message: 'No list named "calls" exists',
      status: 404,
      code: 54150,
    });
    expect(directory.creates).toHaveLength(0);
  });

  it('create_new fails on a taken name, saying the name is taken', async () => {
    const { output, directory } = await open(
      { kind: 'list', id: 'calls', mode: 'create_new' },
      existing,
    );
    expect(!output.ok && output.error).toMatchObject({
      message: 'A list named "calls" already exists',
      status: 409,
      code: 54301,
    });
    expect(directory.opens).toHaveLength(0);
  });

  it('create_new without an id creates an unnamed entity', async () => {
    const { output, directory } = await open({ kind: 'document', mode: 'create_new' });
    expect(output.ok).toBe(true);
    expect(directory.creates).toEqual([{ kind: 'document', mode: 'create_new' }]);
  });

  it.each(['open_or_create', 'open_existing'] as const)(
    '%s without an id fails with the seed message and asks nothing',
    async (mode) => {
      const { output, directory } = await open({ kind: 'list', mode });
      expect(!output.ok && output.error).toMatchObject({
        message: 'Cannot get entity without id',
        status: 404,
      });
      expect(directory.opens).toHaveLength(0);
      expect(directory.creates).toHaveLength(0);
    },
  );

  it('rejects an empty id and a bad ttl before asking anything', async () => {
    const empty = await open({ kind: 'list', id: '', mode: 'open_existing' });
    expect(!empty.output.ok && empty.output.error.message).toBe('Cannot get entity without id');
    const ttl = await open({ kind: 'list', id: 'a', mode: 'create_new', ttl: -1 });
    expect(!ttl.output.ok && ttl.output.error.message).toMatch(
      /ttl must be a non-negative integer/,
    );
    expect(ttl.directory.creates).toHaveLength(0);
  });

  it('fails with the service error for anything else, on open or on create', async () => {
    const onOpen = await open({ kind: 'list', id: 'calls', mode: 'open_or_create' }, (d) =>
      d.openErrors.push(serverError()),
    );
    expect(!onOpen.output.ok && onOpen.output.error).toMatchObject({
      status: 503,
      message: 'Service unavailable',
    });
    expect(onOpen.directory.creates).toHaveLength(0);
    const onCreate = await open({ kind: 'list', id: 'calls', mode: 'open_or_create' }, (d) =>
      d.createErrors.push(serverError()),
    );
    expect(!onCreate.output.ok && onCreate.output.error.status).toBe(503);
  });

  it('turns a thrown non-error into a readable failure', async () => {
    const { output } = await open({ kind: 'list', id: 'calls', mode: 'open_existing' }, (d) =>
      d.openErrors.push(Object.assign(new Error(''), { status: 401 })),
    );
    expect(!output.ok && output.error).toMatchObject({
      reason: 'unauthorized',
      message: 'The sync service failed without saying why',
    });
  });
});
