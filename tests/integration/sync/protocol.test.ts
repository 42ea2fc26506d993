/** Bad input at the Twilsock and REST layers: well-formed error replies, an open connection, nothing stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server';
import { encodeFrame } from '../../../server/twins/sync/framing';
import { accountToken, aclOff, client, RawTwilsock, shutdownClients, waitFor } from './support';

const httpStatus = (f: { header: Record<string, unknown> }): number =>
  (f.header.http_status as { code: number }).code;

describe('bad input', () => {
  let server: RunningServer;
  let raw: RawTwilsock;
  let listSid: string;

  beforeAll(async () => {
    // A small frame budget, so a flood is quick to provoke.
    server = await startServer({ env: { SWITCHBOARD_SYNC_RATE: '500,1000' } });
    await aclOff(server);
    raw = await RawTwilsock.open(server.url);
    expect((await raw.init(accountToken(server, 'prober', 600))).header.status).toEqual({
      code: 200,
      status: 'OK',
    });
    const created = await raw.request('POST', '/v3/Lists', { unique_name: 'probe-list' });
    listSid = (created.body as { sid: string }).sid;
    await raw.request('POST', `/v3/Lists/${listSid}/Items`, { data: { n: 1 } });
  });
  afterAll(async () => {
    raw.close();
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  /** The list as stored: bad input must leave it exactly like this. */
  async function snapshot(): Promise<unknown> {
    const list = await raw.request('GET', `/v3/Lists/${listSid}`);
    const items = await raw.request('GET', `/v3/Lists/${listSid}/Items`);
    const { revision, last_event_id } = list.body as Record<string, unknown>;
    return { revision, last_event_id, items: (items.body as { items: unknown[] }).items };
  }

  it('answers the seed validation rules with 400 and Twilio error bodies, storing nothing', async () => {
    const before = await snapshot();
    const cases: Array<[string, string, object | undefined, number, number]> = [
      ['POST', '/v3/Lists', { unique_name: 5 }, 400, 54302],
      ['POST', '/v3/Lists', { unique_name: '' }, 400, 54302],
      ['POST', '/v3/Lists', { unique_name: 'probe-list' }, 409, 54301],
      ['POST', `/v3/Lists/${listSid}/Items`, { data: 'not an object' }, 400, 20001],
      ['POST', `/v3/Lists/${listSid}/Items`, { data: [1, 2] }, 400, 20001],
      ['POST', `/v3/Lists/${listSid}/Items`, { data: {}, ttl: -1 }, 400, 20001],
      ['POST', `/v3/Lists/${listSid}/Items`, { data: {}, ttl: 1.5 }, 400, 20001],
      ['GET', `/v3/Lists/${listSid}/Items/-1`, undefined, 400, 20001],
      ['GET', `/v3/Lists/${listSid}/Items/77`, undefined, 404, 54151],
      ['POST', `/v3/Lists/${listSid}`, { ttl: 'soon' }, 400, 20001],
      ['GET', '/v3/Lists/nope', undefined, 404, 54300],
      ['GET', `/v3/Lists/ES${'0'.repeat(32)}`, undefined, 404, 54150],
      ['GET', '/v3/Nothing', undefined, 404, 20404],
      ['PUT', '/v3/Lists', {}, 405, 20004],
      ['DELETE', '/v4/Subscriptions', undefined, 405, 20004],
      [
        'POST',
        '/v4/Subscriptions',
        { action: 'dance', correlation_id: 1, requests: [] },
        400,
        20001,
      ],
      [
        'POST',
        '/v4/Subscriptions',
        { action: 'establish', correlation_id: 'x', requests: [] },
        400,
        20001,
      ],
      ['POST', '/v3/Insights/probe/Items', { query_string: 'key ==' }, 400, 54507],
      ['POST', '/v3/Insights/probe/Items', { query_string: null }, 400, 54507],
    ];
    for (const [method, path, body, status, code] of cases) {
      const reply = await raw.request(method, path, body);
      expect(reply.header.status, `${method} ${path}`).toEqual({ code: 200, status: 'OK' });
      expect(httpStatus(reply), `${method} ${path}`).toBe(status);
      {
        expect(reply.body, `${method} ${path}`).toMatchObject({
          code,
          status,
          message: expect.any(String),
          more_info: expect.stringContaining(String(code)),
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a bad JSON body with 400 and changes nothing', async () => {
    const before = await snapshot();
    const reply = await raw.call(
      {
        method: 'message',
        payload_type: 'application/json',
        http_request: {
          host: '127.0.0.1',
          path: `/v3/Lists/${listSid}/Items`,
          method: 'POST',
          params: {},
          headers: {},
        },
      },
      '{"data": {"broken"',
    );
    expect(httpStatus(reply)).toBe(400);
    expect(reply.body).toMatchObject({ code: 20001, message: 'Request body is not valid JSON' });
    expect(await snapshot()).toEqual(before);
  });

  it('ignores the junk body the SDK sends with DELETE', async () => {
    const pushed = await raw.request('POST', `/v3/Lists/${listSid}/Items`, { data: { tmp: true } });
    const index = (pushed.body as { index: number }).index;
    const reply = await raw.call(
      {
        method: 'message',
        payload_type: 'application/json',
        http_request: {
          host: '127.0.0.1',
          path: `/v3/Lists/${listSid}/Items/${index}`,
          method: 'DELETE',
          params: {},
          headers: {},
        },
      },
      'data_sync',
    );
    expect(httpStatus(reply)).toBe(200);
    expect(reply.body).toMatchObject({
      last_event_id: expect.any(Number),
      date_updated: expect.any(String),
    });
  });

  it('answers malformed frames that carry an id, skips those that do not, and stays open', async () => {
    raw.sendRaw('TWILSOCK V3.0 5\r\n{"id"');
    raw.sendRaw(Buffer.from([0, 1, 2, 3, 255]));
    raw.sendRaw(Buffer.from('TWILSOCK V3.0 2\r\n[]\r\n'));
    raw.sendRaw(Buffer.from('TWILSOCK V3.0 abc\r\n{}\r\n'));
    const badSize = JSON.stringify({ id: 'TMbad-size', method: 'message', payload_size: 999 });
    raw.sendRaw(Buffer.from(`TWILSOCK V3.0 ${Buffer.byteLength(badSize)}\r\n${badSize}\r\n{}`));
    const reply = await raw.reply('TMbad-size');
    expect(reply.header.status).toMatchObject({ code: 400, status: 'BAD_REQUEST' });
    const unknown = await raw.call({ method: 'dance' });
    expect(unknown.header.status).toMatchObject({ code: 400 });
    const ping = await raw.call({ method: 'ping' });
    expect(ping.header.status).toEqual({ code: 200, status: 'OK' });
    const stillWorks = await raw.request('GET', `/v3/Lists/${listSid}`);
    expect(httpStatus(stillWorks)).toBe(200);
  });

  it('answers an oversized frame with 413 and stays open', async () => {
    const before = await snapshot();
    const reply = await raw.request('POST', `/v3/Lists/${listSid}/Items`, {
      data: { blob: 'x'.repeat(300 * 1024) },
    });
    expect(httpStatus(reply)).toBe(413);
    expect(reply.body).toMatchObject({ code: 20413, status: 413 });
    const itemTooBig = await raw.request('POST', `/v3/Lists/${listSid}/Items`, {
      data: { blob: 'x'.repeat(17 * 1024) },
    });
    expect(itemTooBig.body).toMatchObject({ code: 54006, status: 413 });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses requests before init, and init with a bad token', async () => {
    const fresh = await RawTwilsock.open(server.url);
    const early = await fresh.request('GET', `/v3/Lists/${listSid}`);
    expect(early.header.status).toMatchObject({ code: 401, status: 'UNAUTHORIZED' });
    const denied = await fresh.init('a.b.c');
    expect(denied.header.status).toMatchObject({
      code: 401,
      status: 'UNAUTHORIZED',
      errorCode: 20101,
    });
    fresh.close();
  });

  it('throttles a flood from one connection with 429 and recovers', async () => {
    const flooder = await RawTwilsock.open(server.url);
    await flooder.init(accountToken(server, 'flooder', 600));
    const frame = (i: number): Buffer => encodeFrame({ method: 'ping', id: `TMflood-${i}` });
    for (let i = 0; i < 3000; i++) flooder.sendRaw(frame(i));
    await waitFor(
      () =>
        flooder.frames.filter((f) => String(f.header.id).startsWith('TMflood-')).length >= 3000 ||
        undefined,
      30_000,
      'every flood frame answered',
    );
    const throttled = flooder.frames.filter(
      (f) => (f.header.status as { code?: number } | undefined)?.code === 429,
    );
    expect(throttled.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    const after = await flooder.request('GET', `/v3/Lists/${listSid}`);
    expect(httpStatus(after)).toBe(200);
    flooder.close();
  }, 60_000);

  it('limits connections per identity to 20 with a clear init error', async () => {
    const token = accountToken(server, 'crowd', 600);
    const sockets = await Promise.all(
      Array.from({ length: 20 }, () => RawTwilsock.open(server.url)),
    );
    const replies = await Promise.all(sockets.map((s) => s.init(token)));
    expect(replies.every((r) => (r.header.status as { code: number }).code === 200)).toBe(true);
    const extra = await RawTwilsock.open(server.url);
    const refused = await extra.init(token);
    expect(refused.header.status).toMatchObject({
      code: 429,
      status: 'TOO_MANY_REQUESTS',
      description: expect.stringContaining('Too many connections'),
    });
    sockets[0]!.close();
    await new Promise((r) => setTimeout(r, 200));
    const retry = await RawTwilsock.open(server.url);
    expect((await retry.init(token)).header.status).toEqual({ code: 200, status: 'OK' });
    [...sockets, extra, retry].forEach((s) => s.close());
  });

  it('serves live queries through the SDK', async () => {
    const alice = await client(server.url, 'alice@example.com');
    const map = await alice.map('agents');
    await map.set('a1', { status: 'ready' });
    await map.set('a2', { status: 'busy' });
    const live = await alice.liveQuery('agents', 'data.status == "ready"');
    expect(live.getItems()).toEqual({ a1: { status: 'ready' } });
    const updates: string[] = [];
    live.on('itemUpdated', (e: { key: string }) => updates.push(`+${e.key}`));
    live.on('itemRemoved', (e: { key: string }) => updates.push(`-${e.key}`));
    await new Promise((r) => setTimeout(r, 300));
    await map.set('a2', { status: 'ready' });
    await map.set('a1', { status: 'away' });
    await waitFor(() => updates.length === 2, 5000, 'live query updates');
    expect(updates).toEqual(['+a2', '-a1']);
    expect(live.getItems()).toEqual({ a2: { status: 'ready' } });
  });
});
