/**
 * Why a change to a live call was refused, as the page shows it: an HTTP status, a stable code and
 * a sentence (hold, park, transfer, quality reports), and what a colleague is told when a parked
 * call cannot be picked up.
 */

/** Why a hold, resume, park or transfer was refused: an HTTP status, a stable code and a sentence. */
export class CallControlError extends Error {
  constructor(
    readonly status: number,
    readonly code:
      | 'no_such_call'
      | 'not_your_call'
      | 'not_answered'
      | 'held_by_them'
      | 'bad_request'
      | 'not_found'
      | 'unavailable'
      | 'transfer_in_progress'
      | 'no_transfer',
    message: string,
  ) {
    super(message);
  }
}

/** A pick-up refused: someone else took the call first. */
export const TAKEN_SENTENCE = 'A colleague already picked up this call.';
/** A pick-up refused: the caller hung up while parked. */
export const GONE_SENTENCE = 'This call is no longer on hold: the caller hung up.';
