import { describe, expect, it } from 'vitest';
import { InvalidJwtError, previewIdToken } from '../../../../src/io/google/jwt';
import { INVALID_JWT_MESSAGE } from '../../../../src/io/google/messages';

const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const token = (payload: string, header = '{"alg":"RS256","typ":"JWT"}'): string =>
  `${b64url(header)}.${b64url(payload)}.c2lnbmF0dXJl`;

describe('previewIdToken', () => {
  it('reads the name and picture from an ID token', () => {
    const jwt = token(
      JSON.stringify({ name: 'Ada Lovelace', picture: 'https://lh3.example/ada.png', sub: '1' }),
    );
    expect(previewIdToken(jwt)).toEqual({
      name: 'Ada Lovelace',
      picture: 'https://lh3.example/ada.png',
    });
  });

  it('falls back to the email when there is no name, and drops a non-https picture', () => {
    const jwt = token(JSON.stringify({ email: 'ada@example.com', picture: 'javascript:alert(1)' }));
    expect(previewIdToken(jwt)).toEqual({ name: 'ada@example.com', picture: null });
  });

  it.each([
    ['an empty string', ''],
    ['not a token at all', 'hello'],
    ['two parts', `${b64url('{}')}.${b64url('{"name":"x"}')}`],
    ['four parts', `${token('{"name":"x"}')}.extra`],
    ['bad base64 in the payload', `${b64url('{}')}.@@@!!!.sig`],
    ['a payload that is not JSON', token('this is not json')],
    ['a payload that is a JSON string', token('"just a string"')],
    ['a payload that is a JSON array', token('["a"]')],
    ['a payload that is null', token('null')],
  ])('rejects %s with "JWT provided is invalid"', (_label, value) => {
    expect(() => previewIdToken(value)).toThrow(InvalidJwtError);
    expect(() => previewIdToken(value)).toThrow(INVALID_JWT_MESSAGE);
    expect(INVALID_JWT_MESSAGE).toBe('JWT provided is invalid');
  });
});
