/**
 * The named mutators over container machines with fake ports: a write their contract refuses is
 * refused with the field and the reason and nothing is sent; what is sent is the checked value.
 */
import { describe, expect, it } from 'vitest';
import {
  ContactWriteError,
  createContact,
  deleteContact,
  updateContact,
} from '../../../src/app/mutators/contacts';
import { WriteRefused } from '../../../src/app/mutators/core';
import { publishPresence, renewPresence } from '../../../src/app/mutators/presence';
import { setDoNotDisturb, setRingtoneVolume } from '../../../src/app/mutators/settings';
import { startContainer, startMap } from '../machines/syncHarness';
import { FakeMap } from '../machines/syncFakes';

const ada = {
  name: 'Ada',
  company: '',
  phones: [{ label: 'Work', number: '+442079460958' }],
  email: '',
  note: '',
};

const writes = (calls: { method: string; args: unknown[] }[]) =>
  calls.filter((c) => c.method !== 'getItems' && c.method !== 'describe');

describe('contact mutators', () => {
  it('write a contact the contract accepts, as checked', async () => {
    const { actor, map } = await startMap();
    await createContact(actor, 'c1', ada);
    expect(writes(map().calls)).toEqual([{ method: 'set', args: ['c1', ada, undefined] }]);
  });

  it('refuse a contact the contract refuses, naming the field, and send nothing', async () => {
    const { actor, map } = await startMap();
    const bad = { ...ada, phones: [{ label: 'Work', number: '+44 20 7946 0958' }] };
    const refused = createContact(actor, 'c1', bad);
    await expect(refused).rejects.toBeInstanceOf(WriteRefused);
    await expect(refused).rejects.toMatchObject({ field: 'phones.0.number' });
    expect(writes(map().calls)).toEqual([]);
  });

  it('never make again a contact deleted while it was being edited', async () => {
    const { actor } = await startMap();
    const update = updateContact(actor, 'gone', ada);
    await expect(update).rejects.toBeInstanceOf(ContactWriteError);
    await expect(update).rejects.toMatchObject({ gone: true });
  });

  it('take a delete of a contact someone else deleted first as done', async () => {
    const { actor } = await startMap();
    await expect(deleteContact(actor, 'nobody')).resolves.toBeUndefined();
  });
});

describe('settings mutators', () => {
  it('patch only the fields named, checked as the whole document they make', async () => {
    const { actor, entity } = await startContainer('document');
    await setDoNotDisturb(actor, true);
    expect(entity().calls.filter((c) => c.method === 'update')).toEqual([
      { method: 'update', args: [{ doNotDisturb: true }, undefined] },
    ]);
  });

  it('refuse a volume the contract refuses, and send nothing', async () => {
    const { actor, entity } = await startContainer('document');
    const refused = setRingtoneVolume(actor, 150);
    await expect(refused).rejects.toMatchObject({ name: 'WriteRefused', field: 'ringtoneVolume' });
    expect(entity().calls.filter((c) => c.method === 'update')).toEqual([]);
  });
});

describe('presence mutators', () => {
  it('write the person’s item with its ttl, then renew the ttl alone', async () => {
    const { actor, map } = await startMap({ existing: new FakeMap('MP-contacts', 'contacts') });
    const presence = actor;
    await publishPresence(presence, 'ada@x.io', { status: 'away' }, 60);
    await renewPresence(presence, 'ada@x.io', 60);
    expect(writes(map().calls)).toEqual([
      { method: 'mutate', args: ['ada@x.io', expect.any(Function), { ttl: 60 }] },
      { method: 'setItemTtl', args: ['ada@x.io', 60] },
    ]);
    expect(map().items.get('ada@x.io')?.data).toEqual({
      status: 'away',
      onCall: false,
      doNotDisturb: false,
    });
  });

  it('keep the on-call flag the service holds when the item is written (it is the server’s)', async () => {
    const existing = new FakeMap('MP-presence', 'presence');
    const { actor, map } = await startMap({ existing });
    await map().set('ada@x.io', { status: 'available', onCall: true }, { ttl: 60 });
    await publishPresence(actor, 'ada@x.io', { status: 'away' }, 60);
    expect(map().items.get('ada@x.io')?.data).toEqual({
      status: 'away',
      onCall: true,
      doNotDisturb: false,
    });
  });
});
