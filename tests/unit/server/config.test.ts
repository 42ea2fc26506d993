import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../server/config';
import { extraScriptOrigin, localSignInOffered } from '../../../server/identity/config';
import { isLoopbackHost } from '../../../server/platform/config';
import { twinsElsewhere } from '../../../server/twilio/cloud';

describe('configFromEnv', () => {
  it('has the documented defaults', () => {
    const config = configFromEnv({}, '/srv/app');
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/app/data',
      passcode: null,
      trustProxy: false,
      google: {
        clientId: null,
        clientSecret: null,
        scriptUrl: 'https://accounts.google.com/gsi/client',
        certsFile: null,
        tokenUrl: 'https://oauth2.googleapis.com/token',
        userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
        tokeninfoUrl: 'https://oauth2.googleapis.com/tokeninfo',
      },
    });
    expect(config.distDir).toBe(resolve(import.meta.dirname, '../../../dist'));
    expect(extraScriptOrigin(config)).toBeNull();
  });

  it('reads every variable', () => {
    const config = configFromEnv(
      {
        HOST: '0.0.0.0',
        PORT: '0',
        SWITCHBOARD_DATA: 'state',
        SWITCHBOARD_PASSCODE: ' s3cret ',
        GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'secret',
        SWITCHBOARD_GOOGLE_SCRIPT_URL: 'http://127.0.0.1:5000/gsi/client',
        SWITCHBOARD_GOOGLE_CERTS_FILE: 'certs.json',
        SWITCHBOARD_GOOGLE_TOKEN_URL: 'http://127.0.0.1:5000/token',
        SWITCHBOARD_GOOGLE_USERINFO_URL: 'http://127.0.0.1:5000/userinfo',
        SWITCHBOARD_GOOGLE_TOKENINFO_URL: 'http://127.0.0.1:5000/tokeninfo',
        SWITCHBOARD_TRUST_PROXY: '1',
      },
      '/srv/app',
    );
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/srv/app/state',
      passcode: ' s3cret ',
      trustProxy: true,
      google: {
        clientId: 'id.apps.googleusercontent.com',
        clientSecret: 'secret',
        certsFile: '/srv/app/certs.json',
        tokenUrl: 'http://127.0.0.1:5000/token',
      },
    });
    expect(extraScriptOrigin(config)).toBe('http://127.0.0.1:5000');
    expect(localSignInOffered(config)).toBe(true);
  });

  it.each(['-1', '65536', '80a', '8.5', 'http'])('refuses PORT=%s', (port) => {
    expect(() => configFromEnv({ PORT: port })).toThrow(/PORT must be an integer from 0 to 65535/);
  });

  it.each(['javascript:alert(1)', 'not a url', 'file:///etc/passwd'])(
    'refuses a non-http test URL %s',
    (url) => {
      expect(() => configFromEnv({ SWITCHBOARD_GOOGLE_TOKEN_URL: url })).toThrow(
        /SWITCHBOARD_GOOGLE_TOKEN_URL/,
      );
    },
  );
});

describe('the twins in a process of their own (twilio-twins with SWITCHBOARD_TWILIO_API_URL)', () => {
  const secrets = { TWILIO_API_SECRET: 'a'.repeat(64), TWILIO_AUTH_TOKEN: 'b'.repeat(32) };
  it('runs no twin here and reaches them at the URL, with the secrets they printed', () => {
    const config = configFromEnv(
      {
        SWITCHBOARD_BACKEND: 'twilio-twins',
        SWITCHBOARD_TWILIO_API_URL: 'http://10.0.0.5:8081/twilio/',
        ...secrets,
      },
      '/srv/app',
    );
    expect(config.twins).toBeNull();
    expect(config.twinsAt).toBe('http://10.0.0.5:8081/twilio');
    expect(config.twilio).toMatchObject({
      apiBaseUrl: 'http://10.0.0.5:8081/twilio',
      apiSecret: secrets.TWILIO_API_SECRET,
      authToken: secrets.TWILIO_AUTH_TOKEN,
      accountSid: 'AC7717e5000000000000000000000000a1',
      phoneNumbers: ['+15005550006'],
    });
    // In this process otherwise, and on Twilio the URL is the REST client's test hook only.
    expect(configFromEnv({ SWITCHBOARD_BACKEND: 'twilio-twins' }, '/srv/app').twinsAt).toBeNull();
  });

  it('refuses to start without the secrets, naming each', () => {
    expect(() =>
      configFromEnv(
        { SWITCHBOARD_BACKEND: 'twilio-twins', SWITCHBOARD_TWILIO_API_URL: 'http://10.0.0.5:8081' },
        '/srv/app',
      ),
    ).toThrow(/TWILIO_API_SECRET is not set[\s\S]*TWILIO_AUTH_TOKEN is not set/);
  });

  it("sends the browsers to the twins' origin with Twilio's own paths", () => {
    const cloud = twinsElsewhere('http://10.0.0.5:8081/twilio');
    expect(cloud.endpoints('https://phone.example.com')).toEqual({
      sync: {
        twilsock: { uri: 'ws://10.0.0.5:8081/v3/wsconnect' },
        cdsUri: 'http://10.0.0.5:8081',
      },
      voice: {
        chunderw: '10.0.0.5:8081',
        signallingUrl: 'ws://10.0.0.5:8081/signal',
        insights: false,
      },
    });
    expect(cloud.connectSources).toEqual(['http://10.0.0.5:8081', 'ws://10.0.0.5:8081']);
    expect(cloud.callsEndHere).toBe(false);
    expect(twinsElsewhere('https://twins.example.com/twilio').endpoints('x').sync).toEqual({
      twilsock: { uri: 'wss://twins.example.com/v3/wsconnect' },
      cdsUri: 'https://twins.example.com',
    });
  });
});

describe('isLoopbackHost', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '[::1]',
    'localhost',
    'LOCALHOST',
    '::ffff:127.0.0.1',
    'app.localhost',
  ])('%s is loopback', (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each([
    '0.0.0.0',
    '::',
    '192.168.1.2',
    '128.0.0.1',
    'example.com',
    'localhost.example.com',
    '::ffff:10.0.0.1',
  ])('%s is not loopback', (host) => expect(isLoopbackHost(host)).toBe(false));
  it('local sign-in is off on a public address without a passcode', () => {
    expect(localSignInOffered(configFromEnv({ HOST: '0.0.0.0' }))).toBe(false);
    expect(localSignInOffered(configFromEnv({ HOST: '0.0.0.0', SWITCHBOARD_PASSCODE: 'p' }))).toBe(
      true,
    );
  });
});
