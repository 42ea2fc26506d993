/**
 * How an admin write that failed is told to the admin who tried it: "The group could not be saved:
 * only admins can do this." A refusal by the contract ({@link WriteRefused}: nothing was sent) keeps
 * its field and reason, so a form can show it beside that field; a refusal by the server (an
 * {@link ApiError}: "300 is already the extension of Ann.") says what the server said.
 */
import { humanMessage, SyncFailure, toSyncFailure } from '../../../contracts/sync-errors';
import { ApiError } from '../../../io/api/client';
import { WriteRefused } from '../core';

/** A write that failed, worded for the admin who tried it. */
export class AdminWriteError extends Error {
  override readonly name = 'AdminWriteError';
}

/** `error` worded after `what` ("The group could not be created"); refusals and worded errors pass. */
export function explain(what: string, error: unknown): Error {
  if (error instanceof AdminWriteError || error instanceof WriteRefused) return error;
  if (error instanceof ApiError)
    return new AdminWriteError(
      error.status === 403 ? `${what}: only admins can do this.` : `${what}: ${error.message}`,
    );
  const failure = error instanceof SyncFailure ? error : toSyncFailure(error);
  if (failure.status === 403) return new AdminWriteError(`${what}: only admins can do this.`);
  return new AdminWriteError(`${what}: ${humanMessage(failure)}`);
}

/** Whether a failure says that the thing is not there (someone else removed it first). */
export const isNotFound = (error: unknown): boolean =>
  error instanceof ApiError
    ? error.status === 404
    : (error instanceof SyncFailure ? error : toSyncFailure(error)).status === 404;
