import type { AppDatabase } from './db';

export type Role = 'admin' | 'agent';

export interface User {
  identity: string;
  name: string;
  email: string;
  role: Role;
  picture: string | null;
}

interface UserRow {
  identity: string;
  name: string;
  email: string;
  role: string;
  picture: string | null;
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

function toUser(row: UserRow): User {
  return {
    identity: row.identity,
    name: row.name,
    email: row.email,
    role: row.role === 'admin' ? 'admin' : 'agent',
    picture: row.picture,
  };
}

export function createUserStore(db: AppDatabase): UserStore {
  const byIdentity = db.prepare<[string], UserRow>(
    'SELECT identity, name, email, role, picture FROM users WHERE identity = ?',
  );
  const countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users');
  const insert = db.prepare<[string, string, string, Role, string | null, number]>(
    'INSERT INTO users (identity, name, email, role, picture, created_at) VALUES (?, ?, ?, ?, ?, ?)',
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
    insert.run(profile.email, profile.name, profile.email, role, picture, now);
    return { identity: profile.email, name: profile.name, email: profile.email, role, picture };
  });

  return {
    get,
    count: () => countAll.get()?.n ?? 0,
    upsertOnSignIn: (profile, now) => upsert.immediate(profile, now),
  };
}
