import { humanMessage, type SyncFailure } from '../../contracts/sync-errors';
import type { SyncAvailability } from './SyncProvider';

/**
 * Why a screen's synced data is not there, as an alert: the sync runtime could not start, the
 * container was removed (reloading starts a new one, so no retry is offered), or it failed to open
 * or to fetch a page, with a "Try again" button when the screen has an actor to retry.
 */
export function LoadFailure({
  availability,
  what,
  error,
  removed = null,
  onRetry,
  testId,
}: {
  availability: SyncAvailability;
  /** What could not be loaded, as the sentence starts: "Calls", "The team"... */
  what: string;
  error: SyncFailure | null;
  /** The message when the container was removed; null while it exists. */
  removed?: string | null;
  onRetry: (() => void) | null;
  testId?: string;
}) {
  const message =
    availability.state === 'failed'
      ? availability.error
      : (removed ??
        `${what} could not be loaded: ${error ? humanMessage(error) : 'unknown error'}`);
  return (
    <div className="form-error" role="alert" {...(testId ? { 'data-testid': testId } : {})}>
      {message}{' '}
      {onRetry && removed === null && (
        <button type="button" className="button button--quiet" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
