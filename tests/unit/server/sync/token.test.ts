import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadOrCreateSecret,
  mintAccessToken,
  verifyAccessToken,
} from '../../../../server/sync/token';

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
