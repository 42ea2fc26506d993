/**
 * The write policy as the service applies it: which object and item a tunnelled request would
 * write (objects addressed by SID resolve to their unique name), and Switchboard's rules for the
 * reserved maps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../server/sync/core';
import { createInternalSync } from '../../../server/sync/internal';
import { describeWrite } from '../../../server/sync/policy';
import type { RestRequest } from '../../../server/sync/rest/context';
import { openStore } from '../../../server/sync/store';
import { createWritePolicy } from '../../../server/users/policy';
import { removeDir, tempDir } from './support';

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

const members = new Set(['ada@x.io', 'bob@x.io']);
const policy = createWritePolicy((identity) => members.has(identity));
const verdict = (identity: string, r: RestRequest) => {
  const attempt = describeWrite(core, identity, r);
  return attempt === null ? 'read' : (policy(attempt) ?? 'allowed');
};

describe('describeWrite', () => {
  it('never asks about reads', () => {
    expect(describeWrite(core, 'bob@x.io', req('GET', '/v3/Maps/users/Items'))).toBeNull();
    expect(describeWrite(core, 'bob@x.io', req('POST', '/v4/Subscriptions', {}))).toBeNull();
    expect(describeWrite(core, 'bob@x.io', req('POST', '/v3/Insights/users/Items', {}))).toBeNull();
  });

  it('resolves a map addressed by SID to its unique name', () => {
    const internal = createInternalSync(core);
    internal.ensureMap('users');
    const sid = store.q.objectByName.get('map', 'users')!.sid;
    expect(
      describeWrite(core, 'bob@x.io', req('PUT', `/v3/Maps/${sid}/Items/bob@x.io`, {})),
    ).toEqual({
      identity: 'bob@x.io',
      kind: 'map',
      name: 'users',
      target: 'item',
      key: 'bob@x.io',
      method: 'PUT',
    });
  });

  it('reads the key of a POST create from its body, and the name of an object create', () => {
    expect(
      describeWrite(core, 'bob@x.io', req('POST', '/v3/Maps/presence/Items', { key: 'x' })),
    ).toMatchObject({ target: 'item', key: 'x', name: 'presence' });
    expect(
      describeWrite(core, 'bob@x.io', req('POST', '/v3/Maps', { unique_name: 'users' })),
    ).toMatchObject({ target: 'create', name: 'users' });
  });
});

describe("Switchboard's write policy", () => {
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
    expect(verdict('bob@x.io', req('POST', '/v3/Maps', { unique_name: 'presence' }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('DELETE', '/v3/Maps/presence'))).toBe(
      'the presence map itself cannot be changed',
    );
  });

  it('leaves every other object open (holds, contacts, documents, lists)', () => {
    expect(verdict('bob@x.io', req('DELETE', '/v3/Maps/holds/Items/CA1'))).toBe('allowed');
    expect(verdict('bob@x.io', req('PUT', '/v3/Maps/contacts/Items/c1', { data: {} }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('POST', '/v3/Documents', { unique_name: 'users' }))).toBe(
      'allowed',
    );
    expect(verdict('bob@x.io', req('POST', '/v3/Lists/calls/Items', { data: {} }))).toBe('allowed');
  });
});
