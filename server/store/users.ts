import { lowestFreeExtension } from '../users/extensions';
import type { AppDatabase } from './db';

export type Role = 'admin' | 'agent';

export interface User {
  identity: string;
  name: string;
  email: string;
  role: Role;
  picture: string | null;
  /** The short number colleagues dial (2 to 6 digits); null only until the server gives one. */
  extension: string | null;
}

export interface UserRow {
  identity: string;
  name: string;
  email: string;
  role: string;
  picture: string | null;
  extension: string | null;
}

export interface SignInProfile {
  /** Already validated and lowercased: it is also the identity. */
  email: string;
  name: string;
  /** Undefined keeps the stored picture (local sign-in has none to offer). */
  picture?: string | null;
}

export interface UserStore {
  get(identity: string): User | null;
  count(): number;
  /**
   * Creates the user on first sign-in (the very first user of the install becomes admin, later
   * ones agents) or refreshes name and picture of an existing one, whose role never changes here.
   */
  upsertOnSignIn(profile: SignInProfile, now: number): User;
}

export const USER_COLUMNS = 'identity, name, email, role, picture, extension';

export function toUser(row: UserRow): User {
  return {
    identity: row.identity,
    name: row.name,
    email: row.email,
    role: row.role === 'admin' ? 'admin' : 'agent',
    picture: row.picture,
    extension: row.extension,
  };
}

/**
 * `groupNumbers` gives the ring groups' numbers (normalised), which a new person's extension must
 * not be; it is asked inside the sign-in transaction.
 */
export function createUserStore(
  db: AppDatabase,
  groupNumbers: () => Iterable<string> = () => [],
): UserStore {
  const byIdentity = db.prepare<[string], UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE identity = ?`,
  );
  const countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users');
  const extensions = db.prepare<[], { extension: string }>(
    'SELECT extension FROM users WHERE extension IS NOT NULL',
  );
  const insert = db.prepare<[string, string, string, Role, string | null, string, number]>(
    'INSERT INTO users (identity, name, email, role, picture, extension, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const updateProfile = db.prepare<[string, string | null, string]>(
    'UPDATE users SET name = ?, picture = ? WHERE identity = ?',
  );

  const get = (identity: string): User | null => {
    const row = byIdentity.get(identity);
    return row ? toUser(row) : null;
  };

  // IMMEDIATE takes the write lock before counting, so two first sign-ins racing from two
  // processes cannot both see an empty table and both become admin.
  const upsert = db.transaction((profile: SignInProfile, now: number): User => {
    const existing = byIdentity.get(profile.email);
    if (existing) {
      const picture = profile.picture === undefined ? existing.picture : profile.picture;
      if (existing.name !== profile.name || existing.picture !== picture) {
        updateProfile.run(profile.name, picture, profile.email);
      }
      return toUser({ ...existing, name: profile.name, picture });
    }
    const role: Role = (countAll.get()?.n ?? 0) === 0 ? 'admin' : 'agent';
    const picture = profile.picture ?? null;
    const taken = new Set<string>([...extensions.all().map((r) => r.extension), ...groupNumbers()]);
    const extension = lowestFreeExtension(taken);
    insert.run(profile.email, profile.name, profile.email, role, picture, extension, now);
    return {
      identity: profile.email,
      name: profile.name,
      email: profile.email,
      role,
      picture,
      extension,
    };
  });

  return {
    get,
    count: () => countAll.get()?.n ?? 0,
    upsertOnSignIn: (profile, now) => upsert.immediate(profile, now),
  };
}
