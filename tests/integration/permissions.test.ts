/**
 * Who may do what, against the real server process on both backends (`embedded` and
 * `twilio-twins`: each runs the Sync twin with the service's ACL on, the app granting each person
 * the per-object permissions of server/identity/policy.ts). For every object the app uses, every
 * operation and three people (an admin, an agent, another agent) the Sync service allows or refuses
 * with Twilio's 403 / 54007, as the table below says; the run prints the matrix. Then the rules the
 * app keeps itself: ring groups and announcements change through its API (admins only), a person's
 * presence item is written by the server for them alone, and nobody removes a shared object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { startServer, type RunningServer } from '../support/server';
import {
  clientWithToken,
  FORBIDDEN,
  httpCode,
  RawTwilsock,
  refusal,
  shutdownClients,
  signIn,
  token,
} from './sync/support';

type Kind = 'Maps' | 'Lists' | 'Documents';
type Op = 'read' | 'create' | 'update' | 'ttl' | 'remove';
type Who = 'admin' | 'agent' | 'other';
type Cells = Record<Op, Record<Who, boolean>>;
const OPS: Op[] = ['read', 'create', 'update', 'ttl', 'remove'];
const WHO: Who[] = ['admin', 'agent', 'other'];
const EMAIL: Record<Who, string> = {
  admin: 'ada@example.com',
  agent: 'bob@example.com',
  other: 'cy@example.com',
};
const LABEL: Record<Who, string> = { admin: 'adm', agent: 'agt', other: 'oth' };
const BACKENDS = ['embedded', 'twilio-twins'] as const;

const everyone = (): Record<Who, boolean> => ({ admin: true, agent: true, other: true });
const nobody = (): Record<Who, boolean> => ({ admin: false, agent: false, other: false });
const admins = (): Record<Who, boolean> => ({ admin: true, agent: false, other: false });
const agentOnly = (): Record<Who, boolean> => ({ admin: false, agent: true, other: false });

/**
 * The table (src/contracts/objects.ts, `writers`): everyone on the team reads every shared object;
 * nobody but the server makes or removes one (under ACL a client cannot create objects at all, and
 * nobody holds `manage`). A `ttl` on the object itself removes it when it lapses: it needs `manage`
 * too, so nobody sets one.
 */
const serverOnly: Cells = {
  read: everyone(),
  create: nobody(),
  update: nobody(),
  ttl: nobody(),
  remove: nobody(),
};
const team: Cells = {
  read: everyone(),
  create: nobody(),
  update: everyone(),
  ttl: nobody(),
  remove: nobody(),
};
const adminsWrite: Cells = {
  read: everyone(),
  create: nobody(),
  update: admins(),
  ttl: nobody(),
  remove: nobody(),
};
const ownerOnly: Cells = {
  read: agentOnly(),
  create: nobody(),
  update: agentOnly(),
  ttl: nobody(),
  remove: nobody(),
};

/** The ring group whose own objects the matrix tries (made by the admin through /api/groups). */
const GROUP_ID = 'g1';
const SETTINGS = `settings:${EMAIL.agent}`;
const OBJECTS: Array<{ kind: Kind; name: string; expect: Cells }> = [
  { kind: 'Maps', name: 'users', expect: serverOnly },
  { kind: 'Lists', name: 'calls', expect: serverOnly },
  { kind: 'Maps', name: 'holds', expect: serverOnly },
  { kind: 'Maps', name: 'presence', expect: serverOnly },
  { kind: 'Maps', name: 'groups', expect: serverOnly },
  { kind: 'Maps', name: 'guidance', expect: serverOnly },
  { kind: 'Maps', name: 'contacts', expect: team },
  { kind: 'Maps', name: 'audio', expect: adminsWrite },
  { kind: 'Documents', name: 'team-settings', expect: adminsWrite },
  { kind: 'Documents', name: `schedule:${GROUP_ID}`, expect: adminsWrite },
  { kind: 'Documents', name: `calendar:${GROUP_ID}`, expect: adminsWrite },
  { kind: 'Lists', name: `forwarding:${GROUP_ID}`, expect: adminsWrite },
  { kind: 'Documents', name: SETTINGS, expect: ownerOnly },
];

