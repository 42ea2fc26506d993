/**
 * Refusals a feature states in its own terms: what kind of refusal it is, the API's error code and a
 * sentence for people. Features throw these (identity's IdentityError, …) and know nothing of HTTP;
 * server/platform/http/errors.ts turns them into answers, in one place.
 */

/**
 * Every error code the API answers with. Clients branch on `code`; `message` is for people.
 */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'origin_mismatch'
  | 'bad_passcode'
  | 'local_sign_in_disabled'
  | 'google_sign_in_disabled'
  | 'invalid_credential'
  | 'email_not_verified'
  | 'upstream_error'
  | 'too_many_attempts'
  | 'last_admin'
  | 'cannot_remove_self'
  | 'extension_taken'
  | 'host_not_allowed'
  | 'not_audio'
  | 'audio_truncated'
  | 'audio_in_use'
  | 'audio_unplayable'
  | 'unknown_language'
  | 'speech_unavailable'
  | 'no_such_call'
  | 'not_your_call'
  | 'not_answered'
  | 'held_by_them'
  | 'unavailable'
  | 'transfer_in_progress'
  | 'no_transfer'
  | 'sign_in_code_required'
  | 'bad_sign_in_code'
  | 'bad_signature'
  | 'group_exists'
  | 'number_taken'
  | 'announcement_in_use'
  | 'announcement_exists'
  | 'no_presence'
  | 'internal_error';

/** What kind of refusal: the platform answers each with its HTTP status. */
export type RefusalKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'notFound'
  | 'conflict'
  | 'tooMany'
  | 'upstream'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: ErrorCode,
    message: string,
    /** When to try again, for `tooMany` and `unavailable`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
