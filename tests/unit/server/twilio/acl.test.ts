/**
 * Who may do what in Sync: the server refuses a Sync service without ACL, makes the shared objects,
 * and grants each person per-object permissions from the catalogue's rules (server/identity/policy.ts),
 * following sign-in, role changes and removal, and makes a new ring group with its objects for its
 * admin. Checked on the stand-in's permission resources.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectKind, Permission, TwilioApiStandIn } from '../../../support/twilio-api';
import { expectError, startApp, type TestApp } from '../support';
import { SERVICE_SID, startTwilioApp, type TwilioTestApp } from './support';

const ADA = 'ada@example.com';
const BOB = 'bob@example.com';

const R: Permission = { read: true, write: false, manage: false };
const RW: Permission = { read: true, write: true, manage: false };

async function eventually(check: () => void, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

describe('starting on Twilio', () => {
  it('refuses a Sync service with ACL off, saying what to turn on, and grants nothing', async () => {
    let api: TwilioApiStandIn | null = null;
    await expect(
      startTwilioApp({
        before: (a) => {
          api = a;
          a.aclEnabled = false;
        },
      }),
    ).rejects.toThrow(
      new RegExp(`Twilio Sync service ${SERVICE_SID} has ACL off.*Turn it on.*AclEnabled=true`),
    );
    expect(api!.requests.filter((r) => r.path.includes('/Permissions'))).toEqual([]);
    expect(api!.lists.has('calls')).toBe(false);
  });

  it('with ACL on, the shared objects exist before the server answers', async () => {
    const t = await startTwilioApp();
    try {
      expect([...t.api.maps.keys()].sort()).toEqual(
        ['audio', 'contacts', 'groups', 'guidance', 'holds', 'presence', 'users'].sort(),
      );
      expect([...t.api.lists.keys()]).toEqual(['calls']);
      // Read from the service itself, not assumed.
      expect(
        t.api.requests.some(
          (r) => r.method === 'GET' && r.path === `/sync/v1/Services/${SERVICE_SID}`,
        ),
      ).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('permissions follow the team', () => {
  let t: TwilioTestApp;
  let ada: string;
  let bob: string;
  const perms = (kind: ObjectKind, name: string) => t.api.permissionsOf(kind, name);
  const token = (cookie: string) => fetch(`${t.url}/api/token`, { headers: { Cookie: cookie } });
  const json = (method: string, path: string, cookie: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: {
        Cookie: cookie,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  /** Everything `identity` holds, by object. */
  const heldBy = (identity: string) => {
    const out: Record<string, Permission> = {};
    for (const [kind, names] of [
      ['map', t.api.maps.keys()],
      ['list', t.api.lists.keys()],
      ['document', t.api.documents.keys()],
    ] as const)
      for (const name of names) {
        const p = perms(kind, name)[identity];
        if (p) out[`${kind}:${name}`] = p;
      }
    return out;
  };

  beforeAll(async () => {
    t = await startTwilioApp({
      // A group from before this start, and someone removed while the server was down.
      before: (api) => {
        api.setDocument('schedule:grp-old', { timeZone: 'UTC', week: {} });
        api.setDocument('calendar:grp-old', { holidays: [] });
        api.pushListItem('forwarding:grp-old', { when: 'always' });
        api.setPermission('list', 'forwarding:grp-old', 'mallory@example.com', {
          ...RW,
          manage: true,
        });
        api.setDocument('settings:mallory@example.com', {});
        api.setPermission('document', 'settings:mallory@example.com', 'mallory@example.com', RW);
      },
    });
    ada = await t.signIn(ADA, 'Ada');
    bob = await t.signIn(BOB, 'Bob');
    // The browser asks for its Sync token next: answered once its permissions are in place.
    expect((await token(ada)).status).toBe(200);
    expect((await token(bob)).status).toBe(200);
  });
  afterAll(() => t.close());

  it('an agent reads what the server and admins keep, writes contacts and their own settings', () => {
    expect(heldBy(BOB)).toEqual({
      'map:users': R,
      'list:calls': R,
      'map:holds': R,
      'map:groups': R,
      'map:guidance': R,
      'map:audio': R,
      'document:team-settings': R,
      'document:schedule:grp-old': R,
      'document:calendar:grp-old': R,
      'list:forwarding:grp-old': R,
      'map:contacts': RW,
      // Written by the server for each person (/api/presence): nobody writes a colleague's.
      'map:presence': R,
      'document:settings:bob@example.com': RW,
    });
    // Their settings document is made for them (browsers cannot create objects under ACL).
    expect(t.api.documents.has('settings:bob@example.com')).toBe(true);
  });

  it('an admin also writes the admin objects, and removes none (the server makes and removes them)', () => {
    expect(heldBy(ADA)).toEqual({
      'map:users': R,
      'list:calls': R,
      'map:holds': R,
      // Written through /api/groups and /api/announcements, whose rules read other items.
      'map:groups': R,
      'map:guidance': R,
      'map:audio': RW,
      'document:team-settings': RW,
      'document:schedule:grp-old': RW,
      'document:calendar:grp-old': RW,
      'list:forwarding:grp-old': RW,
      'map:contacts': RW,
      'map:presence': R,
      'document:settings:ada@example.com': RW,
    });
  });

  it("nobody holds anything on another person's settings", () => {
    expect(Object.keys(perms('document', 'settings:ada@example.com'))).toEqual([ADA]);
    expect(Object.keys(perms('document', 'settings:bob@example.com'))).toEqual([BOB]);
  });

  it('someone no longer on the team loses what they held, at start', async () => {
    await eventually(() => expect(heldBy('mallory@example.com')).toEqual({}));
  });

  it('signing in again changes nothing in Twilio', async () => {
    const before = t.api.requests.length;
    const again = await t.signIn(BOB, 'Bob');
    expect((await token(again)).status).toBe(200);
    const permissionWrites = t.api.requests
      .slice(before)
      .filter((r) => r.method !== 'GET' && r.path.includes('/Permissions/'));
    expect(permissionWrites).toEqual([]);
  });

  it('a role change updates the permissions: up to admin and back', async () => {
    expect((await json('PUT', `/api/users/${BOB}/role`, ada, { role: 'admin' })).status).toBe(200);
    // The next token waits for the change.
    expect((await token(bob)).status).toBe(200);
    expect(perms('map', 'audio')[BOB]).toEqual(RW);
    expect(perms('document', 'schedule:grp-old')[BOB]).toEqual(RW);
    expect(perms('map', 'users')[BOB]).toEqual(R);

    expect((await json('PUT', `/api/users/${BOB}/role`, ada, { role: 'agent' })).status).toBe(200);
    expect((await token(bob)).status).toBe(200);
    expect(perms('map', 'audio')[BOB]).toEqual(R);
    expect(perms('document', 'calendar:grp-old')[BOB]).toEqual(R);
    expect(perms('list', 'forwarding:grp-old')[BOB]).toEqual(R);
  });

  it('a new ring group: made by the server with its objects, granted to the team', async () => {
    const group = {
      name: 'Sales',
      number: '300',
      members: [],
      strategy: 'simultaneous',
      ringTimeout: 20,
    };
    const schedule = {
      timeZone: 'Europe/London',
      week: { mon: [{ start: '09:00', end: '17:00' }] },
    };
    const res = await json('POST', '/api/groups/grp-new1', ada, { group, schedule });
    expect(res.status).toBe(201);
    expect(t.api.documents.get('schedule:grp-new1')?.data).toEqual(schedule);
    expect(t.api.documents.get('calendar:grp-new1')?.data).toEqual({ holidays: [] });
    expect(t.api.lists.has('forwarding:grp-new1')).toBe(true);
    expect(t.api.maps.get('groups')?.get('grp-new1')?.data).toEqual(group);
    for (const [kind, name] of [
      ['document', 'schedule:grp-new1'],
      ['document', 'calendar:grp-new1'],
      ['list', 'forwarding:grp-new1'],
    ] as const)
      expect(perms(kind, name)).toEqual({ [ADA]: RW, [BOB]: R });

    // The same id again is refused, and what exists is left alone.
    const again = await json('POST', '/api/groups/grp-new1', ada, {
      group: { ...group, number: '301' },
      schedule: { timeZone: 'UTC', week: {} },
    });
    expect((await expectError(again)).code).toBe('group_exists');
    expect(t.api.documents.get('schedule:grp-new1')?.data).toMatchObject({
      timeZone: 'Europe/London',
    });
    // Agents cannot; nonsense is refused before Twilio is asked.
    const byAgent = await json('POST', '/api/groups/grp-new2', bob, { group, schedule });
    expect(byAgent.status).toBe(403);
    expect(t.api.documents.has('schedule:grp-new2')).toBe(false);
    const zone = await json('POST', '/api/groups/grp-new3', ada, {
      group: { ...group, number: '302' },
      schedule: { timeZone: 'Mars/Base', week: {} },
    });
    expect((await expectError(zone)).status).toBe(400);
    expect(t.api.documents.has('schedule:grp-new3')).toBe(false);
    const id = await json('POST', '/api/groups/..%2Fusers', ada, { group, schedule });
    expect(id.status).toBe(400);
  });

  it('removal takes every permission away at once, their settings included', async () => {
    expect(Object.keys(heldBy(BOB)).length).toBeGreaterThan(0);
    t.api.setMapItem('presence', BOB, { status: 'available' }, 60);
    // A slow Twilio, so their browser's heartbeat can land after their item went, before their
    // permissions did.
    t.api.delay(30);
    expect((await json('DELETE', `/api/users/${BOB}`, ada)).status).toBe(204);
    await eventually(() => expect(t.api.maps.get('presence')?.has(BOB)).toBe(false));
    expect(Object.keys(heldBy(BOB)).length).toBeGreaterThan(0);
    t.api.setMapItem('presence', BOB, { status: 'available' }, 60);
    await eventually(() => expect(heldBy(BOB)).toEqual({}));
    t.api.delay(0);
    // Once they cannot write it, it goes again: no group rings them.
    await eventually(() => expect(t.api.maps.get('presence')?.has(BOB)).toBe(false));
    // Their session went with them: no new token either.
    expect((await token(bob)).status).toBe(401);
    // Ada keeps hers.
    expect(perms('map', 'audio')[ADA]).toEqual(RW);
  });
});

