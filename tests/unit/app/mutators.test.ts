/**
 * The named mutators over container machines with fake ports: a write their contract refuses is
 * refused with the field and the reason and nothing is sent; what is sent is the checked value.
 * Presence is written by the server for the person: its mutators ask the API.
 */
import { describe, expect, it } from 'vitest';
import {
  ContactWriteError,
  createContact,
  deleteContact,
  updateContact,
} from '../../../src/app/mutators/contacts';
import { WriteRefused } from '../../../src/app/mutators/core';
import {
  publishPresence,
  renewPresence,
  withdrawPresence,
} from '../../../src/app/mutators/presence';
import { apiAnswering } from '../io/api/recorded';
import { setDoNotDisturb, setRingtoneVolume } from '../../../src/app/mutators/settings';
import { startContainer, startMap } from '../machines/syncHarness';

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
  it('ask the server to write the person’s own item, then to renew it, then to remove it', async () => {
    const { api, requests } = apiAnswering(null);
    await publishPresence(api, 'away', false);
    await publishPresence(api, 'available', true);
    await renewPresence(api);
    await withdrawPresence(api);
    expect(requests).toEqual([
      { method: 'PUT', url: '/api/presence', body: { status: 'away' } },
      { method: 'PUT', url: '/api/presence', body: { status: 'available', doNotDisturb: true } },
      { method: 'POST', url: '/api/presence/renew', body: undefined },
      { method: 'DELETE', url: '/api/presence', body: undefined },
    ]);
  });

  it('reject a renewal of an item that lapsed, so the heartbeat writes it again', async () => {
    const { api } = apiAnswering(() => ({
      status: 404,
      body: { error: { code: 'no_presence', message: 'Your presence has lapsed' } },
    }));
    await expect(renewPresence(api)).rejects.toMatchObject({ status: 404, code: 'no_presence' });
  });
});
