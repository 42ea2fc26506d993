/** SWITCHBOARD_SYNC_TWILIO_API: the twin's REST API is off unless asked for, and then needs credentials. */
import { describe, expect, it } from 'vitest';
import { twilioApiFromEnv } from '../../../../server/sync/twilio-api/config';
import { SERVICE_SID } from '../../../../server/sync/token';

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
    });
  });

  it('names everything missing in one sentence', () => {
    expect(() =>
      twilioApiFromEnv({ SWITCHBOARD_SYNC_TWILIO_API: '1', TWILIO_SYNC_SERVICE_SID: 'nope' }),
    ).toThrow(
      /TWILIO_ACCOUNT_SID must be AC.*set TWILIO_AUTH_TOKEN, or TWILIO_API_KEY and TWILIO_API_SECRET.*TWILIO_SYNC_SERVICE_SID must be IS/,
    );
  });
});
