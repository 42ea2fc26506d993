/**
 * The REST client's retries, through the `twilio` package against a local server that answers late
 * or refuses: a create (POST) that timed out is not sent again (Twilio may have carried it out), while
 * a read is; a POST refused before Twilio acted (429, 503) is tried again, one answered 500 is not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mayRetry, SwitchboardRequestClient } from '../../../../server/twilio/client';

const ACCOUNT = 'AC' + '1'.repeat(32);
let server: Server;
let base = '';
/** What the server does with the next requests: answer late (ms), or with a status. */
let behaviour: { lateMs: number; statuses: number[] } = { lateMs: 0, statuses: [] };
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    seen.push(`${req.method ?? ''} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    const status = behaviour.statuses.shift() ?? 0;
    setTimeout(() => {
      if (res.destroyed) return;
      if (status >= 400) {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: 20001, message: 'no', status }));
        return;
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ sid: 'CA' + '2'.repeat(32), account_sid: ACCOUNT, calls: [] }));
    }, behaviour.lateMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen.length = 0;
  behaviour = { lateMs: 0, statuses: [] };
});

/** The package pointed at the local server, its requests waiting 300 ms for an answer. */
const client = () =>
  twilio('SK' + '3'.repeat(32), 'secret', {
    accountSid: ACCOUNT,
    httpClient: new SwitchboardRequestClient(
      base,
      { retries: 3, baseMs: 1, capMs: 5 },
      () => Promise.resolve(),
      undefined,
      300,
    ),
  });

describe('the REST client tries a request again only where that cannot do it twice', () => {
  it('a call create that timed out is sent once: Twilio may have placed it', async () => {
    behaviour.lateMs = 600;
    await expect(
      client().calls.create({ to: 'client:ann', from: '+15005550006', twiml: '<Response/>' }),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 700));
    expect(seen).toEqual([`POST /api/2010-04-01/Accounts/${ACCOUNT}/Calls.json`]);
  });

  it('a user-defined message that timed out is sent once', async () => {
    behaviour.lateMs = 600;
    await expect(
      client()
        .calls('CA' + '4'.repeat(32))
        .userDefinedMessages.create({ content: '{}' }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('a read that timed out is tried again', async () => {
    behaviour.lateMs = 600;
    await expect(client().calls.list({ limit: 1 })).rejects.toThrow();
    expect(seen).toHaveLength(4);
  });

  it('a create refused before Twilio acted (429, then 503) is tried again; one answered 500 is not', async () => {
    behaviour.statuses = [429, 503];
    await client().calls.create({ to: 'client:ann', from: '+15005550006', twiml: '<Response/>' });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    behaviour.statuses = [500];
    await expect(
      client().calls.create({ to: 'client:ann', from: '+15005550006', twiml: '<Response/>' }),
    ).rejects.toMatchObject({ status: 500 });
    expect(seen).toHaveLength(1);
  });

  it('a POST whose connection was refused (never sent) may go again; one reset may not', () => {
    expect(mayRetry('POST', { code: 'ECONNREFUSED' })).toBe(true);
    expect(mayRetry('POST', { code: 'ECONNRESET' })).toBe(false);
    expect(mayRetry('POST', { code: 'ECONNABORTED' })).toBe(false);
    expect(mayRetry('GET', { code: 'ECONNRESET' })).toBe(true);
    expect(mayRetry('DELETE', { status: 502 })).toBe(true);
  });
});
