/** SWITCHBOARD_SYNC_TWILIO_API: the twin's REST API is off unless asked for, and then needs credentials. */
import { describe, expect, it } from 'vitest';
import { syncReadDelayFromEnv, twilioApiFromEnv } from '../../../../../server/twins/sync/twilio-api/config';
import { SERVICE_SID } from '../../../../../server/twins/sync/token';

const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';

describe('twilioApiFromEnv', () => {
  it('is off by default and when set to 0', () => {
    expect(twilioApiFromEnv({})).toBeNull();
    expect(
      twilioApiFromEnv({ SWITCHBOARD_SYNC_TWILIO_API: '0', TWILIO_ACCOUNT_SID: ACCOUNT }),
    ).toBeNull();
  });

  it('takes the auth token and the API key, for the default service', () => {
    expect(
      twilioApiFromEnv({
        SWITCHBOARD_SYNC_TWILIO_API: '1',
        TWILIO_ACCOUNT_SID: ACCOUNT,
        TWILIO_AUTH_TOKEN: 'token',
        TWILIO_API_KEY: 'SK0123456789abcdef0123456789abcdef',
        TWILIO_API_SECRET: 'secret',
      }),
    ).toEqual({
      accountSid: ACCOUNT,
      authToken: 'token',
      apiKeys: { SK0123456789abcdef0123456789abcdef: 'secret' },
      serviceSid: SERVICE_SID,
      readDelayMs: 0,
      faults: null,
    });
  });

  it('takes the slow-Sync test hook, SWITCHBOARD_TEST_SYNC_DELAY_MS, and refuses a bad one', () => {
    const env = { SWITCHBOARD_SYNC_TWILIO_API: '1', TWILIO_ACCOUNT_SID: ACCOUNT };
    const on = { ...env, TWILIO_AUTH_TOKEN: 't', SWITCHBOARD_TEST_SYNC_DELAY_MS: '200' };
    expect(twilioApiFromEnv(on)?.readDelayMs).toBe(200);
    expect(syncReadDelayFromEnv({})).toBe(0);
    expect(syncReadDelayFromEnv({ SWITCHBOARD_TEST_SYNC_DELAY_MS: ' ' })).toBe(0);
    for (const bad of ['-1', '1.5', 'slow', '10001'])
      expect(() => syncReadDelayFromEnv({ SWITCHBOARD_TEST_SYNC_DELAY_MS: bad })).toThrow(
        /SWITCHBOARD_TEST_SYNC_DELAY_MS must be a whole number of ms, 0 to 10000/,
      );
  });

  it('names everything missing in one sentence', () => {
    expect(() =>
      twilioApiFromEnv({ SWITCHBOARD_SYNC_TWILIO_API: '1', TWILIO_SYNC_SERVICE_SID: 'nope' }),
    ).toThrow(
      /TWILIO_ACCOUNT_SID must be AC.*set TWILIO_AUTH_TOKEN, or TWILIO_API_KEY and TWILIO_API_SECRET.*TWILIO_SYNC_SERVICE_SID must be IS/,
    );
  });
});
