import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, postJson, raw, removeDir, startApp, type TestApp } from './support';

let t: TestApp;
let local: string;

beforeAll(async () => {
  t = await startApp({ SWITCHBOARD_PASSCODE: 'letmein' });
  local = `${t.url}/api/session/local`;
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

/** Every refused request leaves no user, no session and no cookie behind. */
function expectNothingChanged(res: Response | { headers: Record<string, unknown> }): void {
  const setCookie =
    res instanceof Response ? res.headers.getSetCookie() : (res.headers['set-cookie'] ?? []);
  expect(setCookie).toEqual([]);
  expect(t.rows('users')).toEqual([]);
  expect(t.rows('sessions')).toEqual([]);
}

const valid = { name: 'Ada', email: 'ada@example.com', passcode: 'letmein' };

describe('POST /api/session/local refuses bad input with a JSON error and changes nothing', () => {
  const cases: [string, unknown, number, string, RegExp][] = [
    ['invalid JSON', '{"name": "Ada",', 400, 'invalid_json', /not valid JSON/],
    ['an empty body', '', 400, 'invalid_json', /empty/],
    ['a JSON array', [valid], 400, 'bad_request', /JSON object/],
    ['JSON null', 'null', 400, 'bad_request', /JSON object/],
    ['a JSON string', '"Ada"', 400, 'bad_request', /JSON object/],
    [
      'a missing name',
      { email: 'ada@example.com', passcode: 'letmein' },
      400,
      'bad_request',
      /Missing field: name/,
    ],
    [
      'a missing email',
      { name: 'Ada', passcode: 'letmein' },
      400,
      'bad_request',
      /Missing field: email/,
    ],
    ['an unknown field', { ...valid, role: 'admin' }, 400, 'bad_request', /Unknown field: "role"/],
    [
      'a __proto__ field',
      '{"name":"Ada","email":"ada@example.com","passcode":"letmein","__proto__":{"x":1}}',
      400,
      'bad_request',
      /Unknown field/,
    ],
    ['a numeric name', { ...valid, name: 42 }, 400, 'bad_request', /name must be a string/],
    ['a null email', { ...valid, email: null }, 400, 'bad_request', /email must be a string/],
    [
      'an object passcode',
      { ...valid, passcode: { $ne: '' } },
      400,
      'bad_request',
      /passcode must be a string/,
    ],
    ['a blank name', { ...valid, name: '   ' }, 400, 'bad_request', /Name must not be empty/],
    ['an 81-character name', { ...valid, name: 'a'.repeat(81) }, 400, 'bad_request', /at most 80/],
    [
      'a newline in the name',
      { ...valid, name: 'Ada\nAdmin' },
      400,
      'bad_request',
      /control characters/,
    ],
    [
      'a NUL in the name',
      { ...valid, name: 'Ada\u0000' },
      400,
      'bad_request',
      /control characters/,
    ],
    [
      'a bidi override in the name',
      { ...valid, name: 'Ada\u202e' },
      400,
      'bad_request',
      /control characters/,
    ],
    [
      'a DEL in the name',
      { ...valid, name: 'A\u007fda' },
      400,
      'bad_request',
      /control characters/,
    ],
    [
      'an email without @',
      { ...valid, email: 'ada.example.com' },
      400,
      'bad_request',
      /valid address/,
    ],
    [
      'an email without a domain dot',
      { ...valid, email: 'ada@localhost' },
      400,
      'bad_request',
      /valid address/,
    ],
    [
      'an email with spaces inside',
      { ...valid, email: 'a da@example.com' },
      400,
      'bad_request',
      /valid address/,
    ],
    [
      'an email with two @',
      { ...valid, email: 'a@b@example.com' },
      400,
      'bad_request',
      /valid address/,
    ],
    [
      'an email with a newline',
      { ...valid, email: 'ada@example.com\nBcc: x@y.z' },
      400,
      'bad_request',
      /valid address/,
    ],
    ['an empty email', { ...valid, email: '' }, 400, 'bad_request', /must not be empty/],
    [
      'a 255-character email',
      { ...valid, email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` },
      400,
      'bad_request',
      /at most 254/,
    ],
    [
      'a 65-character local part',
      { ...valid, email: `${'a'.repeat(65)}@example.com` },
      400,
      'bad_request',
      /valid address/,
    ],
    ['an empty passcode', { ...valid, passcode: '' }, 400, 'bad_request', /passcode/],
    [
      'a wrong passcode',
      { ...valid, passcode: 'letmeinn' },
      401,
      'bad_passcode',
      /passcode is wrong/,
    ],
    [
      'a passcode differing in case',
      { ...valid, passcode: 'LetMeIn' },
      401,
      'bad_passcode',
      /passcode is wrong/,
    ],
  ];

  it.each(cases)('%s', async (_label, body, status, code, message) => {
    const res = await postJson(local, body);
    const error = await expectError(res);
    expect(error).toMatchObject({ status, code });
    expect(error.message).toMatch(message);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expectNothingChanged(res);
  });

  it.each([
    ['no content type', undefined],
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['json with a latin1 charset', 'application/json; charset=latin1'],
    ['a json look-alike', 'application/jsonp'],
  ])('refuses %s with 415 unsupported_media_type', async (_label, type) => {
    const res = await fetch(local, {
      method: 'POST',
      headers: type ? { 'Content-Type': type } : {},
      body: new TextEncoder().encode(JSON.stringify(valid)),
    });
    expect(await expectError(res)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expectNothingChanged(res);
  });

  it('accepts application/json with charset=utf-8', async () => {
    const res = await fetch(local, {
      method: 'POST',
      headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' },
      body: JSON.stringify({ ...valid, email: 'charset@example.com' }),
    });
    expect(res.status).toBe(200);
    // Undo for the other tests' "nothing changed" checks.
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    await fetch(`${t.url}/api/session/logout`, { method: 'POST', headers: { Cookie: cookie } });
    const db = await import('better-sqlite3');
    const conn = new db.default(`${t.dataDir}/app.db`);
    conn.prepare('DELETE FROM users').run();
    conn.close();
  });

  it('refuses a declared oversize body with 413 before reading it', async () => {
    const big = JSON.stringify({ ...valid, name: 'x'.repeat(70 * 1024) });
    const res = await postJson(local, big);
    expect(await expectError(res)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expectNothingChanged(res);
  });

  it('refuses an oversize chunked body (no Content-Length) with 413', async () => {
    const chunk = 'x'.repeat(16 * 1024);
    const res = await raw(local, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      chunks: ['{"name":"', chunk, chunk, chunk, chunk, chunk, '","email":"ada@example.com"}'],
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    expectNothingChanged(res);
  });

  it('accepts a body just under the limit (and then validates it)', async () => {
    const res = await postJson(local, { ...valid, name: 'x'.repeat(60 * 1024) });
    expect(await expectError(res)).toMatchObject({ status: 400, code: 'bad_request' });
  });
});

describe('other session endpoints refuse bad input', () => {
  it('GET on a POST-only endpoint is 405 with Allow', async () => {
    const res = await fetch(local);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await expectError(res)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('POST on GET /api/session is 405 and DELETE on /api/config is 405', async () => {
    const post = await postJson(`${t.url}/api/session`, {});
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await expectError(post)).toMatchObject({ status: 405, code: 'method_not_allowed' });
    const del = await fetch(`${t.url}/api/config`, { method: 'DELETE' });
    expect(await expectError(del)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('Google endpoints answer 403 google_sign_in_disabled when no client id is configured', async () => {
    for (const [path, body] of [
      ['/api/session/google', { credential: 'a.b.c' }],
      ['/api/session/google/code', { code: 'x' }],
      ['/api/session/google/token', { access_token: 'x' }],
    ] as const) {
      const error = await expectError(await postJson(`${t.url}${path}`, body));
      expect(error).toMatchObject({ status: 403, code: 'google_sign_in_disabled' });
      expect(error.message).toContain('GOOGLE_CLIENT_ID');
    }
    expect(t.rows('users')).toEqual([]);
  });

  it('a cross-origin sign-in is refused with 403 origin_mismatch', async () => {
    const res = await postJson(local, valid, { Origin: 'https://evil.example' });
    expect(await expectError(res)).toMatchObject({ status: 403, code: 'origin_mismatch' });
    expectNothingChanged(res);
    const nullOrigin = await postJson(local, valid, { Origin: 'null' });
    expect(await expectError(nullOrigin)).toMatchObject({ status: 403, code: 'origin_mismatch' });
    expectNothingChanged(nullOrigin);
  });

  it('a cross-origin logout is refused and the session survives', async () => {
    const signIn = await postJson(local, { ...valid, email: 'keep@example.com' });
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const res = await fetch(`${t.url}/api/session/logout`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'http://127.0.0.1:1' },
    });
    expect(await expectError(res)).toMatchObject({ status: 403, code: 'origin_mismatch' });
    expect((await fetch(`${t.url}/api/session`, { headers: { Cookie: cookie } })).status).toBe(200);
    const same = await fetch(`${t.url}/api/session/logout`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: t.url },
    });
    expect(same.status).toBe(204);
    const db = await import('better-sqlite3');
    const conn = new db.default(`${t.dataDir}/app.db`);
    conn.prepare('DELETE FROM users').run();
    conn.close();
  });
});
