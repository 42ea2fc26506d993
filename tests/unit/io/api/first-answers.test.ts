import { describe, expect, it, vi } from 'vitest';
import { readFirstAnswers, withFirstAnswers } from '../../../../src/io/api/first-answers';
import { FIRST_ANSWERS_ID, type FirstAnswer } from '../../../../src/contracts/api-session';

/** A document holding one element with `text` under the first-answers id (or none). */
function page(text: string | null) {
  let present = text !== null;
  const element = { textContent: text, remove: () => (present = false) };
  return {
    doc: {
      getElementById: (id: string) =>
        present && id === FIRST_ANSWERS_ID ? (element as unknown as HTMLElement) : null,
    },
    present: () => present,
  };
}

const SESSION = { status: 200, body: { user: { identity: 'ada@example.com' } } };

describe('readFirstAnswers', () => {
  it('reads each carried answer and takes the element out of the page', () => {
    const p = page(
      JSON.stringify({
        '/api/session': SESSION,
        '/api/config': { status: 200, body: { localSignIn: true } },
      }),
    );
    const answers = readFirstAnswers(p.doc);
    expect([...answers]).toEqual([
      ['/api/session', SESSION],
      ['/api/config', { status: 200, body: { localSignIn: true } }],
    ]);
    expect(p.present()).toBe(false);
    expect(readFirstAnswers(p.doc).size).toBe(0);
  });

  it.each([
    ['no element', null],
    ['not JSON', '{"/api/session":'],
    ['not an object', '[1,2]'],
    ['a null', 'null'],
  ])('carries nothing for %s', (_, text) => {
    expect(readFirstAnswers(page(text).doc).size).toBe(0);
  });

  it('leaves out what is not an API path or not an answer', () => {
    const answers = readFirstAnswers(
      page(
        JSON.stringify({
          '/api/session': SESSION,
          'https://evil.example/api/x': SESSION,
          '/assets/x.js': SESSION,
          '/api/a': { status: '200', body: {} },
          '/api/b': { status: 99, body: {} },
          '/api/c': { status: 200.5, body: {} },
          '/api/d': 'ok',
        }),
      ).doc,
    );
    expect([...answers.keys()]).toEqual(['/api/session']);
  });
});

describe('withFirstAnswers', () => {
  const carried = () =>
    new Map<string, FirstAnswer>([
      ['/api/session', { status: 401, body: { error: { code: 'unauthenticated' } } }],
    ]);

  it('answers the first GET of a carried path as the server would, once', async () => {
    const network = vi.fn(() => Promise.resolve(new Response('{"user":null}', { status: 200 })));
    const f = withFirstAnswers(network, carried());
    const first = await f('/api/session', { method: 'GET' });
    expect(first.status).toBe(401);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await first.json()).toEqual({ error: { code: 'unauthenticated' } });
    expect(network).not.toHaveBeenCalled();
    // The next one, a re-check, goes to the server.
    const second = await f('/api/session', { method: 'GET' });
    expect(second.status).toBe(200);
    expect(network).toHaveBeenCalledTimes(1);
  });

  it('reads a carried body without waiting for a task (no body stream on the first render)', async () => {
    const f = withFirstAnswers(vi.fn(), carried());
    const answered = await f('/api/session');
    let text: string | null = null;
    void answered.text().then((t) => (text = t));
    // Read within a few microtasks: a body stream would wait for a task behind the page's own.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    expect(text).toBe('{"error":{"code":"unauthenticated"}}');
    // An answer with no body reads as empty, as a real one does.
    const none = withFirstAnswers(vi.fn(), new Map([['/api/x', { status: 204, body: undefined }]]));
    expect(await (await none('/api/x')).text()).toBe('');
  });

  it('sends every other request on, with what it was given', async () => {
    const network = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
    const f = withFirstAnswers(network, carried());
    const init = { method: 'POST', body: '{}' };
    await f('/api/session', init);
    await f('/api/config');
    expect(network.mock.calls).toEqual([
      ['/api/session', init],
      ['/api/config', undefined],
    ]);
    // The POST did not use up the carried GET answer.
    expect((await f('/api/session')).status).toBe(401);
  });
});
