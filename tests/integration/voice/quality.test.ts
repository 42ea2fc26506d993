/**
 * POST /api/calls/{callSid}/quality against the real server: each person on a call reports how it
 * sounded to them, while the call is live (their report overtook their hangup) or just after it
 * ended, and the call's history row keeps one report per person; anyone else, an unknown call, a
 * malformed id or a body that is not a report is refused with the API's error. The row is written by
 * the app from the voice service's status callbacks, as on Twilio, and the media relay's own packet
 * counts (`relay`) are added from each leg's Call Summary (Voice Insights) once the twin has it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '../../../src/contracts/api';
import { pathOf } from '../../../src/contracts/api-route';
import { CALLS } from '../../../src/contracts/objects';
import { callRecord } from '../../../src/contracts/records/call';
import type { QualityReport, RelayLeg } from '../../../src/contracts/records/call-quality';
import { startServer, type RunningServer } from '../../support/server';
import { client, shutdownClients } from '../sync/support';
import { closeLegs, connected, hears, person as personAt, type Person } from './media-support';
import { eventually } from './support';

let server: RunningServer;
let ann: Person;
let bob: Person;
let cat: Person;

beforeAll(async () => {
  server = await startServer();
  ann = await personAt(server.url, 'ann@example.com');
  bob = await personAt(server.url, 'bob@example.com');
  cat = await personAt(server.url, 'cat@example.com');
}, 60_000);

afterAll(async () => {
  await closeLegs();
  for (const p of [ann, bob, cat]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

const REPORT: QualityReport = {
  samples: 12,
  mosMin: 4.1,
  mosAvg: 4.3,
  lossPercent: 0.5,
  jitterAvgMs: 3,
  jitterP95Ms: 6,
  rttAvgMs: 20,
  codec: 'pcmu',
  warnings: [],
};

async function report(
  who: Person,
  sid: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${pathOf(API.callQuality, { sid })}`, {
    method: 'POST',
    headers: { cookie: who.cookie, origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('call quality reports', () => {
  it("each party's report reaches the call's row, before or after the row is written; others are refused", async () => {
    const { fromSid, toSid, fromLeg, toLeg } = await connected(ann, bob);
    await hears(fromLeg, 'sound');
    await hears(toLeg, 'sound');
    // Bob's report arrives while the call is still live: it waits for the row.
    expect(
      await report(bob, toSid, { ...REPORT, lossPercent: 11, warnings: ['high-packet-loss'] }),
    ).toMatchObject({ status: 204 });
    expect(await report(cat, toSid, REPORT)).toMatchObject({
      status: 403,
      body: { error: { code: 'not_your_call', message: 'You were not on this call.' } },
    });
    expect((await report(bob, toSid, { ...REPORT, lossPercent: 300 })).status).toBe(400);
    expect((await report(bob, toSid, { ...REPORT, by: 'ann@example.com' })).status).toBe(400);
    expect((await report(bob, 'CA..%2F..', REPORT)).status).toBe(400);
    expect(await report(bob, 'CAnobody', REPORT)).toMatchObject({
      status: 404,
      body: { error: { code: 'no_such_call' } },
    });

    ann.send('hangup', { callsid: fromSid });
    await bob.next((f) => f.type === 'hangup' && f.payload.callsid === toSid);
    // Ann's arrives after the row was written: it is merged in. A second report replaces her first.
    expect((await report(ann, fromSid, { ...REPORT, mosAvg: 3 })).status).toBe(204);
    expect((await report(ann, fromSid, REPORT)).status).toBe(204);
    expect((await report(cat, fromSid, REPORT)).status).toBe(403);

    const history = await (await client(server.url, 'ann@example.com')).list(CALLS.name);
    await eventually(
      async () => {
        const items = (await history.getItems({ order: 'desc', pageSize: 5 })).items;
        const row = items.find((i) => (i.data as { from?: string }).from === 'ann@example.com');
        const quality = (row?.data as { quality?: { by: string }[] } | undefined)?.quality ?? [];
        const relay = (row?.data as { relay?: RelayLeg[] } | undefined)?.relay ?? [];
        if (quality.length < 2 || relay.length < 2) return false;
        expect(callRecord.check(row!.data)).toMatchObject({ ok: true, value: row!.data });
        // The media server's view of each side, from each leg's Call Summary (Voice Insights, as
        // the app reads it on Twilio): who, the packets each way, and the codec.
        expect(relay.map((r) => [r.side, r.identity])).toEqual([
          ['caller', 'ann@example.com'],
          ['callee', 'bob@example.com'],
        ]);
        for (const side of relay) {
          expect(side.codec).toMatch(/^(opus|pcmu)$/);
          // The audio flowed both ways (heard above): the relay counted it each way.
          expect(side.received).toBeGreaterThan(0);
          expect(side.sent).toBeGreaterThan(0);
          expect(side.lostAtBrowser).toBeLessThanOrEqual(side.sent);
        }
        expect(quality).toEqual([
          { ...REPORT, lossPercent: 11, warnings: ['high-packet-loss'], by: 'bob@example.com' },
          { ...REPORT, by: 'ann@example.com' },
        ]);
        return true;
      },
      8000,
      'both reports and the relay view in the row',
    );
  });
});
