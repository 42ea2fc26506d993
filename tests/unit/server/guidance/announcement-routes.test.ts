/**
 * Announcements as admins change them through the server (POST, PUT and DELETE
 * /api/announcements/:id), in process on the twins: checked against their record, saved only over
 * what the edit started from, and one a ring group plays never removed (409 naming the groups).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, requestAs, signInAs, startApp, stopApp, type TestApp } from '../support';

let t: TestApp;
let admin: string;
let agent: string;

beforeAll(async () => {
  t = await startApp();
  admin = await signInAs(t, 'Ada', 'ada@x.io');
  agent = await signInAs(t, 'Tom', 'tom@x.io');
});
afterAll(() => stopApp(t));

const call = (method: string, path: string, cookie: string, body?: unknown) =>
  requestAs(t, method, path, cookie, body);
const closed = { name: 'Closed', kind: 'tts', text: 'We are closed.', language: 'en-gb' };
const stored = async (id: string) => (await t.sync.getMapItem('guidance', id))?.data ?? null;

describe('/api/announcements/:id', () => {
  it('creates one, and saves an edit over what it started from', async () => {
    expect(
      (await call('POST', '/api/announcements/gdn-1', admin, { announcement: closed })).status,
    ).toBe(201);
    expect(await stored('gdn-1')).toEqual(closed);
    const again = await call('POST', '/api/announcements/gdn-1', admin, { announcement: closed });
    expect(await expectError(again)).toMatchObject({ status: 409, code: 'announcement_exists' });
    const edit = { ...closed, text: 'We are closed today.' };
    const saved = await call('PUT', '/api/announcements/gdn-1', admin, {
      base: closed,
      announcement: edit,
    });
    expect(await saved.json()).toEqual({ ok: true });
    const late = await call('PUT', '/api/announcements/gdn-1', admin, {
      base: closed,
      announcement: closed,
    });
    expect(await late.json()).toEqual({ ok: false, current: edit });
  });

  it('refuses one that breaks its record (400 naming the field) and an agent (403)', async () => {
    const bad = await call('POST', '/api/announcements/gdn-2', admin, {
      announcement: { ...closed, text: 'a\u202eb' },
    });
    expect(await expectError(bad)).toMatchObject({
      status: 400,
      message: 'Invalid announcement text: Remove the control characters from the text.',
    });
    const byAgent = await call('POST', '/api/announcements/gdn-2', agent, { announcement: closed });
    expect(byAgent.status).toBe(403);
    expect(await stored('gdn-2')).toBeNull();
  });

  it('refuses to delete one a ring group plays, naming the groups; deletes it once none does', async () => {
    await t.sync.setMapItem('groups', 'grp-1', {
      name: 'Sales',
      number: '300',
      members: [],
      strategy: 'simultaneous',
      ringTimeout: 20,
      guidance: { closed: 'gdn-1', holiday: 'gdn-1' },
    });
    const refused = await call('DELETE', '/api/announcements/gdn-1', admin);
    expect(await expectError(refused)).toEqual({
      status: 409,
      code: 'announcement_in_use',
      message:
        'Closed is played by the ring group Sales (when closed, on a holiday). Choose another announcement there first.',
    });
    expect(await stored('gdn-1')).not.toBeNull();
    expect((await call('DELETE', '/api/announcements/gdn-1', agent)).status).toBe(403);
    await t.sync.setMapItem('groups', 'grp-1', {
      name: 'Sales',
      number: '300',
      members: [],
      strategy: 'simultaneous',
      ringTimeout: 20,
    });
    expect((await call('DELETE', '/api/announcements/gdn-1', admin)).status).toBe(204);
    expect(await stored('gdn-1')).toBeNull();
  });
});
