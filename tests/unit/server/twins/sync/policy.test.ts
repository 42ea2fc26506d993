/**
 * Which object and item a tunnelled request would read or write, as the Sync twin asks its ACL
 * (objects addressed by SID resolve to their unique name).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../../../server/twins/sync/core';
import { createAsServer } from '../../../../../server/twins/sync/as-server';
import { describeAccess } from '../../../../../server/twins/sync/policy';
import type { RestRequest } from '../../../../../server/twins/sync/rest/context';
import { openStore } from '../../../../../server/twins/sync/store';
import { removeDir, tempDir } from '../../support';

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
    expect(createAsServer(core)('POST', '/v3/Maps', { unique_name: 'users' })).toMatchObject({
      status: 201,
    });
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
