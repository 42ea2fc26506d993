/**
 * SWITCHBOARD_BACKEND=twilio at start: every setting read, every problem named at once with what the
 * value should look like, and the embedded backend untouched when it is not asked for.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../../server/config';
import { localSignInOffered } from '../../../../server/identity/config';
import { twilioConfigFromEnv } from '../../../../server/twilio/config';
import { ACCOUNT_SID, APP_SID, NUMBERS, SERVICE_SID, twilioEnv } from './support';

const env = (over: Record<string, string | undefined> = {}) => {
  const { SWITCHBOARD_TWILIO_API_URL: _, ...base } = twilioEnv('http://127.0.0.1:1');
  return { ...base, ...over };
};

describe('twilioConfigFromEnv', () => {
  it('is off unless asked for, and embedded is the default', () => {
    expect(twilioConfigFromEnv({})).toBeNull();
    expect(twilioConfigFromEnv({ SWITCHBOARD_BACKEND: 'embedded' })).toBeNull();
    expect(configFromEnv({}).backend).toEqual({ kind: 'embedded' });
    expect(() => twilioConfigFromEnv({ SWITCHBOARD_BACKEND: 'twillio' })).toThrow(
      'SWITCHBOARD_BACKEND must be "embedded" (the default) or "twilio", got "twillio"',
    );
  });

  it('reads every setting', () => {
    expect(
      twilioConfigFromEnv(
        env({ TWILIO_PHONE_NUMBERS: '+44 20 7946 0000, +442079460001,+442079460000' }),
      ),
    ).toEqual({
      kind: 'twilio',
      accountSid: ACCOUNT_SID,
      apiKey: 'SK0123456789abcdef0123456789abcdef',
      apiSecret: 'test-api-secret-0123456789abcdef',
      authToken: '0123456789abcdef0123456789abcdef',
      syncServiceSid: SERVICE_SID,
      twimlAppSid: APP_SID,
      phoneNumbers: NUMBERS,
      publicUrl: 'https://switchboard.example.com',
      apiBaseUrl: null,
    });
  });

  it('lists every missing setting at once, saying what each looks like', () => {
    let message = '';
    try {
      twilioConfigFromEnv({ SWITCHBOARD_BACKEND: 'twilio' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'SWITCHBOARD_BACKEND=twilio cannot start:',
      '  - TWILIO_ACCOUNT_SID is not set (AC followed by 32 hex digits)',
      '  - TWILIO_API_KEY is not set (an API key SID: SK and 32 hex digits)',
      "  - TWILIO_API_SECRET is not set (the API key's secret)",
      "  - TWILIO_AUTH_TOKEN is not set (the account's auth token: 32 hex digits (it checks the signature of Twilio's webhooks))",
      '  - TWILIO_SYNC_SERVICE_SID is not set (a Sync service SID: IS and 32 hex digits)',
      '  - TWILIO_TWIML_APP_SID is not set (a TwiML app SID: AP and 32 hex digits)',
      '  - TWILIO_PHONE_NUMBERS is not set (comma-separated, like +442079460000)',
      '  - SWITCHBOARD_PUBLIC_URL is not set (the https origin Twilio reaches this server at, like https://phone.example.com)',
      '  - GOOGLE_CLIENT_ID is not set: on Twilio people sign in with Google only (docs/operations.md, "Running on Twilio")',
    ]);
  });

  it.each([
    [
      'TWILIO_ACCOUNT_SID',
      SERVICE_SID,
      /TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits, got "IS0123/,
    ],
    ['TWILIO_API_KEY', ACCOUNT_SID, /TWILIO_API_KEY must be an API key SID/],
    ['TWILIO_AUTH_TOKEN', 'not-a-token', /TWILIO_AUTH_TOKEN must be the account's auth token/],
    ['TWILIO_SYNC_SERVICE_SID', 'default', /TWILIO_SYNC_SERVICE_SID must be a Sync service SID/],
    ['TWILIO_TWIML_APP_SID', 'AP123', /TWILIO_TWIML_APP_SID must be a TwiML app SID/],
    [
      'TWILIO_PHONE_NUMBERS',
      '+442079460000,020 7946 0001',
      /TWILIO_PHONE_NUMBERS must list numbers in international form like \+442079460000, got "020 7946 0001"/,
    ],
    [
      'SWITCHBOARD_PUBLIC_URL',
      'http://phone.example.com',
      /SWITCHBOARD_PUBLIC_URL must be .* \(https, no path\)/,
    ],
    ['SWITCHBOARD_PUBLIC_URL', 'https://phone.example.com/switchboard', /\(https, no path\)/],
    [
      'SWITCHBOARD_PUBLIC_URL',
      'phone.example.com',
      /SWITCHBOARD_PUBLIC_URL must be the https origin/,
    ],
    [
      'SWITCHBOARD_TWILIO_API_URL',
      'ftp://x',
      /SWITCHBOARD_TWILIO_API_URL must be an absolute http\(s\) URL/,
    ],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => twilioConfigFromEnv(env({ [name]: value }))).toThrow(message);
  });

  it('refuses a team passcode: on Twilio people sign in with Google only', () => {
    expect(() => twilioConfigFromEnv(env({ SWITCHBOARD_PASSCODE: 'secret' }))).toThrow(
      'SWITCHBOARD_PASSCODE has no use on Twilio',
    );
  });

  it('http is allowed for a loopback public URL only (a test playing Twilio)', () => {
    expect(
      twilioConfigFromEnv(env({ SWITCHBOARD_PUBLIC_URL: 'http://127.0.0.1:8080' }))?.publicUrl,
    ).toBe('http://127.0.0.1:8080');
  });
});

describe('configFromEnv on Twilio', () => {
  it('answers to the public name, and offers no local sign-in even on loopback', () => {
    const config = configFromEnv(env({ PUBLIC_ORIGIN: 'https://other.example.com' }));
    expect(config.backend.kind).toBe('twilio');
    expect(config.publicHosts).toEqual(['other.example.com', 'switchboard.example.com']);
    expect(localSignInOffered(config)).toBe(false);
  });
});
