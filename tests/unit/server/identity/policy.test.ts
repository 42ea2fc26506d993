/**
 * Who may do what to the Sync objects (granted as Sync's per-object permissions, twilio/acl.ts), and
 * what a client's write must hold (the records), both from the catalogue.
 */
import { describe, expect, it } from 'vitest';
import { checkedWrite, objectAccess, writeProblem } from '../../../../server/identity/policy';
import { contactRecord } from '../../../../src/contracts/records/contact';
import { NAMED_OBJECTS, OBJECT_FAMILIES } from '../../../../src/contracts/objects';

describe('objectAccess: what a person may do to an object, from the catalogue', () => {
  const R = { read: true, write: false, manage: false };
  const RW = { read: true, write: true, manage: false };
  const NONE = { read: false, write: false, manage: false };
  const ada = (kind: 'map' | 'list' | 'document', name: string) =>
    objectAccess({ kind, name }, 'ada@x.io', 'admin');
  const bob = (kind: 'map' | 'list' | 'document', name: string) =>
    objectAccess({ kind, name }, 'bob@x.io', 'agent');

  it("follows each object's writers, for every object the catalogue names", () => {
    const expected = { server: [R, R], admins: [RW, R], team: [RW, RW] };
    for (const object of NAMED_OBJECTS) {
      if (object.kind === 'stream' || object.writers === 'owner') continue;
      const [admin, agent] = expected[object.writers];
      expect(ada(object.kind, object.name), object.name).toEqual(admin);
      expect(bob(object.kind, object.name), object.name).toEqual(agent);
    }
  });

  it("lets admins change a group's own objects (nobody removes them: the server does), and the owner alone open their settings", () => {
    for (const family of OBJECT_FAMILIES) {
      if (family.kind === 'stream') continue;
      if (family.per === 'group') {
        expect(ada(family.kind, family.name('g1')), family.prefix).toEqual(RW);
        expect(bob(family.kind, family.name('g1')), family.prefix).toEqual(R);
      } else {
        expect(bob(family.kind, family.name('bob@x.io')), family.prefix).toEqual(RW);
        expect(ada(family.kind, family.name('bob@x.io')), family.prefix).toEqual(NONE);
      }
    }
  });

  it('gives nothing to someone off the team, and the team everything the catalogue does not name', () => {
    expect(objectAccess({ kind: 'map', name: 'contacts' }, 'eve@x.io', null)).toEqual(NONE);
    expect(bob('map', 'scratch')).toEqual(RW);
    // A name of the catalogue as another kind is another object.
    expect(bob('document', 'users')).toEqual(RW);
  });
});

describe('writeProblem: what a client write must hold', () => {
  it("names the record's field and the reason", () => {
    expect(writeProblem({ kind: 'map', name: 'contacts' }, { name: '', phones: [] })).toBe(
      'Invalid contact name: Enter a name.',
    );
    expect(
      writeProblem({ kind: 'document', name: 'settings:bob@x.io' }, { ringtoneVolume: 'loud' }),
    ).toMatch(/^Invalid settings ringtoneVolume: /);
  });

  it('passes a good record, and anything in an object the catalogue does not name', () => {
    const contact = { name: 'Ann', phones: [{ label: 'Work', number: '+442079460958' }] };
    expect(writeProblem({ kind: 'map', name: 'contacts' }, contact)).toBeNull();
    expect(writeProblem({ kind: 'map', name: 'scratch' }, { name: '' })).toBeNull();
  });
});

describe('checkedWrite: a person’s write through the API', () => {
  it('passes the data as written, and refuses one that breaks its record with 400 naming the field', () => {
    const contact = { name: 'Ann', phones: [{ label: 'Work', number: '+442079460958' }] };
    expect(checkedWrite(contactRecord, contact)).toBe(contact);
    expect(() => checkedWrite(contactRecord, { name: '', phones: [] })).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'bad_request',
        message: expect.stringMatching(/^Invalid contact name: /),
      }),
    );
  });
});
