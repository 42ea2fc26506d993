/**
 * Team management API and the `users` Sync map mirror, in process on the twins: what the server
 * wrote is read back through Sync's REST API, as every subscriber would be sent it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { userRecord } from '../../../../src/contracts/records/user';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncRest } from '../../../../server/twilio/sync-rest';
import {
  expectError,
  postJson,
  removeDir,
  sessionCookieOf,
  startApp,
  tempDir,
  type TestApp,
} from '../support';

interface Started {
  t: TestApp;
  sync: SyncRest;
}

const running: TestApp[] = [];
const dirs: string[] = [];

async function start(dataDir = tempDir()): Promise<Started> {
  if (!dirs.includes(dataDir)) dirs.push(dataDir);
  const t = await startApp({}, { dataDir });
  running.push(t);
  return { t, sync: t.sync };
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
  dirs.splice(0).forEach(removeDir);
});

async function signIn(t: TestApp, name: string, email: string): Promise<string> {
  const res = await postJson(`${t.url}/api/session/local`, { name, email });
  expect(res.status).toBe(200);
  return sessionCookieOf(res)!;
}

function setRole(t: TestApp, cookie: string, identity: string, body: unknown): Promise<Response> {
  return fetch(`${t.url}/api/users/${encodeURIComponent(identity)}/role`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function removeUser(t: TestApp, cookie: string, identity: string): Promise<Response> {
  return fetch(`${t.url}/api/users/${encodeURIComponent(identity)}`, {
    method: 'DELETE',
    headers: { Cookie: cookie },
  });
}

/**
 * The `users` map once the server's writes have gone out, each entry checked against the record the
 * server writes.
 */
const directory = async ({ t, sync }: Started) => {
  await t.settled();
  const entries = Object.fromEntries(
    [...(await sync.mapItems('users'))].map(([key, { data }]) => [key, data]),
  );
  for (const [key, entry] of Object.entries(entries))
    if (key !== 'mallory@example.com')
      expect(userRecord.check(entry), key).toMatchObject({ ok: true, value: entry });
  return entries;
};
const roles = (t: TestApp) =>
  Object.fromEntries(t.rows('users').map((r) => [r.identity as string, r.role as string]));

/** An admin (first sign-in) and an agent. */
async function team(): Promise<Started & { admin: string; agent: string }> {
  const s = await start();
  const admin = await signIn(s.t, 'Ada', 'ada@example.com');
  const agent = await signIn(s.t, 'Bob', 'bob@example.com');
  return { ...s, admin, agent };
}

describe('the users map mirrors sign-ins', () => {
  it('holds every signed-in user with name, email, role and extension, and follows name changes', async () => {
    const { t, sync } = await team();
    expect(await directory({ t, sync })).toEqual({
      'ada@example.com': { name: 'Ada', email: 'ada@example.com', role: 'admin', extension: '100' },
      'bob@example.com': { name: 'Bob', email: 'bob@example.com', role: 'agent', extension: '101' },
    });
    await signIn(t, 'Robert', 'bob@example.com');
    expect((await directory({ t, sync }))['bob@example.com']).toEqual({
      name: 'Robert',
      email: 'bob@example.com',
      role: 'agent',
      extension: '101',
    });
  });

  it('is repaired at start: missing users added, strangers removed, presence map created', async () => {
    const first = await team();
    await first.t.settled();
    await first.sync.removeMapItem('users', 'bob@example.com');
    await first.sync.setMapItem('users', 'mallory@example.com', { role: 'admin' });
    await first.t.close();
    const again = await start(first.t.dataDir);
    expect(Object.keys(await directory(again)).sort()).toEqual([
      'ada@example.com',
      'bob@example.com',
    ]);
    expect((await again.sync.mapItems('presence')).size).toBe(0);
  });
});

