import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRESENCE, presenceSettingsFromEnv } from '../../../../server/identity/presence';
import {
  expectError,
  postJson,
  removeDir,
  sessionCookieOf,
  startApp,
  type TestApp,
} from '../support';

describe('presence settings from the environment', () => {
  it('defaults to a 25 s heartbeat inside a 75 s ttl', () => {
    expect(presenceSettingsFromEnv({})).toEqual(DEFAULT_PRESENCE);
    expect(DEFAULT_PRESENCE).toEqual({ ttlSeconds: 75, heartbeatSeconds: 25 });
  });

  it('takes both values, and derives a heartbeat well inside a short ttl', () => {
    expect(
      presenceSettingsFromEnv({
        SWITCHBOARD_PRESENCE_TTL: '6',
        SWITCHBOARD_PRESENCE_HEARTBEAT: '2',
      }),
    ).toEqual({ ttlSeconds: 6, heartbeatSeconds: 2 });
    expect(presenceSettingsFromEnv({ SWITCHBOARD_PRESENCE_TTL: '6' })).toEqual({
      ttlSeconds: 6,
      heartbeatSeconds: 2,
    });
  });

  it.each([
    [{ SWITCHBOARD_PRESENCE_TTL: 'soon' }, /SWITCHBOARD_PRESENCE_TTL must be a whole number/],
    [{ SWITCHBOARD_PRESENCE_TTL: '0' }, /from 1 to 3600/],
    [{ SWITCHBOARD_PRESENCE_HEARTBEAT: '2.5' }, /SWITCHBOARD_PRESENCE_HEARTBEAT must be/],
    [
      { SWITCHBOARD_PRESENCE_TTL: '10', SWITCHBOARD_PRESENCE_HEARTBEAT: '10' },
      /must be shorter than SWITCHBOARD_PRESENCE_TTL \(10\)/,
    ],
  ])('refuses %o with a clear message', (env, message) => {
    expect(() => presenceSettingsFromEnv(env)).toThrow(message);
  });
});

describe('GET /api/presence/settings', () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    if (!t) return;
    await t.close();
    removeDir(t.dataDir);
    t = null;
  });

  it('answers signed-in people only', async () => {
    t = await startApp();
    expect((await expectError(await fetch(`${t.url}/api/presence/settings`))).status).toBe(401);
    const res = await postJson(`${t.url}/api/session/local`, {
      name: 'Ada',
      email: 'a@example.com',
    });
    const cookie = sessionCookieOf(res)!;
    const settings = await fetch(`${t.url}/api/presence/settings`, { headers: { Cookie: cookie } });
    expect(settings.status).toBe(200);
    expect(await settings.json()).toEqual(DEFAULT_PRESENCE);
  });
});
