import { describe, expect, it } from 'vitest';
import { API } from '../../../../src/contracts/api';
import { ApiError, createApiClient, UNREADABLE_ANSWER } from '../../../../src/io/api/client';

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function client(response: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const api = createApiClient({
    fetch: (url, init) => {
      calls.push({ url: typeof url === 'string' ? url : 'not a string', init: init ?? {} });
      return Promise.resolve(response());
    },
    onUnauthorized: () => undefined,
  });
  return { api, calls };
}

describe('api.call over the contracts', () => {
  it('builds the path from the route and its params, each encoded as one segment', async () => {
    const { api, calls } = client(() => new Response(null, { status: 204 }));
    await expect(api.call(API.hold, { sid: 'CA 1/2' })).resolves.toBeUndefined();
    expect(calls[0]).toMatchObject({
      url: '/api/voice/calls/CA%201%2F2/hold',
      init: { method: 'POST' },
    });
  });

  it('sends the body as JSON and reads the answer with the route’s schema', async () => {
    const user = { identity: 'u1', name: 'Ada', email: 'a@x.io', role: 'agent' };
    const { api, calls } = client(() => json(200, { user }));
    const answer = await api.call(API.setRole, { identity: 'u1' }, { role: 'agent' });
    expect(answer.user).toEqual({ ...user, picture: null, extension: null });
    expect(calls[0]?.url).toBe('/api/users/u1/role');
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual({ role: 'agent' });
  });

  it('refuses a body its route’s schema refuses, with the server’s words, and sends nothing', async () => {
    const { api, calls } = client(() => new Response(null, { status: 204 }));
    const refused = api.call(API.transfer, { sid: 'CA1' }, { to: 'x'.repeat(201), mode: 'blind' });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: 'Say who to transfer the call to.',
    });
    expect(calls).toHaveLength(0);
  });

  it('turns an answer that does not match into a 502 a person can read', async () => {
    const { api } = client(() => json(200, { registered: 'yes' }));
    const failure = api.call(API.voiceRegistration);
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({
      status: 502,
      code: 'bad_response',
      message: UNREADABLE_ANSWER,
    });
  });

  it('words an unreadable answer as the caller asks, from the field at fault', async () => {
    const { api } = client(() => json(200, { ttlSeconds: 5, heartbeatSeconds: 'often' }));
    await expect(
      api.call(API.presenceSettings, undefined, undefined, {
        unreadable: (field) => `bad ${field}`,
      }),
    ).rejects.toThrow('bad heartbeatSeconds');
  });
});
