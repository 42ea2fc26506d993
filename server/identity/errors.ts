/**
 * Identity's refusals: who may not sign in, act or be changed, and why. Stores and sign-in throw
 * these; the platform answers them (server/platform/http/errors.ts, `toHttpError`).
 */
import { DomainError } from '../platform/errors';

export class IdentityError extends DomainError {
  override name = 'IdentityError';
}

export const notSignedIn = (): IdentityError =>
  new IdentityError('unauthenticated', 'unauthenticated', 'Sign in first');

export const notAdmin = (): IdentityError =>
  new IdentityError('forbidden', 'forbidden', 'Only admins may do this');

/** A field a person gave that breaks its rule (a name, an email, an extension, a path's user). */
export const invalidField = (message: string): IdentityError =>
  new IdentityError('invalid', 'bad_request', message);

export const unknownUser = (identity: string): IdentityError =>
  new IdentityError(
    'notFound',
    'not_found',
    `No user ${JSON.stringify(identity).slice(0, 120)} on this team`,
  );

export const extensionTaken = (extension: string, owner: string): IdentityError =>
  new IdentityError('conflict', 'extension_taken', `${extension} is already ${owner}`);