/**
 * What each object's record accepts (src/contracts/records), so a write is allowed or refused for
 * who writes it alone (and an allowed one is not then put right by the server).
 */
const VALID: Record<string, Record<string, unknown>> = {
  users: { name: 'Cy', email: 'cy@example.com', role: 'agent' },
  calls: {
    direction: 'inbound',
    from: '+1',
    to: '+2',
    startedAt: 1,
    endedAt: 2,
    duration: 0,
    outcome: 'missed',
  },
  holds: { caller: 'Ann', parkedAt: 1 },
  presence: { status: 'available' },
  groups: { name: 'G', number: '300', members: [], strategy: 'simultaneous', ringTimeout: 20 },
  guidance: { name: 'Hello', kind: 'tts', text: 'Hello', language: 'en-us' },
  contacts: { name: 'Ann', phones: [{ label: 'Work', number: '+442079460958' }] },
  audio: { name: 'a.wav', kind: 'wav', contentType: 'audio/wav', size: 1, duration: 1 },
  'team-settings': { defaultCountry: 'GB' },
  [`schedule:${GROUP_ID}`]: { timeZone: 'UTC', week: {} },
  [`calendar:${GROUP_ID}`]: { holidays: [] },
  [`forwarding:${GROUP_ID}`]: { when: 'always', target: { kind: 'voicemail' } },
  [SETTINGS]: { doNotDisturb: false },
};

const GROUP = {
  name: 'Sales',
  number: '300',
  members: [],
  strategy: 'simultaneous',
  ringTimeout: 20,
};
const HOURS = { timeZone: 'Europe/London', week: { mon: [{ start: '09:00', end: '17:00' }] } };
const ANNOUNCEMENT = { name: 'Welcome', kind: 'tts', text: 'Hello', language: 'en-us' };

const path = (kind: Kind, name: string): string => `/v3/${kind}/${encodeURIComponent(name)}`;

