/**
 * Sync REST writes and reads through the `twilio` package, sent by its own HTTP client to the local
 * stand-in of Twilio's API (only the address rewritten): the requests it received are checked,
 * form-encoded as Twilio gets them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { User } from '../../../../server/identity/users';
import { createTwilioClient, redirectedUri } from '../../../../server/twilio/client';
import { createDirectory } from '../../../../server/identity/directory';
import {
  createSyncRest,
  pathKey,
  restStatus,
  type SyncRest,
} from '../../../../server/twilio/sync-rest';
import { startTwilioApi, type TwilioApiStandIn } from '../../../support/twilio-api';
import { ACCOUNT_SID, API_KEY, API_SECRET, SERVICE_SID, testTwilioConfig } from './support';

let api: TwilioApiStandIn;
let rest: SyncRest;
const S = `/sync/v1/Services/${SERVICE_SID}`;

beforeAll(async () => {
  api = await startTwilioApi({
    accountSid: ACCOUNT_SID,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    serviceSid: SERVICE_SID,
  });
  const config = testTwilioConfig(api.url);
  rest = createSyncRest(createTwilioClient(config), SERVICE_SID);
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
  api.failWith(null);
});

const seen = () => api.requests.map((r) => `${r.method} ${r.path}`);

describe('the address rewrite', () => {
  it("puts Twilio's product in the path of the stand-in", () => {
    expect(
      redirectedUri(
        'https://sync.twilio.com/v1/Services/IS1/Maps?PageSize=100',
        'http://127.0.0.1:9',
      ),
    ).toBe('http://127.0.0.1:9/sync/v1/Services/IS1/Maps?PageSize=100');
    expect(
      redirectedUri(
        'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1.mp3',
        'http://h',
      ),
    ).toBe('http://h/api/2010-04-01/Accounts/AC1/Recordings/RE1.mp3');
  });
});

describe('SyncRest', () => {
  it('writes a map item into a map that does not exist yet: the map is made first', async () => {
    await rest.setMapItem('things', 'a', { n: 1 }, 60);
    expect(seen()).toEqual([
      `POST ${S}/Maps/things/Items/a`,
      `POST ${S}/Maps/things/Items`,
      `POST ${S}/Maps`,
      `POST ${S}/Maps/things/Items`,
    ]);
    expect(api.requests[2]!.form).toEqual({ UniqueName: 'things' });
    expect(api.requests[3]!.form).toEqual({ Key: 'a', Data: '{"n":1}', Ttl: '60' });
    expect(
      api.requests.every(
        (r) =>
          r.authorization === `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}`,
      ),
    ).toBe(true);
    expect(await rest.getMapItem('things', 'a')).toMatchObject({ data: { n: 1 } });
  });

  it('replaces an item that exists with one update', async () => {
    api.setMapItem('things', 'b', { n: 1 });
    await rest.setMapItem('things', 'b', { n: 2 });
    expect(seen()).toEqual([`POST ${S}/Maps/things/Items/b`]);
    expect(api.requests[0]!.form).toEqual({ Data: '{"n":2}' });
    expect(api.maps.get('things')?.get('b')?.data).toEqual({ n: 2 });
  });

  it('keys that would break a path are escaped, and read back as they were', async () => {
    const key = 'odd/key#with?%and space@example.com';
    expect(pathKey(key)).toBe('odd%2Fkey%23with%3F%25and%20space@example.com');
    await rest.setMapItem('things', key, { ok: true });
    expect(api.maps.get('things')?.get(key)?.data).toEqual({ ok: true });
    expect((await rest.mapItems('things')).get(key)?.data).toEqual({ ok: true });
    await rest.removeMapItem('things', key);
    expect(api.maps.get('things')?.has(key)).toBe(false);
  });

  it('missing things read as nothing; removing a missing item is not an error', async () => {
    expect(await rest.getMapItem('nowhere', 'x')).toBeNull();
    expect(await rest.mapItems('nowhere')).toEqual(new Map());
    expect(await rest.document('schedule:none')).toBeNull();
    expect(await rest.listItems('forwarding:none')).toEqual([]);
    await rest.removeMapItem('things', 'never-there');
  });

  it('appends to a list, making it first; updates an item by index', async () => {
    expect(await rest.pushListItem('log', { a: 1 })).toBe(0);
    expect(await rest.pushListItem('log', { a: 2 })).toBe(1);
    expect(seen()).toEqual([
      `POST ${S}/Lists/log/Items`,
      `POST ${S}/Lists`,
      `POST ${S}/Lists/log/Items`,
      `POST ${S}/Lists/log/Items`,
    ]);
    await rest.updateListItem('log', 1, { a: 3 });
    expect(api.requests.at(-1)).toMatchObject({
      path: `${S}/Lists/log/Items/1`,
      form: { Data: '{"a":3}' },
    });
    expect(await rest.listItems('log')).toEqual([
      { index: 0, data: { a: 1 } },
      { index: 1, data: { a: 3 } },
    ]);
  });

  it('an item past its ttl expiry reads with that expiry', async () => {
    api.setMapItem('presence', 'p', { status: 'available' }, 75);
    const item = await rest.getMapItem('presence', 'p');
    expect(item?.expiresAt).toBeGreaterThan(Date.now());
  });

  it("Twilio's other errors reach the caller with their status", async () => {
    api.failWith(503);
    const err = await rest.getMapItem('things', 'a').catch((e: unknown) => e);
    expect(restStatus(err)).toBe(503);
  });
});

describe('the users directory on Twilio', () => {
  const user = (identity: string, name: string, role: User['role'] = 'agent'): User => ({
    identity,
    name,
    email: identity,
    role,
    picture: null,
    extension: '101',
  });

  it('writes in the background, in order per person, and logs a failure instead of throwing', async () => {
    const logged: string[] = [];
    const directory = createDirectory(rest, (m) => logged.push(m));
    directory.upsert(user('dan@example.com', 'Dan'));
    directory.upsert(user('dan@example.com', 'Daniel'));
    directory.remove('dan@example.com');
    directory.upsert(user('eve@example.com', 'Eve'));
    await directory.settled();
    expect(api.maps.get('users')?.has('dan@example.com')).toBe(false);
    expect(api.maps.get('users')?.get('eve@example.com')?.data).toEqual({
      name: 'Eve',
      email: 'eve@example.com',
      role: 'agent',
      extension: '101',
    });
    api.failWith(500);
    directory.upsert(user('fay@example.com', 'Fay'));
    await directory.settled();
    expect(logged).toEqual([expect.stringMatching(/^users directory: upsert failed/)]);
  });

  it('reconcile makes the map hold exactly the team', async () => {
    api.setMapItem('users', 'gone@example.com', { name: 'Gone' });
    const directory = createDirectory(rest, () => {});
    directory.reconcile([user('eve@example.com', 'Eve'), user('gus@example.com', 'Gus', 'admin')]);
    await directory.settled();
    expect([...(api.maps.get('users')?.keys() ?? [])].sort()).toEqual([
      'eve@example.com',
      'gus@example.com',
    ]);
  });
});
