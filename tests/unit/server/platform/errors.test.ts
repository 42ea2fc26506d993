/** Refusals become answers in one place: a feature's DomainError by its kind, an HttpError as it is. */
import { describe, expect, it } from 'vitest';
import { IdentityError } from '../../../../server/identity/errors';
import { DomainError, type RefusalKind } from '../../../../server/platform/errors';
import { HttpError, toHttpError } from '../../../../server/platform/http/errors';

describe('toHttpError', () => {
  it.each<[RefusalKind, number]>([
    ['invalid', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['notFound', 404],
    ['conflict', 409],
    ['tooMany', 429],
    ['upstream', 502],
    ['unavailable', 503],
  ])('answers a %s refusal %i with its code and message', (kind, status) => {
    const answer = toHttpError(new IdentityError(kind, 'last_admin', 'Ada is the only admin'));
    expect(answer).toMatchObject({ status, code: 'last_admin', message: 'Ada is the only admin' });
    expect(answer?.headers).toEqual({});
  });

  it('says when to try again', () => {
    const answer = toHttpError(new DomainError('tooMany', 'too_many_attempts', 'Wait', 120));
    expect(answer?.headers).toEqual({ 'Retry-After': '120' });
  });

  it('passes an HttpError through and leaves anything else to the caller (a 500)', () => {
    const http = new HttpError(413, 'payload_too_large', 'Too big');
    expect(toHttpError(http)).toBe(http);
    expect(toHttpError(new Error('bug'))).toBeNull();
    expect(toHttpError('bug')).toBeNull();
  });
});