describe('when Twilio fails', () => {
  let t: TwilioTestApp;
  const token = (cookie: string) => fetch(`${t.url}/api/token`, { headers: { Cookie: cookie } });
  beforeAll(async () => {
    t = await startTwilioApp();
  });
  afterAll(() => t.close());

  it('no Sync token before the permissions are in place: 503, then the token once Twilio answers', async () => {
    const ada = await t.signIn(ADA, 'Ada');
    t.api.failWith(503);
    const refused = await token(ada);
    expect(await expectError(refused)).toMatchObject({ status: 503, code: 'upstream_error' });
    t.api.failWith(null);
    expect((await token(ada)).status).toBe(200);
    expect(t.api.permissionsOf('map', 'audio')[ADA]).toEqual(RW);
  });

  it('a removal that meets a failure is tried again until their access is gone', async () => {
    const ada = await t.signIn(ADA, 'Ada');
    const bob = await t.signIn(BOB, 'Bob');
    expect((await token(bob)).status).toBe(200);
    expect(t.api.permissionsOf('map', 'contacts')[BOB]).toEqual(RW);
    t.api.failWith(503);
    const res = await fetch(`${t.url}/api/users/${BOB}`, {
      method: 'DELETE',
      headers: { Cookie: ada },
    });
    expect(res.status).toBe(204);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.api.permissionsOf('map', 'contacts')[BOB]).toEqual(RW);
    t.api.failWith(null);
    await eventually(() => {
      expect(t.api.permissionsOf('map', 'contacts')[BOB]).toBeUndefined();
      expect(t.api.permissionsOf('document', 'settings:bob@example.com')).toEqual({});
    }, 5000);
  });
});

describe('on the embedded backend (the twins in this process)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('a new ring group is made with its objects by the server, as on Twilio', async () => {
    const signIn = await fetch(`${t.url}/api/session/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', email: ADA }),
    });
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const create = (number: string) =>
      fetch(`${t.url}/api/groups/grp-abc`, {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          group: { name: 'Desk', number, members: [], strategy: 'simultaneous', ringTimeout: 20 },
          schedule: { timeZone: 'UTC', week: {} },
        }),
      });
    expect((await create('300')).status).toBe(201);
    expect(await t.sync.document('schedule:grp-abc')).toEqual({ timeZone: 'UTC', week: {} });
    expect((await t.sync.getMapItem('groups', 'grp-abc'))?.data).toMatchObject({ name: 'Desk' });
    expect((await create('301')).status).toBe(409);
  });
});
