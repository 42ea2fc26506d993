/**
 * Bad input to Twilio's webhooks: a missing or wrong X-Twilio-Signature is refused (403) and changes
 * nothing (no request reaches Twilio's API, no call is followed, no history is written); a signed
 * request with fields missing gets 400, another body type 415.
 */
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support';
import { SALES_NUMBER, WED_OPEN, seedTeam } from '../calls/fixture';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  PUBLIC_URL,
  SERVICE_SID,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from './support';
import { actions, pathOf } from '../calls/twiml-support';

let t: TwilioTestApp;
let nextPath: string;

beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  await seedTeam(t);
  const res = await t.webhook(
    '/api/twilio/voice',
    incomingCall(sid(), '+447700900123', SALES_NUMBER),
  );
  nextPath = pathOf(actions(await res.text())[0]!);
}, 60_000);
afterAll(() => t.close());

const statusForm = (callSid: string): Record<string, string> => ({
  AccountSid: ACCOUNT_SID,
  CallSid: callSid,
  CallStatus: 'completed',
  CallDuration: '42',
  Direction: 'inbound',
  From: '+447700900123',
  To: SALES_NUMBER,
});

/** Sends `attempt` and checks it was refused with 403 and touched nothing. */
async function refused(attempt: () => Promise<Response>): Promise<void> {
  // Messages to the browsers that earlier (signed) calls told are sent after their answers: only
  // Sync requests count as touching something.
  const syncRequests = () => t.api.requests.filter((r) => !r.path.includes('/Calls/')).length;
  const before = syncRequests();
  const res = await attempt();
  expect(res.status).toBe(403);
  expect((await expectError(res)).code).toBe('bad_signature');
  expect(syncRequests()).toBe(before);
}

const PATHS = [
  '/api/twilio/voice',
  '/api/twilio/status',
  '/api/twilio/leg',
  '/api/twilio/voicemail?group=grp-sales',
  '/api/twilio/recording?group=grp-sales',
  '/api/twilio/voice/ring',
];

describe('X-Twilio-Signature', () => {
  it.each(PATHS)('%s: a request without a signature is refused', async (path) => {
    await refused(() =>
      t.webhook(path, incomingCall(sid(), '+447700900123', SALES_NUMBER), { signature: null }),
    );
  });

  it.each(PATHS)('%s: a signature made with another auth token is refused', async (path) => {
    const params = incomingCall(sid(), '+447700900123', SALES_NUMBER);
    const forged = getExpectedTwilioSignature(
      'ffffffffffffffffffffffffffffffff',
      `${PUBLIC_URL}${path}`,
      params,
    );
    await refused(() => t.webhook(path, params, { signature: forged }));
  });

  it('a signature over the address the request was sent to (its Host), not the public URL, is refused', async () => {
    await refused(() =>
      t.webhook('/api/twilio/voice', incomingCall(sid(), '+447700900123', SALES_NUMBER), {
        signedUrl: `${t.url}/api/twilio/voice`,
      }),
    );
  });

  it('a field changed after signing is refused', async () => {
    const params = incomingCall(sid(), '+447700900123', SALES_NUMBER);
    const signature = getExpectedTwilioSignature(
      AUTH_TOKEN,
      `${PUBLIC_URL}/api/twilio/voice`,
      params,
    );
    await refused(() =>
      t.webhook('/api/twilio/voice', { ...params, To: '+442079460001' }, { signature }),
    );
  });

  it('a plan changed in a Dial action URL is refused: the query is signed too', async () => {
    const params = {
      AccountSid: ACCOUNT_SID,
      CallSid: sid(),
      DialCallStatus: 'no-answer',
      From: '+447700900123',
      To: SALES_NUMBER,
    };
    const signature = getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${nextPath}`, params);
    const other = nextPath.replace(/plan=1\.[A-Za-z0-9_-]{4}/, 'plan=1.AAAA');
    expect(other).not.toBe(nextPath);
    await refused(() => t.webhook(other, params, { signature }));
  });

  it('a refused status callback writes no history; the same one signed writes exactly one row', async () => {
    const callSid = sid();
    await refused(() =>
      t.webhook('/api/twilio/status', statusForm(callSid), { signature: 'bm90IGEgc2lnbmF0dXJl' }),
    );
    const history = () => t.writes().filter((w) => w.path.includes('/Lists/calls/Items'));
    expect(history()).toEqual([]);
    const res = await t.webhook('/api/twilio/status', statusForm(callSid));
    expect(res.status).toBe(204);
    expect(history().map((w) => `${w.method} ${w.path}`)).toEqual([
      `POST /sync/v1/Services/${SERVICE_SID}/Lists/calls/Items`,
    ]);
    // Sent again (Twilio retries): still one row.
    expect((await t.webhook('/api/twilio/status', statusForm(callSid))).status).toBe(204);
    expect(history()).toHaveLength(1);
  });

  it("another account's signed request is refused", async () => {
    await refused(() =>
      t.webhook('/api/twilio/voice', {
        ...incomingCall(sid(), '+447700900123', SALES_NUMBER),
        AccountSid: 'AC' + 'f'.repeat(32),
      }),
    );
  });
});

describe('signed requests that are not what Twilio sends', () => {
  it('no CallSid, or a malformed one: 400', async () => {
    const { CallSid: _, ...params } = incomingCall(sid(), '+447700900123', SALES_NUMBER);
    for (const form of [params, { ...params, CallSid: 'CA123' }]) {
      const res = await t.webhook('/api/twilio/voice', form);
      expect(res.status).toBe(400);
      expect((await expectError(res)).code).toBe('bad_request');
    }
  });

  it('a Dial callback with an unknown DialCallStatus, or a plan this server did not write: 400', async () => {
    const base = {
      AccountSid: ACCOUNT_SID,
      CallSid: sid(),
      From: '+447700900123',
      To: SALES_NUMBER,
    };
    expect((await t.webhook(nextPath, { ...base, DialCallStatus: 'maybe' })).status).toBe(400);
    for (const plan of [
      '',
      '2.abc',
      '1.AAAA',
      `1.${Buffer.from('not deflate').toString('base64url')}`,
    ]) {
      const res = await t.webhook(`/api/twilio/voice/next?plan=${plan}`, {
        ...base,
        DialCallStatus: 'no-answer',
      });
      expect(res.status).toBe(400);
    }
  });

  it('a status or leg callback without a status: 400', async () => {
    const { CallStatus: _, ...status } = statusForm(sid());
    expect((await t.webhook('/api/twilio/status', status)).status).toBe(400);
    expect(
      (
        await t.webhook('/api/twilio/leg', {
          AccountSid: ACCOUNT_SID,
          CallSid: sid(),
          ParentCallSid: sid(),
          To: 'client:x',
        })
      ).status,
    ).toBe(400);
  });

  it('a JSON body: 415; a body over 64 KiB: 413', async () => {
    const json = await fetch(`${t.url}/api/twilio/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Twilio-Signature': 'x' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    const big = await fetch(`${t.url}/api/twilio/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': 'x' },
      body: `Body=${'a'.repeat(70 * 1024)}`,
    });
    expect(big.status).toBe(413);
  });

  it('GET on a webhook: 405', async () => {
    expect((await fetch(`${t.url}/api/twilio/voice`)).status).toBe(405);
  });
});
