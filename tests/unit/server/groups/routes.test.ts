/**
 * Ring groups as admins change them through the server (POST, PUT and DELETE /api/groups/:id), in
 * process on the twins: the group checked against its record and the rule that one number reaches
 * one thing, made with its objects, saved only over what the edit started from, deleted with its
 * objects; every refusal changes nothing.
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
const group = (over: object = {}) => ({
  name: 'Sales',
  number: '300',
  members: ['tom@x.io'],
  strategy: 'simultaneous',
  ringTimeout: 20,
  ...over,
});
const hours = { timeZone: 'Europe/London', week: { mon: [{ start: '09:00', end: '17:00' }] } };
const stored = async (id: string) => (await t.sync.getMapItem('groups', id))?.data ?? null;
const objectsOf = async (id: string) => ({
  schedule: await t.sync.document(`schedule:${id}`),
  calendar: await t.sync.document(`calendar:${id}`),
});

describe('POST /api/groups/:id', () => {
  it('makes the group with its hours, calendar and forwarding list', async () => {
    const res = await call('POST', '/api/groups/grp-sales', admin, {
      group: group(),
      schedule: hours,
    });
    expect(res.status).toBe(201);
    expect(await stored('grp-sales')).toEqual(group());
    expect(await objectsOf('grp-sales')).toEqual({ schedule: hours, calendar: { holidays: [] } });
  });

  it('refuses a number another group has or that is someone’s extension (409), making nothing', async () => {
    const taken = await call('POST', '/api/groups/grp-two', admin, {
      group: group({ name: 'Two', number: '300' }),
      schedule: hours,
    });
    expect(await expectError(taken)).toEqual({
      status: 409,
      code: 'number_taken',
      message: '300 is already the number of Sales.',
    });
    const extension = await call('POST', '/api/groups/grp-two', admin, {
      group: group({ name: 'Two', number: '100' }),
      schedule: hours,
    });
    expect(await expectError(extension)).toMatchObject({
      status: 409,
      message: '100 is already the extension of Ada.',
    });
    expect(await stored('grp-two')).toBeNull();
    expect(await objectsOf('grp-two')).toEqual({ schedule: null, calendar: null });
  });

  it('refuses a group that breaks its record (400 naming the field), an agent (403) and a bad id', async () => {
    const bad = await call('POST', '/api/groups/grp-bad', admin, {
      group: group({ number: '3', name: 'Bad' }),
      schedule: hours,
    });
    expect(await expectError(bad)).toMatchObject({
      status: 400,
      message:
        'Invalid group number: Use an extension of 2 to 6 digits, or a number like +442079460000.',
    });
    const byAgent = await call('POST', '/api/groups/grp-bad', agent, {
      group: group({ number: '399' }),
      schedule: hours,
    });
    expect(byAgent.status).toBe(403);
    const id = await call('POST', '/api/groups/..%2Fusers', admin, {
      group: group(),
      schedule: hours,
    });
    expect(id.status).toBe(400);
    expect(await stored('grp-bad')).toBeNull();
    expect(await objectsOf('grp-bad')).toEqual({ schedule: null, calendar: null });
  });
});

describe('PUT /api/groups/:id', () => {
  it('saves over what the edit started from, and otherwise answers with what is stored', async () => {
    const base = group();
    const saved = await call('PUT', '/api/groups/grp-sales', admin, {
      base,
      group: group({ name: 'Sales team' }),
    });
    expect(await saved.json()).toEqual({ ok: true });
    expect(await stored('grp-sales')).toEqual(group({ name: 'Sales team' }));
    // Another admin's edit started from the old version.
    const late = await call('PUT', '/api/groups/grp-sales', admin, {
      base,
      group: group({ name: 'Lobby' }),
    });
    expect(await late.json()).toEqual({ ok: false, current: group({ name: 'Sales team' }) });
    expect(await stored('grp-sales')).toEqual(group({ name: 'Sales team' }));
    const gone = await call('PUT', '/api/groups/grp-none', admin, {
      base,
      group: group({ number: '399' }),
    });
    expect(await gone.json()).toEqual({ ok: false, current: null });
  });

  it('refuses a number that clashes, leaving the group as it was', async () => {
    await call('POST', '/api/groups/grp-desk', admin, {
      group: group({ name: 'Desk', number: '301' }),
      schedule: hours,
    });
    const res = await call('PUT', '/api/groups/grp-desk', admin, {
      base: group({ name: 'Desk', number: '301' }),
      group: group({ name: 'Desk', number: '300' }),
    });
    expect(await expectError(res)).toMatchObject({ status: 409, code: 'number_taken' });
    expect(await stored('grp-desk')).toMatchObject({ number: '301' });
    // Keeping its own number is no clash.
    const own = await call('PUT', '/api/groups/grp-desk', admin, {
      base: group({ name: 'Desk', number: '301' }),
      group: group({ name: 'Front desk', number: '301' }),
    });
    expect(await own.json()).toEqual({ ok: true });
  });
});

describe('DELETE /api/groups/:id', () => {
  it('removes the group, then its objects; refuses agents', async () => {
    expect((await call('DELETE', '/api/groups/grp-desk', agent)).status).toBe(403);
    expect(await stored('grp-desk')).not.toBeNull();
    expect((await call('DELETE', '/api/groups/grp-desk', admin)).status).toBe(204);
    expect(await stored('grp-desk')).toBeNull();
    expect(await objectsOf('grp-desk')).toEqual({ schedule: null, calendar: null });
    expect(await t.sync.listItems('forwarding:grp-desk')).toEqual([]);
  });
});
