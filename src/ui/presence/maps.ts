/** The Sync maps the team screens share (names match server/users/directory.ts). */
export const USERS_MAP = 'users';
export const PRESENCE_MAP = 'presence';
export const HOLDS_MAP = 'holds';
