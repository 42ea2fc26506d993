/**
 * Nothing lost in a crash: calls in progress when the server is killed (SIGKILL, no chance to say
 * goodbye) get their history row at the next start on the same data, `dropped` with "The server
 * restarted." and what was known (who, when it started, answered or not, the group, the trail so
 * far), each once; and nothing is left on /hold. The calls are placed through the real signalling
 * and media, as in the other voice tests, and the rows are read through the real Sync SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRecord, DROPPED_REASON, type CallRecord } from '../../../src/contracts/records/call';
import { saveGroup } from '../../support/ring-groups';
import { startServer, type RunningServer } from '../../support/server';
import { client, shutdownClients, signIn } from '../sync/support';
import {
  answerTo,
  closeLegs,
  connected,
  dial,
  person as personAt,
  post,
  type Person,
} from './media-support';
import { eventually } from './support';

let server: RunningServer;
let people: Person[] = [];

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_VOICE_RING_SECONDS: '60' } });
}, 60_000);

afterAll(async () => {
  await closeLegs();
  for (const p of people) p.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

async function rows(url: string): Promise<CallRecord[]> {
  const history = await (await client(url, 'ada@example.com')).list('calls');
  const items = (await history.getItems({ order: 'asc', pageSize: 100 })).items;
  return items.map((i) => i.data as CallRecord);
}

describe('a server killed with calls in progress', () => {
  it('writes each call’s history row as dropped at the next start, and /hold is empty', async () => {
    const person = async (email: string) => {
      const p = await personAt(server.url, email);
      people.push(p);
      return p;
    };
    // The first to sign in is the admin.
    const ada = await person('ada@example.com');
    const [ann, bob, cat, dan, eve] = await Promise.all(
      ['ann', 'bob', 'cat', 'dan', 'eve'].map((n) => person(`${n}@example.com`)),
    );
    const sync = await client(server.url, 'ada@example.com');
    const cookie = await signIn(server.url, 'ada@example.com');
    await saveGroup(
      { baseUrl: server.url, cookie, sync },
      {
        id: 'grp-sales',
        name: 'Sales',
        number: '500',
        members: [bob!.identity],
      },
    );

    // 1. Ann calls Sales, Bob answers and puts her on hold.
    const bobMark = bob!.frames.length;
    const toSales = dial(ann!, '500');
    const invite = await bob!.next((f) => f.type === 'invite', bobMark, 10_000);
    await answerTo(bob!, invite);
    const sales = await toSales;
    expect(sales.frame.type).toBe('answer');
    const salesId = String(sales.frame.payload.callsid);
    expect((await post(server.url, bob!, `${String(invite.payload.callsid)}/hold`)).status).toBe(
      204,
    );

    // 2. Cat calls Dan, who parks her: she waits on /hold.
    const parkedCall = await connected(cat!, dan!);
    const parked = await post(server.url, dan!, `${parkedCall.toSid}/park`);
    expect(parked.status).toBe(200);
    const parkedId = (parked.body.parked as { callId: string }).callId;
    const holds = await sync.map('holds');
    await eventually(
      async () => (await holds.getItems()).items.some((i) => i.key === parkedId),
      5000,
      'the parked call on /hold',
    );

    // 3. Eve calls Ada, whose phone is still ringing.
    const adaMark = ada.frames.length;
    const eveMark = eve!.frames.length;
    void dial(eve!, ada.identity).catch(() => undefined);
    await ada.next((f) => f.type === 'invite', adaMark, 10_000);
    const ringing = await eve!.next((f) => f.type === 'ringing', eveMark, 10_000);
    const ringingId = String(ringing.payload.callsid);

    const killedAt = Date.now();
    await server.kill();
    for (const p of people) p.close();
    people = [];
    await shutdownClients();

    server = await startServer({ dataDir: server.dataDir, port: server.port });
    // The journal recovers the calls through Sync's REST API once the server listens, and logs
    // this once their rows are written.
    await eventually(
      () =>
        Promise.resolve(server.output().includes('3 call(s) in progress when the server stopped')),
      15_000,
      'the recovery of the journalled calls',
    );
    const after = await rows(server.url);
    for (const row of after) expect(callRecord.check(row)).toMatchObject({ ok: true, value: row });
    const byId = new Map(after.map((r) => [r.callSid, r]));
    expect(after.filter((r) => [salesId, parkedId, ringingId].includes(r.callSid))).toHaveLength(3);

    const salesRow = byId.get(salesId)!;
    expect(salesRow).toMatchObject({
      outcome: 'dropped',
      reason: DROPPED_REASON,
      from: ann!.identity,
      group: 'grp-sales',
      groupName: 'Sales',
      // A group call names no colleague called directly (the record's `callee`); who took it is
      // `handledBy`.
      callee: null,
      handledBy: bob!.identity,
    });
    expect(salesRow.answeredAt).toEqual(expect.any(Number));
    expect(salesRow.trail.map((s) => [s.action, s.by])).toEqual([['held', bob!.identity]]);
    expect(salesRow.routing.map((s) => s.kind)).toContain('answered');
    expect(salesRow.endedAt).toBeGreaterThanOrEqual(salesRow.trail[0]!.at!);
    expect(salesRow.endedAt).toBeLessThanOrEqual(killedAt);

    expect(byId.get(parkedId)).toMatchObject({
      outcome: 'dropped',
      reason: DROPPED_REASON,
      from: cat!.identity,
      callee: dan!.identity,
      group: null,
    });
    expect(byId.get(parkedId)!.trail.map((s) => s.action)).toEqual(['parked']);

    expect(byId.get(ringingId)).toMatchObject({
      outcome: 'dropped',
      reason: DROPPED_REASON,
      from: eve!.identity,
      callee: ada.identity,
      answeredAt: null,
      handledBy: null,
      duration: 0,
      trail: [],
    });

    // Nothing is parked after a restart, whatever /hold said.
    const holdsAfter = await (await client(server.url, 'ada@example.com')).map('holds');
    await expect
      .poll(async () => (await holdsAfter.getItems()).items, { timeout: 10_000 })
      .toEqual([]);

    // Another restart writes nothing more: the journal is empty.
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, port: server.port });
    expect(server.output()).not.toContain('call(s) in progress');
    expect((await rows(server.url)).length).toBe(after.length);
  }, 120_000);
});
