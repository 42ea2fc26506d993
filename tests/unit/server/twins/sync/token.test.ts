import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import {
  loadOrCreateSecret,
  mintAccessToken,
  ownSigningKey,
  verifyAccessToken,
  verifyWithKeys,
  type SigningKey,
} from '../../../../../server/twins/sync/token';

describe('access tokens', () => {
  const secret = Buffer.alloc(32, 7);
  const now = 1_800_000_000;

  it('mints Twilio-shaped tokens that verify', () => {
    const jwt = mintAccessToken(secret, 'alice', now, 600);
    const [h, p] = jwt
      .split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()) as Record<string, unknown>);
    expect(h).toEqual({ typ: 'JWT', alg: 'HS256', cty: 'twilio-fpa;v=1' });
    expect(p).toMatchObject({
      iat: now,
      nbf: now,
      exp: now + 600,
      grants: { identity: 'alice', data_sync: { service_sid: expect.stringMatching(/^IS/) } },
    });
    expect(verifyAccessToken(secret, jwt, now + 1)).toEqual({
      ok: true,
      identity: 'alice',
      exp: now + 600,
      sessionRef: null,
    });
  });

  it('carries the session reference it was minted for', () => {
    const jwt = mintAccessToken(secret, 'alice', now, 600, 'ref-1');
    expect(verifyAccessToken(secret, jwt, now + 1)).toMatchObject({
      ok: true,
      sessionRef: 'ref-1',
    });
  });

  it('answers each kind of bad token with its Twilio code', () => {
    const jwt = mintAccessToken(secret, 'alice', now, 600);
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

  it('keeps the secret in the data folder, private, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-secret-'));
    try {
      const a = loadOrCreateSecret(dir);
      const b = loadOrCreateSecret(dir);
      expect(a.equals(b)).toBe(true);
      expect(statSync(join(dir, 'sync-secret')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, 'sync-secret'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tokens checked as Twilio does (by their API key and account)', () => {
  const now = 1_800_000_000;
  const own = Buffer.alloc(32, 7);
  const ACCOUNT = `AC${'1'.repeat(32)}`;
  const KEY = `SK${'2'.repeat(32)}`;
  const SERVICE = `IS${'3'.repeat(32)}`;
  const keys = new Map<string, SigningKey>([
    ownSigningKey(own),
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

  it("takes the server's own tokens and the account key's, for its service or 'default'", () => {
    expect(verifyWithKeys(keys, mintAccessToken(own, 'bob', now, 600), now)).toMatchObject({
      ok: true,
      identity: 'bob',
    });
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
    // The own key opens the own service only.
    const ownService = { identity: 'ann', data_sync: { service_sid: SERVICE } };
    expect(
      code(
        sign(
          HEADER,
          payload({
            iss: ownSigningKey(own)[0],
            sub: ownSigningKey(own)[1].accountSid,
            grants: ownService,
          }),
          own,
        ),
      ),
    ).toBe(20106);
    expect(code('not-a-token')).toBe(20101);
  });
});
