/**
 * readBody: a JSON body parsed with the route's body schema (src/contracts/api.ts), its problems
 * answered 400 in the order a person fixes them, in the words the API has always used.
 */
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { API } from '../../../../src/contracts/api';
import { readBody } from '../../../../server/platform/http/body';

function request(body: string): IncomingMessage {
  const req = Readable.from([Buffer.from(body)]) as unknown as IncomingMessage;
  req.headers = { 'content-type': 'application/json' };
  return req;
}

const refusal = (route: Parameters<typeof readBody>[1], body: unknown) =>
  readBody(request(JSON.stringify(body)), route).then(
    () => null,
    (err: { status: number; code: string; message: string }) => ({
      status: err.status,
      code: err.code,
      message: err.message,
    }),
  );

describe('readBody', () => {
  it("gives the schema's value", async () => {
    await expect(
      readBody(request('{"name":"Ada","email":"a@x.io","code":"1234"}'), API.signInLocal),
    ).resolves.toEqual({ name: 'Ada', email: 'a@x.io', code: '1234' });
    await expect(readBody(request('{"role":"admin"}'), API.setRole)).resolves.toEqual({
      role: 'admin',
    });
  });

  it.each<[string, unknown, string]>([
    ['an array', [{ name: 'Ada' }], 'Request body must be a JSON object'],
    ['null', null, 'Request body must be a JSON object'],
    ['an unknown field before a missing one', { role: 'x' }, 'Unknown field: "role"'],
    ['a missing field before a wrong type', { name: 1 }, 'Missing field: email'],
    ['a wrong type', { name: 1, email: 'a@x.io' }, 'Field name must be a string'],
    [
      'an optional field of the wrong type',
      { name: 'A', email: 'e', code: 7 },
      'Field code must be a string',
    ],
  ])('refuses %s', async (_what, body, message) => {
    expect(await refusal(API.signInLocal, body)).toEqual({
      status: 400,
      code: 'bad_request',
      message,
    });
  });

  it("answers a field's own rule with the schema's message", async () => {
    expect(await refusal(API.setRole, { role: 1 })).toMatchObject({
      message: 'Field role must be a string',
    });
    expect(await refusal(API.setRole, { role: 'owner' })).toMatchObject({
      message: 'Field role must be "admin" or "agent"',
    });
    expect(await refusal(API.transfer, { to: 'cat', mode: 'sideways' })).toMatchObject({
      message: 'mode must be "blind" or "consult".',
    });
  });
});