describe('PUT /api/users/:identity/role', () => {
  it('lets an admin promote an agent; the users map follows', async () => {
    const { t, sync, admin } = await team();
    const res = await setRole(t, admin, 'bob@example.com', { role: 'admin' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      user: {
        identity: 'bob@example.com',
        name: 'Bob',
        email: 'bob@example.com',
        role: 'admin',
        picture: null,
        extension: '101',
      },
    });
    expect(roles(t)['bob@example.com']).toBe('admin');
    expect((await directory({ t, sync }))['bob@example.com']?.role).toBe('admin');
  });

  it('refuses agents (403) and signed-out visitors (401), changing nothing', async () => {
    const { t, sync, agent } = await team();
    const before = await directory({ t, sync });
    expect(
      await expectError(await setRole(t, agent, 'bob@example.com', { role: 'admin' })),
    ).toEqual({ status: 403, code: 'forbidden', message: 'Only admins may do this' });
    expect(
      (await expectError(await setRole(t, '', 'bob@example.com', { role: 'admin' }))).status,
    ).toBe(401);
    expect(roles(t)).toEqual({ 'ada@example.com': 'admin', 'bob@example.com': 'agent' });
    expect(await directory({ t, sync })).toEqual(before);
  });

  it.each([
    ['an unknown role', { role: 'owner' }, 'Field role must be "admin" or "agent"'],
    ['a missing role', {}, 'Missing field: role'],
    ['an extra field', { role: 'admin', why: 'x' }, 'Unknown field: "why"'],
    ['a non-string role', { role: 1 }, 'Field role must be a string'],
    ['an array body', ['admin'], 'Request body must be a JSON object'],
  ])('answers 400 for %s and changes nothing', async (_what, body, message) => {
    const { t, sync, admin } = await team();
    const err = await expectError(await setRole(t, admin, 'bob@example.com', body));
    expect(err).toEqual({ status: 400, code: 'bad_request', message });
    expect(roles(t)['bob@example.com']).toBe('agent');
    expect((await directory({ t, sync }))['bob@example.com']?.role).toBe('agent');
  });

  it('answers 400 for a body that is not JSON, 404 for an unknown user', async () => {
    const { t, admin } = await team();
    expect((await expectError(await setRole(t, admin, 'bob@example.com', '{role'))).code).toBe(
      'invalid_json',
    );
    const missing = await expectError(
      await setRole(t, admin, 'eve@example.com', { role: 'agent' }),
    );
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect(roles(t)).not.toHaveProperty('eve@example.com');
  });

  it('never demotes the last admin (409), but does once another admin exists', async () => {
    const { t, sync, admin } = await team();
    const refused = await expectError(
      await setRole(t, admin, 'ada@example.com', { role: 'agent' }),
    );
    expect(refused).toEqual({
      status: 409,
      code: 'last_admin',
      message: 'Ada is the only admin: make someone else an admin first',
    });
    expect(roles(t)['ada@example.com']).toBe('admin');

    expect((await setRole(t, admin, 'bob@example.com', { role: 'admin' })).status).toBe(200);
    expect((await setRole(t, admin, 'ada@example.com', { role: 'agent' })).status).toBe(200);
    expect(roles(t)).toEqual({ 'ada@example.com': 'agent', 'bob@example.com': 'admin' });
    expect((await directory({ t, sync }))['ada@example.com']?.role).toBe('agent');
    // Ada's very next request is an agent's.
    const after = await setRole(t, admin, 'bob@example.com', { role: 'agent' });
    expect((await expectError(after)).status).toBe(403);
  });

  it('setting the role a user already has answers 200 and changes nothing', async () => {
    const { t, admin } = await team();
    const res = await setRole(t, admin, 'bob@example.com', { role: 'agent' });
    expect(res.status).toBe(200);
    expect(roles(t)['bob@example.com']).toBe('agent');
  });
});

