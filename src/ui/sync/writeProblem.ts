import { WriteRefused } from '../../app/mutators/core';
import { humanMessage, SyncFailure } from '../../contracts/sync-errors';

/**
 * Why a write did not happen, for the place the person acted: the field and the reason when its
 * contract refused it (nothing was sent), the service's answer in words otherwise.
 */
export function writeProblem(error: unknown): string {
  if (error instanceof WriteRefused) return error.message;
  if (error instanceof SyncFailure) return humanMessage(error);
  return error instanceof Error ? error.message : String(error);
}
