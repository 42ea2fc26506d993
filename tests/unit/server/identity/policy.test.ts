/**
 * The access policy as the service applies it: which object and item a tunnelled request would read
 * or write (objects addressed by SID resolve to their unique name), and Switchboard's rules.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../../server/twins/sync/core';
import { createInternalSync } from '../../../../server/twins/sync/internal';
import { describeAccess } from '../../../../server/twins/sync/policy';
import type { RestRequest } from '../../../../server/twins/sync/rest/context';
import { openStore } from '../../../../server/twins/sync/store';
import { createAccessPolicy, objectAccess, writeProblem } from '../../../../server/identity/policy';
import { NAMED_OBJECTS, OBJECT_FAMILIES } from '../../../../src/contracts/objects';
import { removeDir, tempDir } from '../support';
import type { Role } from '../../../../src/contracts/roles';

let dir: string;
let store: ReturnType<typeof openStore>;
let core: Core;

beforeEach(() => {
  dir = tempDir();
  store = openStore(dir);
  core = new Core(store, Date.now);
});
afterEach(() => {
  store.close();
  removeDir(dir);
});

const req = (method: string, path: string, body?: unknown): RestRequest => ({
  method,
  segments: path.split('/').filter(Boolean),
  params: {},
  headers: {},
  body,
});

const roles = new Map<string, Role>([
  ['ada@x.io', 'admin'],
  ['bob@x.io', 'agent'],
]);
const policy = createAccessPolicy((identity) => roles.get(identity) ?? null);
const verdict = (identity: string, r: RestRequest) => {
  const attempt = describeAccess(core, identity, r);
  return attempt === null ? 'not asked' : (policy(attempt) ?? 'allowed');
};

describe('describeAccess', () => {
  it('describes reads too: GETs and Insights queries; subscriptions are asked per object later', () => {
    expect(describeAccess(core, 'bob@x.io', req('GET', '/v3/Maps/users/Items'))).toMatchObject({
      op: 'read',
      name: 'users',
      target: 'item',
    });
    expect(describeAccess(core, 'bob@x.io', req('POST', '/v4/Subscriptions', {}))).toBeNull();
    expect(
      describeAccess(core, 'bob@x.io', req('POST', '/v3/Insights/users/Items', {})),
    ).toMatchObject({ op: 'read', kind: 'map', name: 'users' });
  });

  it('resolves a map addressed by SID to its unique name', () => {
    const internal = createInternalSync(core);
    internal.ensureMap('users');
    const sid = store.q.objectByName.get('map', 'users')!.sid;
    expect(
      describeAccess(core, 'bob@x.io', req('PUT', `/v3/Maps/${sid}/Items/bob@x.io`, {})),
    ).toEqual({
      identity: 'bob@x.io',
      op: 'write',
      kind: 'map',
      name: 'users',
      target: 'item',
      key: 'bob@x.io',
      method: 'PUT',
    });
  });

  it('reads the key of a POST create from its body, and the name of an object create', () => {
    expect(
      describeAccess(core, 'bob@x.io', req('POST', '/v3/Maps/presence/Items', { key: 'x' })),
    ).toMatchObject({ target: 'item', key: 'x', name: 'presence' });
    expect(
      describeAccess(core, 'bob@x.io', req('POST', '/v3/Maps', { unique_name: 'users' })),
    ).toMatchObject({ target: 'create', name: 'users' });
  });
});

describe("Switchboard's access policy", () => {
  it('keeps every client write away from the users map, create included', () => {
    for (const r of [
      req('PUT', '/v3/Maps/users/Items/bob@x.io', { data: { role: 'admin' } }),
      req('POST', '/v3/Maps/users/Items', { key: 'eve@x.io', data: {} }),
      req('DELETE', '/v3/Maps/users/Items/ada@x.io'),
      req('DELETE', '/v3/Maps/users'),
      req('POST', '/v3/Maps/users', { ttl: 1 }),
      req('POST', '/v3/Maps', { unique_name: 'users' }),
    ]) {
      expect(verdict('ada@x.io', r)).toMatch(/users directory is kept by the server/);
    }
  });

  it('lets people write only their own presence item, while they are on the team', () => {
    const put = (key: string) =>
      req('PUT', `/v3/Maps/presence/Items/${key}`, { data: {}, ttl: 30 });
    expect(verdict('bob@x.io', put('bob@x.io'))).toBe('allowed');
    expect(verdict('bob@x.io', req('POST', '/v3/Maps/presence/Items/bob@x.io', { ttl: 30 }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('DELETE', '/v3/Maps/presence/Items/bob@x.io'))).toBe('allowed');
    expect(verdict('bob@x.io', put('ada@x.io'))).toBe('you can only set your own presence');
    expect(verdict('bob@x.io', req('DELETE', '/v3/Maps/presence/Items/ada@x.io'))).toBe(
      'you can only set your own presence',
    );
    expect(verdict('eve@x.io', put('eve@x.io'))).toBe('you are no longer on this team');
    expect(verdict('eve@x.io', req('GET', '/v3/Maps/contacts/Items'))).toBe(
      'you are no longer on this team',
    );
    expect(verdict('bob@x.io', req('POST', '/v3/Maps', { unique_name: 'presence' }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('DELETE', '/v3/Maps/presence'))).toBe(
      'the presence map itself cannot be changed',
    );
  });

  it('keeps parked calls for the server: nobody writes holds, everyone reads them', () => {
    for (const who of ['ada@x.io', 'bob@x.io']) {
      expect(verdict(who, req('DELETE', '/v3/Maps/holds/Items/CA1'))).toBe(
        'calls are parked and picked up through the phone; the server keeps this list',
      );
      expect(verdict(who, req('GET', '/v3/Maps/holds/Items'))).toBe('allowed');
    }
  });

  it('leaves contacts and unreserved objects open to everyone on the team', () => {
    expect(verdict('bob@x.io', req('PUT', '/v3/Maps/contacts/Items/c1', { data: {} }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('POST', '/v3/Documents', { unique_name: 'users' }))).toBe(
      'allowed',
    );
  });

  it('keeps call history for the server: nobody writes the calls list, everyone reads it', () => {
    for (const who of ['ada@x.io', 'bob@x.io']) {
      expect(verdict(who, req('POST', '/v3/Lists/calls/Items', { data: {} }))).toBe(
        'call history is written by the server as calls end',
      );
      expect(verdict(who, req('DELETE', '/v3/Lists/calls'))).toMatch(/written by the server/);
      expect(verdict(who, req('GET', '/v3/Lists/calls/Items'))).toBe('allowed');
    }
  });

  it('lets only admins change the admin objects, and everyone read them', () => {
    const writes = [
      req('POST', '/v3/Maps/groups/Items', { key: 'g1', data: {} }),
      req('DELETE', '/v3/Maps/guidance/Items/x'),
      req('POST', '/v3/Maps', { unique_name: 'audio' }),
      req('POST', '/v3/Documents', { unique_name: 'schedule:g1' }),
      req('POST', '/v3/Documents/calendar:g1', { data: {} }),
      req('POST', '/v3/Lists/forwarding:g1/Items', { data: {} }),
    ];
    for (const w of writes) {
      expect(verdict('ada@x.io', w)).toBe('allowed');
      expect(verdict('bob@x.io', w)).toMatch(/^only admins change/);
    }
    expect(verdict('bob@x.io', req('GET', '/v3/Documents/schedule:g1'))).toBe('allowed');
  });

  it("keeps each person's settings document to themselves, reads included", () => {
    expect(verdict('bob@x.io', req('GET', '/v3/Documents/settings:bob@x.io'))).toBe('allowed');
    expect(
      verdict('bob@x.io', req('POST', '/v3/Documents', { unique_name: 'settings:bob@x.io' })),
    ).toBe('allowed');
    for (const r of [
      req('GET', '/v3/Documents/settings:bob@x.io'),
      req('POST', '/v3/Documents/settings:bob@x.io', { data: {} }),
      req('DELETE', '/v3/Documents/settings:bob@x.io'),
    ]) {
      expect(verdict('ada@x.io', r)).toMatch(/^settings are private/);
    }
  });
});

describe('objectAccess: what a person may do to an object, from the catalogue', () => {
  const R = { read: true, write: false, manage: false };
  const RW = { read: true, write: true, manage: false };
  const RWM = { read: true, write: true, manage: true };
  const NONE = { read: false, write: false, manage: false };
  const ada = (kind: 'map' | 'list' | 'document', name: string) =>
    objectAccess({ kind, name }, 'ada@x.io', 'admin');
  const bob = (kind: 'map' | 'list' | 'document', name: string) =>
    objectAccess({ kind, name }, 'bob@x.io', 'agent');

  it("follows each object's writers, for every object the catalogue names", () => {
    const expected = { server: [R, R], admins: [RW, R], ownItems: [RW, RW], team: [RW, RW] };
    for (const object of NAMED_OBJECTS) {
      if (object.kind === 'stream' || object.writers === 'owner') continue;
      const [admin, agent] = expected[object.writers];
      expect(ada(object.kind, object.name), object.name).toEqual(admin);
      expect(bob(object.kind, object.name), object.name).toEqual(agent);
    }
  });

  it("lets admins remove a group's own objects, and the owner alone open their settings", () => {
    for (const family of OBJECT_FAMILIES) {
      if (family.kind === 'stream') continue;
      if (family.per === 'group') {
        expect(ada(family.kind, family.name('g1')), family.prefix).toEqual(RWM);
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