describe('DELETE /api/users/:identity', () => {
  it('removes the user, ends their sessions and drops them from users and presence', async () => {
    const { t, sync, admin, agent } = await team();
    await sync.setMapItem('presence', 'bob@example.com', {
      status: 'available',
      onCall: false,
    });
    const res = await removeUser(t, admin, 'bob@example.com');
    expect(res.status).toBe(204);
    expect(roles(t)).toEqual({ 'ada@example.com': 'admin' });
    expect(t.rows('sessions').map((r) => r.identity)).toEqual(['ada@example.com']);
    const session = await fetch(`${t.url}/api/session`, { headers: { Cookie: agent } });
    expect(session.status).toBe(401);
    expect(Object.keys(await directory({ t, sync }))).toEqual(['ada@example.com']);
    expect((await sync.mapItems('presence')).size).toBe(0);
  });

  it('refuses removing yourself (409), agents (403) and unknown users (404)', async () => {
    const { t, sync, admin, agent } = await team();
    expect(await expectError(await removeUser(t, admin, 'ada@example.com'))).toEqual({
      status: 409,
      code: 'cannot_remove_self',
      message: 'You cannot remove yourself; ask another admin to do it',
    });
    expect((await expectError(await removeUser(t, agent, 'ada@example.com'))).status).toBe(403);
    expect((await expectError(await removeUser(t, admin, 'eve@example.com'))).status).toBe(404);
    expect(roles(t)).toEqual({ 'ada@example.com': 'admin', 'bob@example.com': 'agent' });
    expect(Object.keys(await directory({ t, sync })).sort()).toEqual([
      'ada@example.com',
      'bob@example.com',
    ]);
  });

  it('answers 400 for a path that is not valid URL encoding', async () => {
    const { t, admin } = await team();
    const res = await fetch(`${t.url}/api/users/%E0%A4%A`, {
      method: 'DELETE',
      headers: { Cookie: admin },
    });
    expect((await expectError(res)).status).toBe(400);
    expect(Object.keys(roles(t))).toHaveLength(2);
  });
});

describe('PUT /api/me/name', () => {
  const rename = (t: TestApp, cookie: string, body: unknown) =>
    fetch(`${t.url}/api/me/name`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it("sets the caller's own display name; the users map follows", async () => {
    const { t, sync } = await start();
    const bob = await signIn(t, 'Bob', 'bob@example.com');
    const res = await rename(t, bob, { name: '  Bob Baker ' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { name: string } }).user.name).toBe('Bob Baker');
    expect((await directory({ t, sync }))['bob@example.com']).toMatchObject({ name: 'Bob Baker' });
  });

  it('refuses bad names and bodies with a readable error, and signed-out visitors, changing nothing', async () => {
    const { t, sync } = await start();
    const bob = await signIn(t, 'Bob', 'bob@example.com');
    const cases: [unknown, RegExp][] = [
      [{ name: '' }, /must not be empty/],
      [{ name: 'x'.repeat(81) }, /at most 80/],
      [{ name: 'Bob\u0007' }, /control characters/],
      [{ name: 42 }, /must be a string/],
      [{}, /name/],
      [{ name: 'Bob', role: 'admin' }, /role/],
      ['{not json', /JSON/i],
    ];
    for (const [body, message] of cases) {
      const error = await expectError(await rename(t, bob, body));
      expect(error.status, JSON.stringify(body)).toBe(400);
      expect(error.message).toMatch(message);
    }
    expect((await expectError(await rename(t, '', { name: 'Mallory' }))).status).toBe(401);
    expect((await directory({ t, sync }))['bob@example.com']).toMatchObject({ name: 'Bob' });
  });
});

