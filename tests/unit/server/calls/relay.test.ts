/**
 * The row's `relay` (the media server's view of each browser side) from Voice Insights' Call
 * Summary: the voice twin answers `GET /v1/Voice/{CallSid}/Summary` to the `twilio` package itself
 * with a leg's counts as it closed, 404 (20404) before, and 20003 for wrong credentials; the app turns
 * a summary's `client_edge` into a side of the row, asks again while Twilio has none yet, and stops
 * for good when Advanced Features are not active (401/403).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwinRequestClient } from '../../../support/twin-request-client';
import { insightsRest, LegSummaries } from '../../../../server/twins/voice/rest/insights';
import { createCallLog, type CallState } from '../../../../server/calls/call-log';
import {
  createRelayReader,
  legMediaOf,
  summaryFetcher,
  type SummaryAnswer,
} from '../../../../server/calls/relay';

const ACCOUNT = 'AC' + '2'.repeat(32);
const TOKEN = 'twin-token';
const LEG = 'CA' + 'a'.repeat(32);
const summaries = new LegSummaries();
let server: Server;
let origin = '';

beforeAll(async () => {
  const handle = insightsRest(summaries, { accountSid: ACCOUNT, authToken: TOKEN });
  server = createServer((req, res) => {
    if (!handle(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const clientWith = (token: string) =>
  twilio(ACCOUNT, token, { httpClient: new TwinRequestClient(origin) });

describe("the twin's Call Summary", () => {
  it('is 404 (20404) until the leg ends, then its counts as a client edge', async () => {
    const client = clientWith(TOKEN);
    await expect(client.insights.v1.calls(LEG).summary().fetch()).rejects.toMatchObject({
      status: 404,
      code: 20404,
    });
    summaries.keep(LEG, {
      accountSid: ACCOUNT,
      identity: 'ann_40example_2ecom',
      totals: { packetsIn: 500, packetsOut: 480, lostAtBrowser: 12, codec: 'opus' },
    });
    const summary = await client.insights.v1
      .calls(LEG)
      .summary()
      .fetch({ processingState: 'partial' });
    expect(summary.callSid).toBe(LEG);
    expect(summary.callType).toBe('client');
    expect(summary.processingState).toBe('partial');
    expect(legMediaOf(summary)).toEqual({
      received: 500,
      sent: 480,
      lostAtBrowser: 12,
      codec: 'opus',
    });
    // Read as the app reads it.
    expect(await summaryFetcher(client)(LEG)).toEqual({
      received: 500,
      sent: 480,
      lostAtBrowser: 12,
      codec: 'opus',
    });
  });

  it('refuses wrong credentials (20003): the app takes that as never', async () => {
    const client = clientWith('wrong');
    await expect(client.insights.v1.calls(LEG).summary().fetch()).rejects.toMatchObject({
      status: 401,
      code: 20003,
    });
    expect(await summaryFetcher(client)(LEG)).toBe('refused');
  });

  it('a summary with no client edge is no side of the row', () => {
    expect(legMediaOf({ clientEdge: null })).toBeNull();
    expect(legMediaOf({})).toBeNull();
  });
});

describe('the row amended with the relay view', () => {
  const CALL = 'CA' + 'b'.repeat(32);
  const CHILD = 'CA' + 'c'.repeat(32);

  function answeredCall() {
    const calls = createCallLog();
    const state = calls.open(CALL, () => ({
      startedAt: 0,
      direction: 'outbound',
      from: 'ann@example.com',
      to: 'bob@example.com',
      user: 'ann@example.com',
    }));
    state.answeredBy = 'bob@example.com';
    calls.party(CALL, CALL, 'ann@example.com');
    calls.party(CHILD, CALL, 'bob@example.com');
    return { calls, state };
  }

  const media = { received: 10, sent: 9, lostAtBrowser: 1, codec: 'pcmu' };

  it('asks again while a summary is not ready, then adds both sides', async () => {
    const { calls, state } = answeredCall();
    const asked: string[] = [];
    let ready = false;
    const amended: CallState[] = [];
    const follow = createRelayReader({
      calls,
      fetch: (sid): Promise<SummaryAnswer> => {
        asked.push(sid);
        return Promise.resolve(ready ? media : null);
      },
      amend: (s) => {
        amended.push(s);
        return Promise.resolve();
      },
      log: () => {},
      delaysMs: [5, 30, 30],
    });
    follow(state);
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toEqual([CALL, CHILD]);
    expect(amended).toEqual([]);
    ready = true;
    await expect.poll(() => amended.length).toBe(1);
    expect(state.relay).toEqual([
      { side: 'caller', identity: 'ann@example.com', ...media },
      { side: 'callee', identity: 'bob@example.com', ...media },
    ]);
  });

  it('stops for good, and says so once, when Voice Insights refuses', async () => {
    const { calls, state } = answeredCall();
    const logged: string[] = [];
    let asked = 0;
    const follow = createRelayReader({
      calls,
      fetch: () => {
        asked++;
        return Promise.resolve('refused' as const);
      },
      amend: () => Promise.resolve(),
      log: (m) => logged.push(m),
      delaysMs: [1, 1, 1],
    });
    follow(state);
    await expect.poll(() => logged.length).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    follow(state);
    await new Promise((r) => setTimeout(r, 20));
    expect(asked).toBe(2); // one call's two legs, asked once; nothing after the refusal
    expect(state.relay).toEqual([]);
  });
});
