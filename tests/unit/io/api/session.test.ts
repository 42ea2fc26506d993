import { describe, expect, it, vi } from 'vitest';
import { API } from '../../../../src/contracts/api';
import { createApiClient, NETWORK_ERROR_MESSAGE } from '../../../../src/io/api/client';
import { loadConfig } from '../../../../src/io/api/config';
import { restoreSession, signIn, signOut } from '../../../../src/io/api/session';

interface Call {
  url: string;
  init: RequestInit;
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const ada = {
  identity: 'u1',
  name: 'Ada',
  email: 'ada@example.com',
  role: 'admin',
  picture: null,
  extension: null,
};

function client(...responses: Array<Response | Error>) {
  const calls: Call[] = [];
  const onUnauthorized = vi.fn();
  const fetchImpl: typeof fetch = (url, init) => {
    calls.push({ url: typeof url === 'string' ? url : 'non-string url', init: init ?? {} });
    const next = responses.shift();
    if (next === undefined) throw new Error('unexpected request');
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return {
    api: createApiClient({ fetch: fetchImpl, onUnauthorized }),
    calls,
    onUnauthorized,
  };
}

describe('session API', () => {
  it('restores the user from GET /api/session', async () => {
    const { api, calls } = client(json(200, { user: ada }));
    await expect(restoreSession(api)).resolves.toEqual(ada);
    expect(calls[0]).toMatchObject({
      url: '/api/session',
      init: { method: 'GET', credentials: 'same-origin' },
    });
  });

  it('restores nobody on 401, and reports the 401', async () => {
    const { api, onUnauthorized } = client(
      json(401, { error: { code: 'unauthenticated', message: 'Sign in first' } }),
    );
    await expect(restoreSession(api)).resolves.toBeNull();
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('posts local sign-in as JSON with same-origin credentials', async () => {
    const { api, calls } = client(json(200, { user: ada }));
    await expect(
      signIn(api, { method: 'local', name: 'Ada', email: 'ada@example.com', passcode: 'p' }),
    ).resolves.toEqual(ada);
    expect(calls[0]?.url).toBe('/api/session/local');
    expect(calls[0]?.init).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(calls[0]?.init.headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      passcode: 'p',
    });
  });

  it('leaves the passcode out when there is none', async () => {
    const { api, calls } = client(json(200, { user: ada }));
    await signIn(api, { method: 'local', name: 'Ada', email: 'ada@example.com' });
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
    });
  });

  it.each([
    ['idToken', '/api/session/google', { credential: 'v' }],
    ['code', '/api/session/google/code', { code: 'v' }],
    ['accessToken', '/api/session/google/token', { access_token: 'v' }],
  ] as const)('posts the Google %s flow to %s', async (flow, url, body) => {
    const { api, calls } = client(json(200, { user: ada }));
    await signIn(api, { method: 'google', flow, value: 'v' });
    expect(calls[0]?.url).toBe(url);
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual(body);
  });

  it('rejects with the server code and message when sign-in is refused', async () => {
    const { api } = client(
      json(403, { error: { code: 'bad_passcode', message: 'The passcode is wrong.' } }),
    );
    const failure = signIn(api, { method: 'local', name: 'A', email: 'a@b.co', passcode: 'x' });
    await expect(failure).rejects.toMatchObject({
      name: 'ApiError',
      status: 403,
      code: 'bad_passcode',
      message: 'The passcode is wrong.',
    });
  });

  it('explains an error answer without the JSON error shape', async () => {
    const { api } = client(new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(restoreSession(api)).rejects.toThrow(
      'The server answered with an error (HTTP 502).',
    );
  });

  it('explains a network failure', async () => {
    const { api } = client(new TypeError('Failed to fetch'));
    await expect(restoreSession(api)).rejects.toThrow(NETWORK_ERROR_MESSAGE);
  });

  it.each([
    ['no user', {}],
    ['an unknown role', { user: { ...ada, role: 'owner' } }],
    ['no identity', { user: { ...ada, identity: '' } }],
    ['a numeric name', { user: { ...ada, name: 5 } }],
    ['a non-string picture', { user: { ...ada, picture: 7 } }],
  ])('rejects a user answer with %s', async (_label, body) => {
    const { api } = client(json(200, body));
    await expect(restoreSession(api)).rejects.toThrow(
      'The server sent an unreadable user. Please try again.',
    );
  });

  it('signs out with POST /api/session/logout, and treats 401 as already signed out', async () => {
    const ok = client(new Response(null, { status: 204 }));
    await expect(signOut(ok.api)).resolves.toBeUndefined();
    expect(ok.calls[0]).toMatchObject({ url: '/api/session/logout', init: { method: 'POST' } });
    const gone = client(
      json(401, { error: { code: 'unauthenticated', message: 'Sign in first' } }),
    );
    await expect(signOut(gone.api)).resolves.toBeUndefined();
  });

  it('reports every 401 from other requests so the session can expire', async () => {
    const { api, onUnauthorized } = client(
      json(401, { error: { code: 'unauthenticated', message: 'Sign in first' } }),
    );
    await expect(api.call(API.voiceRegistration)).rejects.toMatchObject({
      status: 401,
      message: 'Sign in first',
    });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });
});

describe('config', () => {
  const config = {
    googleClientId: null,
    googleScriptUrl: 'https://accounts.google.com/gsi/client',
    localSignIn: true,
    passcodeRequired: false,
    backend: 'embedded',
  };

  it('reads GET /api/config', async () => {
    const { api } = client(json(200, config));
    await expect(loadConfig(api)).resolves.toEqual(config);
  });

  it.each([
    ['an empty client id', { ...config, googleClientId: '' }],
    ['a missing script url', { ...config, googleScriptUrl: undefined }],
    ['a string flag', { ...config, localSignIn: 'yes' }],
    ['an unknown backend', { ...config, backend: 'other' }],
    ['an array', [config]],
  ])('rejects a config with %s', async (_label, body) => {
    const { api } = client(json(200, body));
    await expect(loadConfig(api)).rejects.toThrow('The server sent an unreadable configuration.');
  });
});