describe.each(BACKENDS)('on the %s backend', (backend) => {
  let server: RunningServer;
  const raw = {} as Record<Who, RawTwilsock>;
  const cookie = {} as Record<Who, string>;
  const sdks = {} as Record<Who, SyncClient>;

  const api = (who: Who, method: string, url: string, body?: unknown): Promise<Response> =>
    fetch(`${server.url}${url}`, {
      method,
      headers: {
        Cookie: cookie[who],
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  /** A map item as the service holds it, read by the admin (null when there is none). */
  const item = async (map: string, key: string): Promise<unknown> => {
    const reply = await raw.admin.request(
      'GET',
      `${path('Maps', map)}/Items/${encodeURIComponent(key)}`,
    );
    return httpCode(reply) === 200 ? (reply.body as { data: unknown }).data : null;
  };

  beforeAll(async () => {
    server = await startServer({
      env: { SWITCHBOARD_BACKEND: backend, SWITCHBOARD_SYNC_TEST_HOOKS: '1' },
    });
    expect(server.backend).toBe(backend);
    // The first to sign in is the team's admin.
    for (const who of WHO) {
      cookie[who] = await signIn(server.url, EMAIL[who]);
      raw[who] = await RawTwilsock.open(server.url);
      const t = await token(server.url, cookie[who]);
      expect((await raw[who].init(t.token)).header.status).toMatchObject({ code: 200 });
      sdks[who] = clientWithToken((await token(server.url, cookie[who])).token, t.sync);
    }
    // A ring group, made (with its schedule, calendar and forwarding list) as the app makes them.
    expect(
      (await api('admin', 'POST', `/api/groups/${GROUP_ID}`, { group: GROUP, schedule: HOURS }))
        .status,
    ).toBe(201);
  }, 60_000);
  afterAll(async () => {
    for (const who of WHO) raw[who]?.close();
    await shutdownClients();
    await server?.stop();
    server?.cleanup();
  });

  /** (Re)creates the object as the server, so each cell starts from an existing object. */
  async function ensure(kind: Kind, name: string): Promise<void> {
    await raw.admin.request('POST', '/test/as-server', {
      method: 'POST',
      path: `/v3/${kind}`,
      body: { unique_name: name },
    });
  }

  async function attempt(
    who: Who,
    kind: Kind,
    name: string,
    op: Op,
  ): Promise<{ status: number; body: unknown }> {
    const data = VALID[name]!;
    const write =
      kind === 'Maps'
        ? { method: 'POST', path: `${path(kind, name)}/Items`, body: { key: EMAIL[who], data } }
        : kind === 'Lists'
          ? { method: 'POST', path: `${path(kind, name)}/Items`, body: { data } }
          : { method: 'POST', path: path(kind, name), body: { data } };
    const call =
      op === 'read'
        ? { method: 'GET', path: path(kind, name), body: undefined }
        : op === 'create'
          ? { method: 'POST', path: `/v3/${kind}`, body: { unique_name: name } }
          : op === 'update'
            ? write
            : op === 'ttl'
              ? { method: 'POST', path: path(kind, name), body: { ttl: 3600 } }
              : { method: 'DELETE', path: path(kind, name), body: undefined };
    const reply = await raw[who].request(call.method, call.path, call.body);
    return { status: httpCode(reply), body: reply.body };
  }

  it('the Sync service allows and refuses exactly as the table says, with 403 / 54007 for every refusal', async () => {
    const lines: string[] = [`${'object'.padEnd(34)}${OPS.map((o) => o.padEnd(20)).join('')}`];
    const wrong: string[] = [];
    for (const obj of OBJECTS) {
      const cells: string[] = [];
      for (const op of OPS) {
        const marks: string[] = [];
        for (const who of WHO) {
          await ensure(obj.kind, obj.name);
          const { status, body } = await attempt(who, obj.kind, obj.name, op);
          const refused = status === 403;
          const allowed = obj.expect[op][who];
          marks.push(`${LABEL[who]}${refused ? '✗' : status < 400 ? '✓' : '?'}`);
          const cell = `${obj.name} ${op} by ${who}: ${status} ${JSON.stringify(body)}`;
          if (allowed && status >= 400) wrong.push(`refused, should be allowed: ${cell}`);
          if (!allowed && !refused) wrong.push(`not refused with 403: ${cell}`);
          if (
            refused &&
            !(
              typeof body === 'object' &&
              body !== null &&
              (body as { code?: unknown }).code === 54007 &&
              (body as { status?: unknown }).status === 403 &&
              /^Access forbidden for identity/.test(String((body as { message?: unknown }).message))
            )
          )
            wrong.push(`refused without Twilio's 403 / 54007: ${cell}`);
        }
        cells.push(marks.join(' ').padEnd(20));
      }
      lines.push(
        `${`${obj.kind.slice(0, -1).toLowerCase()} ${obj.name}`.padEnd(34)}${cells.join('')}`,
      );
    }
    console.log(
      `[permissions: ${backend}] adm = admin, agt = agent, oth = another agent; ✓ allowed, ✗ refused (403 / 54007), ? another error\n${lines.join('\n')}`,
    );
    expect(wrong).toEqual([]);
  });

  it("refuses a subscription to someone else's settings, and allows the owner's", async () => {
    const doc = await raw.agent.request('GET', path('Documents', SETTINGS));
    const sid = (doc.body as { sid: string }).sid;
    const subscribe = (who: Who, correlation: number) =>
      raw[who].request('POST', '/v4/Subscriptions', {
        action: 'establish',
        correlation_id: correlation,
        requests: [{ object_sid: sid, object_type: 'document', last_event_id: null }],
      });
    await subscribe('other', 9001);
    await subscribe('admin', 9002);
    await subscribe('agent', 9003);
    const outcome = async (who: Who, correlation: number) => {
      for (let i = 0; i < 100; i++) {
        const f = raw[who].frames.find(
          (x) =>
            (x.body as { correlation_id?: number } | undefined)?.correlation_id === correlation,
        );
        if (f) return f.body as { event_type: string; events: Array<{ error?: { code: number } }> };
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('no subscription outcome');
    };
    for (const [who, correlation] of [
      ['other', 9001],
      ['admin', 9002],
    ] as const) {
      const refused = await outcome(who, correlation);
      expect(refused.event_type, who).toBe('subscription_failed');
      expect(refused.events[0]?.error, who).toMatchObject(FORBIDDEN);
    }
    expect((await outcome('agent', 9003)).event_type).toBe('subscription_established');
  });

  it('an agent cannot make, change or delete a ring group or an announcement through the API (403); an admin can', async () => {
    const before = await item('groups', GROUP_ID);
    expect(before).toEqual(GROUP);
    const other = { ...GROUP, name: 'Mine', number: '301' };
    expect(
      (await api('agent', 'POST', '/api/groups/g2', { group: other, schedule: HOURS })).status,
    ).toBe(403);
    expect(
      (await api('agent', 'PUT', `/api/groups/${GROUP_ID}`, { base: GROUP, group: other })).status,
    ).toBe(403);
    expect((await api('agent', 'DELETE', `/api/groups/${GROUP_ID}`)).status).toBe(403);
    expect(await item('groups', GROUP_ID)).toEqual(GROUP);
    expect(await item('groups', 'g2')).toBeNull();

    expect(
      (await api('agent', 'POST', '/api/announcements/a1', { announcement: ANNOUNCEMENT })).status,
    ).toBe(403);
    expect(await item('guidance', 'a1')).toBeNull();
    expect(
      (await api('admin', 'POST', '/api/announcements/a1', { announcement: ANNOUNCEMENT })).status,
    ).toBe(201);
    const renamed = { ...ANNOUNCEMENT, name: 'Renamed' };
    expect(
      (
        await api('agent', 'PUT', '/api/announcements/a1', {
          base: ANNOUNCEMENT,
          announcement: renamed,
        })
      ).status,
    ).toBe(403);
    expect((await api('agent', 'DELETE', '/api/announcements/a1')).status).toBe(403);
    expect(await item('guidance', 'a1')).toEqual(ANNOUNCEMENT);
    // The admin's own change goes through.
    const saved = await api('admin', 'PUT', '/api/announcements/a1', {
      base: ANNOUNCEMENT,
      announcement: renamed,
    });
    expect(await saved.json()).toEqual({ ok: true });
    expect(await item('guidance', 'a1')).toEqual(renamed);
  });

  it("an agent cannot write a group's hours, holidays or forwarding, the audio list or the team's settings at Sync (403 / 54007); an admin can", async () => {
    const bob = sdks.agent;
    const ada = sdks.admin;
    const hours = await bob.document({ id: `schedule:${GROUP_ID}`, mode: 'open_existing' });
    const hoursBefore = hours.data;
    expect(await refusal(hours.set({ timeZone: 'Asia/Tokyo', week: {} }))).toEqual(FORBIDDEN);
    const holidays = await bob.document({ id: `calendar:${GROUP_ID}`, mode: 'open_existing' });
    expect(
      await refusal(
        holidays.set({
          holidays: [{ id: 'h1', label: 'Off', start: '2026-12-24', end: '2026-12-26' }],
        }),
      ),
    ).toEqual(FORBIDDEN);
    const rules = await bob.list({ id: `forwarding:${GROUP_ID}`, mode: 'open_existing' });
    const rulesBefore = (await rules.getItems({})).items.length;
    expect(
      await refusal(
        rules.push({ when: 'always', target: { kind: 'number', number: '+15550100' } }),
      ),
    ).toEqual(FORBIDDEN);
    const audio = await bob.map({ id: 'audio', mode: 'open_existing' });
    expect(await refusal(audio.set('aud-000000000000', VALID.audio!))).toEqual(FORBIDDEN);
    const teamSettings = await bob.document({ id: 'team-settings', mode: 'open_existing' });
    expect(await refusal(teamSettings.set({ defaultCountry: 'US' }))).toEqual(FORBIDDEN);

    // Nothing changed, as the admin reads it; and the admin's own writes go through.
    const adminHours = await ada.document({ id: `schedule:${GROUP_ID}`, mode: 'open_existing' });
    expect(adminHours.data).toEqual(hoursBefore);
    const adminRules = await ada.list({ id: `forwarding:${GROUP_ID}`, mode: 'open_existing' });
    expect((await adminRules.getItems({})).items).toHaveLength(rulesBefore);
    expect(
      (
        await (
          await ada.map({ id: 'audio', mode: 'open_existing' })
        ).getItems({ key: 'aud-000000000000' })
      ).items,
    ).toEqual([]);
    await adminHours.set({ ...HOURS, timeZone: 'Europe/Paris' });
    expect(adminHours.data).toEqual({ ...HOURS, timeZone: 'Europe/Paris' });
    await adminRules.push({ when: 'busy', target: { kind: 'voicemail' } });
    expect((await adminRules.getItems({})).items).toHaveLength(rulesBefore + 1);
    await (
      await ada.document({ id: 'team-settings', mode: 'open_existing' })
    ).set({
      defaultCountry: 'IE',
    });
  });

  it("nobody writes another person's settings or anyone's presence at Sync; /api/presence writes the caller's own item only", async () => {
    // Someone else's settings cannot even be opened, by an admin neither.
    for (const who of ['admin', 'other'] as const)
      expect(
        await refusal(sdks[who].document({ id: SETTINGS, mode: 'open_existing' })),
        who,
      ).toEqual(FORBIDDEN);
    const mine = await sdks.agent.document({ id: SETTINGS, mode: 'open_existing' });
    await mine.set({ doNotDisturb: true });

    // The presence map is the server's to write: not one's own item, not a colleague's.
    for (const who of WHO) {
      const presence = await sdks[who].map({ id: 'presence', mode: 'open_existing' });
      expect(await refusal(presence.set(EMAIL[who], { status: 'away' })), who).toEqual(FORBIDDEN);
      const colleague = who === 'admin' ? EMAIL.agent : EMAIL.admin;
      expect(await refusal(presence.set(colleague, { status: 'away' })), who).toEqual(FORBIDDEN);
    }
    expect(await item('presence', EMAIL.admin)).toBeNull();

    // Through the app: each writes their own item, and nothing else.
    expect((await api('admin', 'PUT', '/api/presence', { status: 'available' })).status).toBe(204);
    const sneaky = await api('agent', 'PUT', '/api/presence', {
      status: 'away',
      identity: EMAIL.admin,
      key: EMAIL.admin,
      onCall: true,
    });
    // A body naming anyone, or saying "on a call", is refused whole: nothing is written.
    expect(sneaky.status).toBe(400);
    expect(await item('presence', EMAIL.agent)).toBeNull();
    expect((await api('agent', 'PUT', '/api/presence', { status: 'away' })).status).toBe(204);
    expect(await item('presence', EMAIL.admin)).toEqual({ status: 'available', onCall: false });
    expect(await item('presence', EMAIL.agent)).toEqual({ status: 'away', onCall: false });
    expect((await api('agent', 'DELETE', '/api/presence')).status).toBe(204);
    expect(await item('presence', EMAIL.agent)).toBeNull();
    expect(await item('presence', EMAIL.admin)).toEqual({ status: 'available', onCall: false });
  });

  it('nobody, an admin neither, removes a shared map, list or document', async () => {
    const ada = sdks.admin;
    for (const name of ['contacts', 'users', 'presence', 'groups', 'guidance', 'audio'])
      expect(
        await refusal((await ada.map({ id: name, mode: 'open_existing' })).removeMap()),
        name,
      ).toEqual(FORBIDDEN);
    for (const name of ['calls', `forwarding:${GROUP_ID}`])
      expect(
        await refusal((await ada.list({ id: name, mode: 'open_existing' })).removeList()),
        name,
      ).toEqual(FORBIDDEN);
    for (const name of ['team-settings', `schedule:${GROUP_ID}`, `calendar:${GROUP_ID}`])
      expect(
        await refusal((await ada.document({ id: name, mode: 'open_existing' })).removeDocument()),
        name,
      ).toEqual(FORBIDDEN);
    // One's own settings neither: the server makes them and keeps them.
    const own = await sdks.agent.document({ id: SETTINGS, mode: 'open_existing' });
    expect(await refusal(own.removeDocument())).toEqual(FORBIDDEN);
    // Every object is still there.
    for (const [kind, name] of [
      ['Maps', 'contacts'],
      ['Lists', 'calls'],
      ['Documents', `schedule:${GROUP_ID}`],
      ['Documents', SETTINGS],
    ] as const)
      expect(httpCode(await raw.agent.request('GET', path(kind, name))), name).toBe(200);
  });
});