describe('extensions', () => {
  const setExtension = (t: TestApp, cookie: string, identity: string, body: unknown) =>
    fetch(`${t.url}/api/users/${encodeURIComponent(identity)}/extension`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const extensions = (t: TestApp) =>
    Object.fromEntries(t.rows('users').map((r) => [r.identity as string, r.extension]));

  it('gives each new person the lowest free extension from 100, skipping group numbers', async () => {
    const { t, sync } = await team();
    await sync.setMapItem('groups', 'grp-sales', { name: 'Sales', number: '102' });
    await sync.setMapItem('groups', 'grp-desk', { name: 'Desk', number: '+442079460000' });
    await signIn(t, 'Cy', 'cy@example.com');
    expect(extensions(t)).toEqual({
      'ada@example.com': '100',
      'bob@example.com': '101',
      'cy@example.com': '103',
    });
    expect((await directory({ t, sync }))['cy@example.com']).toMatchObject({ extension: '103' });
  });

  it('lets an admin change an extension; the users map follows and the old one is free again', async () => {
    const { t, sync, admin } = await team();
    const res = await setExtension(t, admin, 'bob@example.com', { extension: ' 2-50 ' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { extension: string } }).user.extension).toBe('250');
    expect((await directory({ t, sync }))['bob@example.com']).toMatchObject({ extension: '250' });
    await signIn(t, 'Cy', 'cy@example.com');
    expect(extensions(t)['cy@example.com']).toBe('101');
    // The same extension again is not an error and changes nothing.
    expect((await setExtension(t, admin, 'bob@example.com', { extension: '250' })).status).toBe(
      200,
    );
  });

  it("refuses another person's extension or a group's number (409, naming who has it)", async () => {
    const { t, sync, admin } = await team();
    await sync.setMapItem('groups', 'grp-sales', { name: 'Sales', number: '300' });
    expect(
      await expectError(await setExtension(t, admin, 'bob@example.com', { extension: '100' })),
    ).toEqual({
      status: 409,
      code: 'extension_taken',
      message: '100 is already the extension of Ada',
    });
    expect(
      await expectError(await setExtension(t, admin, 'bob@example.com', { extension: '300' })),
    ).toEqual({
      status: 409,
      code: 'extension_taken',
      message: '300 is already the number of the ring group Sales',
    });
    expect(extensions(t)).toEqual({ 'ada@example.com': '100', 'bob@example.com': '101' });
  });

  it('refuses malformed extensions (400), agents (403), visitors (401) and unknown people (404)', async () => {
    const { t, sync, admin, agent } = await team();
    const cases: [unknown, RegExp][] = [
      [{ extension: '' }, /2 to 6 digits/],
      [{ extension: '7' }, /2 to 6 digits/],
      [{ extension: '1234567' }, /2 to 6 digits/],
      [{ extension: '12a' }, /2 to 6 digits/],
      [{ extension: '+4420' }, /2 to 6 digits/],
      [{ extension: 250 }, /must be a string/],
      [{}, /extension/],
      [{ extension: '250', role: 'admin' }, /role/],
      ['{not json', /JSON/i],
    ];
    for (const [body, message] of cases) {
      const error = await expectError(await setExtension(t, admin, 'bob@example.com', body));
      expect(error.status, JSON.stringify(body)).toBe(400);
      expect(error.message).toMatch(message);
    }
    expect(
      (await expectError(await setExtension(t, agent, 'bob@example.com', { extension: '250' })))
        .status,
    ).toBe(403);
    expect(
      (await expectError(await setExtension(t, '', 'bob@example.com', { extension: '250' })))
        .status,
    ).toBe(401);
    expect(
      (await expectError(await setExtension(t, admin, 'eve@example.com', { extension: '250' })))
        .status,
    ).toBe(404);
    expect(extensions(t)).toEqual({ 'ada@example.com': '100', 'bob@example.com': '101' });
    expect((await directory({ t, sync }))['bob@example.com']).toMatchObject({ extension: '101' });
  });

  it('gives people from before extensions one at startup, in the order they joined', async () => {
    const first = await team();
    await first.sync.setMapItem('groups', 'grp-sales', { name: 'Sales', number: '100' });
    await first.t.close();
    const db = new Database(join(first.t.dataDir, 'app.db'));
    db.prepare('UPDATE users SET extension = NULL').run();
    db.close();
    const again = await start(first.t.dataDir);
    expect(extensions(again.t)).toEqual({ 'ada@example.com': '101', 'bob@example.com': '102' });
    expect((await directory(again))['ada@example.com']).toMatchObject({ extension: '101' });
  });
});
