/**
 * The permission matrix, against the real service: for every object the product uses and every
 * operation, an admin's token, an agent's token and another agent's token, each expected to succeed or
 * to be refused with Twilio's 403 / 54007. The run prints the matrix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server';
import { RawTwilsock, shutdownClients, signIn, token } from './sync/support';

type Kind = 'Maps' | 'Lists' | 'Documents';
type Op = 'read' | 'create' | 'update' | 'ttl' | 'remove';
type Who = 'admin' | 'agent' | 'other';
const OPS: Op[] = ['read', 'create', 'update', 'ttl', 'remove'];
const WHO: Who[] = ['admin', 'agent', 'other'];
const EMAIL: Record<Who, string> = {
  admin: 'ada@example.com',
  agent: 'bob@example.com',
  other: 'cy@example.com',
};

const LABEL: Record<Who, string> = { admin: 'adm', agent: 'agt', other: 'oth' };
const everyone = (): Record<Who, boolean> => ({ admin: true, agent: true, other: true });
const nobody = (): Record<Who, boolean> => ({ admin: false, agent: false, other: false });
const admins = (): Record<Who, boolean> => ({ admin: true, agent: false, other: false });
const agentOnly = (): Record<Who, boolean> => ({ admin: false, agent: true, other: false });

const serverOnly = {
  read: everyone(),
  create: nobody(),
  update: nobody(),
  ttl: nobody(),
  remove: nobody(),
};
const open = {
  read: everyone(),
  create: everyone(),
  update: everyone(),
  ttl: everyone(),
  remove: everyone(),
};
const adminOnly = {
  read: everyone(),
  create: admins(),
  update: admins(),
  ttl: admins(),
  remove: admins(),
};
const OBJECTS: Array<{ kind: Kind; name: string; expect: Record<Op, Record<Who, boolean>> }> = [
  { kind: 'Maps', name: 'users', expect: serverOnly },
  { kind: 'Lists', name: 'calls', expect: serverOnly },
  {
    kind: 'Maps',
    name: 'presence',
    // Each writes only their own item; the map itself cannot be changed.
    expect: {
      read: everyone(),
      create: everyone(),
      update: everyone(),
      ttl: nobody(),
      remove: nobody(),
    },
  },
  { kind: 'Maps', name: 'contacts', expect: open },
  { kind: 'Maps', name: 'holds', expect: serverOnly },
  { kind: 'Maps', name: 'groups', expect: adminOnly },
  { kind: 'Maps', name: 'guidance', expect: adminOnly },
  { kind: 'Maps', name: 'audio', expect: adminOnly },
  { kind: 'Documents', name: 'schedule:g1', expect: adminOnly },
  { kind: 'Documents', name: 'calendar:g1', expect: adminOnly },
  { kind: 'Lists', name: 'forwarding:g1', expect: adminOnly },
  {
    kind: 'Documents',
    name: `settings:${EMAIL.agent}`,
    expect: {
      read: agentOnly(),
      create: agentOnly(),
      update: agentOnly(),
      ttl: agentOnly(),
      remove: agentOnly(),
    },
  },
];

let server: RunningServer;
const raw = {} as Record<Who, RawTwilsock>;

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_SYNC_TEST_HOOKS: '1' } });
  for (const who of WHO) {
    const cookie = await signIn(server.url, EMAIL[who]);
    raw[who] = await RawTwilsock.open(server.url);
    await raw[who].init((await token(server.url, cookie)).token);
  }
}, 60_000);
afterAll(async () => {
  for (const who of WHO) raw[who]?.close();
  await shutdownClients();
  await server.stop();
  server.cleanup();
});

const path = (kind: Kind, name: string): string => `/v3/${kind}/${encodeURIComponent(name)}`;

/**
 * What each object's record accepts (src/contracts/records), so a write is allowed or refused for
 * who writes it alone (the service refuses a write that breaks its record with 400).
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
  presence: { status: 'available' },
  contacts: { name: 'Ann', phones: [{ label: 'Work', number: '+442079460958' }] },
  holds: { caller: 'Ann', parkedAt: 1 },
  groups: { name: 'G', number: '300', members: [], strategy: 'simultaneous', ringTimeout: 20 },
  guidance: { name: 'Hello', kind: 'tts', text: 'Hello', language: 'en-us' },
  audio: { name: 'a.wav', kind: 'wav', contentType: 'audio/wav', size: 1, duration: 1 },
  'schedule:g1': { timeZone: 'UTC', week: {} },
  'calendar:g1': { holidays: [] },
  'forwarding:g1': { when: 'always', target: { kind: 'voicemail' } },
  [`settings:${EMAIL.agent}`]: { doNotDisturb: false },
};

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
  const r = raw[who];
  const data = VALID[name]!;
  const item =
    kind === 'Maps'
      ? {
          method: 'POST',
          path: `${path(kind, name)}/Items`,
          body: { key: EMAIL[who], data },
        }
      : kind === 'Lists'
        ? { method: 'POST', path: `${path(kind, name)}/Items`, body: { data } }
        : { method: 'POST', path: path(kind, name), body: { data } };
  const call =
    op === 'read'
      ? { method: 'GET', path: path(kind, name), body: undefined }
      : op === 'create'
        ? { method: 'POST', path: `/v3/${kind}`, body: { unique_name: name } }
        : op === 'update'
          ? item
          : op === 'ttl'
            ? { method: 'POST', path: path(kind, name), body: { ttl: 3600 } }
            : { method: 'DELETE', path: path(kind, name), body: undefined };
  const reply = await r.request(call.method, call.path, call.body);
  return { status: (reply.header.http_status as { code: number }).code, body: reply.body };
}

describe('who may do what, at the Sync service', () => {
  it('allows and refuses exactly as the table says, with 403 / 54007 for every refusal', async () => {
    const lines: string[] = [`${'object'.padEnd(42)}${OPS.map((o) => o.padEnd(20)).join('')}`];
    const wrong: string[] = [];
    for (const obj of OBJECTS) {
      const cells: string[] = [];
      for (const op of OPS) {
        const marks: string[] = [];
        for (const who of WHO) {
          await ensure(obj.kind, obj.name);
          const { status, body } = await attempt(who, obj.kind, obj.name, op);
          const refused = status === 403;
          const expected = obj.expect[op][who];
          marks.push(`${LABEL[who]}${refused ? '✗' : '✓'}`);
          if (refused === expected)
            wrong.push(`${obj.name} ${op} by ${who}: ${status} ${JSON.stringify(body)}`);
          if (refused)
            expect(body, `${obj.name} ${op} ${who}`).toMatchObject({ status: 403, code: 54007 });
          else
            expect(status, `${obj.name} ${op} ${who}`).toBeLessThan(
              400 + (op === 'create' ? 10 : 0),
            );
        }
        cells.push(marks.join(' ').padEnd(20));
      }
      lines.push(
        `${`${obj.kind.slice(0, -1).toLowerCase()} ${obj.name}`.padEnd(34)}${cells.join('')}`,
      );
    }
    console.log(
      `[permissions] adm = admin, agt = agent, oth = another agent; ✓ allowed, ✗ refused (403 / 54007)\n${lines.join('\n')}`,
    );
    expect(wrong).toEqual([]);
  });

  it("refuses a subscription to someone else's settings, and allows the owner's", async () => {
    await ensure('Documents', `settings:${EMAIL.agent}`);
    const doc = await raw.agent.request('GET', path('Documents', `settings:${EMAIL.agent}`));
    const sid = (doc.body as { sid: string }).sid;
    const subscribe = (who: Who, correlation: number) =>
      raw[who].request('POST', '/v4/Subscriptions', {
        action: 'establish',
        correlation_id: correlation,
        requests: [{ object_sid: sid, object_type: 'document', last_event_id: null }],
      });
    await subscribe('other', 9001);
    await subscribe('agent', 9002);
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
    const refused = await outcome('other', 9001);
    expect(refused.event_type).toBe('subscription_failed');
    expect(refused.events[0]?.error).toMatchObject({ status: 403, code: 54007 });
    expect((await outcome('agent', 9002)).event_type).toBe('subscription_established');
  });
});
