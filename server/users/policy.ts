import type { WriteAttempt } from '../sync/policy';
import { PRESENCE_MAP, USERS_MAP } from './directory';

/**
 * What browsers may write in the reserved maps. The `users` directory is written only by the server
 * (roles are granted through the admin API, never by an SDK call); in `presence` each person may
 * write only the item keyed by their own identity, and nobody may remove or re-ttl the map itself.
 * Everything else (contacts, holds, calls…) is open to every signed-in person, as the product wants.
 * `isMember` refuses presence writes from a removed user whose Sync token has not expired yet.
 */
export function createWritePolicy(
  isMember: (identity: string) => boolean,
): (attempt: WriteAttempt) => string | null {
  return (attempt) => {
    if (attempt.kind !== 'map') return null;
    if (attempt.name === USERS_MAP) {
      return 'the users directory is kept by the server; admins change roles on the Users screen';
    }
    if (attempt.name !== PRESENCE_MAP) return null;
    if (attempt.target === 'object') return 'the presence map itself cannot be changed';
    if (attempt.target === 'create') return null;
    if (attempt.key !== attempt.identity) return 'you can only set your own presence';
    if (!isMember(attempt.identity)) return 'you are no longer on this team';
    return null;
  };
}
