/**
 * A twilio-sync SDK token checked as Twilio checks it: by the API key it names and that key's
 * account, its signature, its time window and its Sync grant, each fault with Twilio's code.
 */
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import {
  verifyAccessToken,
  verifyWithKeys,
  type SigningKey,
} from '../../../../../server/twins/sync/token';
import { syncTokenFor } from '../../../../support/access-tokens';

describe('access tokens', () => {
  const account = {
    accountSid: `AC${'1'.repeat(32)}`,
    apiKey: `SK${'2'.repeat(32)}`,
    apiSecret: 'the-key-secret',
    syncServiceSid: `IS${'3'.repeat(32)}`,
  };
  const secret = Buffer.from(account.apiSecret);
  const now = 1_800_000_000;
  const mint = (ttl = 600) => syncTokenFor(account, 'alice', ttl, now * 1000);

  it('verifies a Twilio-shaped token', () => {
    expect(verifyAccessToken(secret, mint(), now + 1)).toEqual({
      ok: true,
      identity: 'alice',
      exp: now + 600,
    });
  });

  it('answers each kind of bad token with its Twilio code', () => {
    const jwt = mint();
    expect(verifyAccessToken(secret, 'nope', now)).toMatchObject({ ok: false, errorCode: 20101 });
    expect(verifyAccessToken(secret, 42, now)).toMatchObject({ ok: false, errorCode: 20101 });
    expect(verifyAccessToken(Buffer.alloc(32, 8), jwt, now)).toMatchObject({
      ok: false,
      errorCode: 20107,
    });
    expect(verifyAccessToken(secret, jwt, now + 600)).toMatchObject({
      ok: false,
      errorCode: 20104,
    });
    const [h, p, s] = jwt.split('.') as [string, string, string];
    expect(verifyAccessToken(secret, `${h}.${p}x.${s}`, now)).toMatchObject({ ok: false });
  });
});

describe('tokens checked as Twilio does (by their API key and account)', () => {
  const now = 1_800_000_000;
  const ACCOUNT = `AC${'1'.repeat(32)}`;
  const KEY = `SK${'2'.repeat(32)}`;
  const SERVICE = `IS${'3'.repeat(32)}`;
  const keys = new Map<string, SigningKey>([
    [KEY, { secret: Buffer.from('the-key-secret'), accountSid: ACCOUNT, serviceSids: [SERVICE] }],
  ]);
  const sign = (
    header: object,
    payload: object,
    secret: Buffer | string = 'the-key-secret',
  ): string => {
    const b = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${b(header)}.${b(payload)}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  const HEADER = { typ: 'JWT', alg: 'HS256', cty: 'twilio-fpa;v=1' };
  const payload = (over: object = {}) => ({
    iss: KEY,
    sub: ACCOUNT,
    exp: now + 600,
    grants: { identity: 'ann', data_sync: { service_sid: SERVICE } },
    ...over,
  });
  const code = (jwt: string) => {
    const check = verifyWithKeys(keys, jwt, now);
    return check.ok ? 0 : check.errorCode;
  };

  it("takes the account key's tokens, for its service or 'default'", () => {
    expect(code(sign(HEADER, payload()))).toBe(0);
    const grants = { identity: 'ann', data_sync: { service_sid: 'default' } };
    expect(code(sign(HEADER, payload({ grants })))).toBe(0);
  });

  it('refuses with the code Twilio gives for each fault', () => {
    expect(code(sign({ typ: 'JWT', alg: 'HS256' }, payload()))).toBe(20102);
    expect(code(sign(HEADER, payload({ iss: `SK${'9'.repeat(32)}` })))).toBe(20103);
    expect(code(sign(HEADER, payload({ iss: undefined })))).toBe(20103);
    expect(code(sign(HEADER, payload({ sub: `AC${'9'.repeat(32)}` })))).toBe(20103);
    expect(code(sign(HEADER, payload(), 'another-secret'))).toBe(20107);
    expect(code(sign(HEADER, payload({ exp: now - 1 })))).toBe(20104);
    const grants = { identity: 'ann', data_sync: { service_sid: `IS${'9'.repeat(32)}` } };
    expect(code(sign(HEADER, payload({ grants })))).toBe(20106);
    expect(code(sign(HEADER, payload({ grants: { identity: 'ann' } })))).toBe(20106);
    expect(code('not-a-token')).toBe(20101);
  });
});
