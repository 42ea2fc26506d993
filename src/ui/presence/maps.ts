/**
 * @deprecated Object names are the catalogue's (src/contracts/objects.ts: `USERS.name`…). Kept so
 * screens written against these constants still build.
 */
import { HOLDS, PRESENCE, USERS } from '../../contracts/objects';

export const USERS_MAP = USERS.name;
export const PRESENCE_MAP = PRESENCE.name;
export const HOLDS_MAP = HOLDS.name;
