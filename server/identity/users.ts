/**
 * The team: one store over the `users` table of app.db. Sign-in creates a person (the very first of
 * the install becomes admin, later ones agents) or refreshes their name and picture; admins change
 * roles, extensions and who is on the team; a person renames themselves. Refusals are
 * IdentityErrors. The `users` Sync map mirrors this table (directory.ts).
 */
import type { AppDatabase } from './database';
import { extensionTaken, IdentityError, unknownUser } from './errors';
import type { DialledGroup } from '../../src/domain/group';
import { lowestFreeExtension } from './extensions';
import type { Role } from '../../src/contracts/roles';

export interface User {
  identity: string;
  name: string;
  email: string;
  role: Role;
  picture: string | null;
  /** The short number colleagues dial (2 to 6 digits); null only until the server gives one. */
  extension: string | null;
}

export interface SignInProfile {
  /** Already validated and lowercased: it is also the identity. */
  email: string;
  name: string;
  /** Undefined keeps the stored picture (local sign-in has none to offer). */
  picture?: string | null;
}

/** A change that may have changed nothing (the value was already so): the directory skips those. */
export interface Changed {
  user: User;
  changed: boolean;
}

export interface Users {
  get(identity: string): User | null;
  /** Everyone, by identity. */
  list(): User[];
  count(): number;
  /**
   * Creates the person on first sign-in (the very first of the install becomes admin, later ones
   * agents, each with the lowest free extension) or refreshes the name and picture of an existing
   * one, whose role never changes here.
   */
  upsertOnSignIn(profile: SignInProfile, now: number): User;
  /**
   * Sets a person's role; `last_admin` when it would leave the team without an admin. Setting the
   * role they have changes nothing and is not an error.
   */
  setRole(identity: string, role: Role): Changed;
  /** Sets a person's display name (already checked by parseName). */
  rename(identity: string, name: string): Changed;
  /** Deletes the person; their sessions and sign-in keys go with them (ON DELETE CASCADE). */
  remove(identity: string): User;
  /**
   * Sets a person's extension (already checked by parseExtension); `extension_taken`, naming the
   * owner, when it is another person's extension or a group's number.
   */
  setExtension(identity: string, extension: string): Changed;
  /**
   * Gives everyone without an extension the lowest free one (people from before extensions);
   * returns those it changed.
   */
  assignMissingExtensions(): User[];
}

interface Row {
  identity: string;
  name: string;
  email: string;
  role: string;
  picture: string | null;
  extension: string | null;
}

const COLUMNS = 'identity, name, email, role, picture, extension';

function toUser(row: Row): User {
  return {
    identity: row.identity,
    name: row.name,
    email: row.email,
    role: row.role === 'admin' ? 'admin' : 'agent',
    picture: row.picture,
    extension: row.extension,
  };
}

const lastAdmin = (message: string): IdentityError =>
  new IdentityError('conflict', 'last_admin', message);

/**
 * `groupNumbers` gives the ring groups' numbers (normalised), which no extension may be; it is
 * asked inside the transactions that give or change one.
 */
export function createUsers(
  db: AppDatabase,
  groupNumbers: () => readonly DialledGroup[] = () => [],
): Users {
  const one = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM users WHERE identity = ?`);
  const all = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM users ORDER BY identity`);
  const countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users');
  const admins = db.prepare<[], { n: number }>(
    "SELECT COUNT(*) AS n FROM users WHERE role = 'admin'",
  );
  const byExtension = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM users WHERE extension = ?`);
  const extensions = db.prepare<[], { extension: string }>(
    'SELECT extension FROM users WHERE extension IS NOT NULL',
  );
  const withoutExtension = db.prepare<[], Row>(
    `SELECT ${COLUMNS} FROM users WHERE extension IS NULL ORDER BY created_at, identity`,
  );
  const insert = db.prepare<[string, string, string, Role, string | null, string, number]>(
    'INSERT INTO users (identity, name, email, role, picture, extension, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const updateProfile = db.prepare<[string, string | null, string]>(
    'UPDATE users SET name = ?, picture = ? WHERE identity = ?',
  );
  const updateName = db.prepare<[string, string]>('UPDATE users SET name = ? WHERE identity = ?');
  const updateRole = db.prepare<[Role, string]>('UPDATE users SET role = ? WHERE identity = ?');
  const updateExtension = db.prepare<[string, string]>(
    'UPDATE users SET extension = ? WHERE identity = ?',
  );
  const deleteUser = db.prepare<[string]>('DELETE FROM users WHERE identity = ?');

  const existing = (identity: string): User => {
    const row = one.get(identity);
    if (!row) throw unknownUser(identity);
    return toUser(row);
  };
  const takenNumbers = (): Set<string> =>
    new Set<string>([
      ...extensions.all().map((r) => r.extension),
      ...groupNumbers().map((g) => g.number),
    ]);

  // IMMEDIATE takes the write lock before counting, so two first sign-ins racing from two
  // processes cannot both see an empty table and both become admin.
  const upsert = db.transaction((profile: SignInProfile, now: number): User => {
    const row = one.get(profile.email);
    if (row) {
      const picture = profile.picture === undefined ? row.picture : profile.picture;
      if (row.name !== profile.name || row.picture !== picture) {
        updateProfile.run(profile.name, picture, profile.email);
      }
      return toUser({ ...row, name: profile.name, picture });
    }
    const role: Role = (countAll.get()?.n ?? 0) === 0 ? 'admin' : 'agent';
    const picture = profile.picture ?? null;
    const extension = lowestFreeExtension(takenNumbers());
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

  // IMMEDIATE: the admin count and the change happen under the write lock, so two admins demoting
  // each other at once cannot both succeed and leave nobody in charge.
  const setRole = db.transaction((identity: string, role: Role): Changed => {
    const user = existing(identity);
    if (user.role === role) return { user, changed: false };
    if (user.role === 'admin' && (admins.get()?.n ?? 0) <= 1) {
      throw lastAdmin(`${user.name} is the only admin: make someone else an admin first`);
    }
    updateRole.run(role, identity);
    return { user: { ...user, role }, changed: true };
  });

  const remove = db.transaction((identity: string): User => {
    const user = existing(identity);
    if (user.role === 'admin' && (admins.get()?.n ?? 0) <= 1) {
      throw lastAdmin(`${user.name} is the only admin and cannot be removed`);
    }
    deleteUser.run(identity);
    return user;
  });

  const setExtension = db.transaction((identity: string, extension: string): Changed => {
    const user = existing(identity);
    if (user.extension === extension) return { user, changed: false };
    const owner = byExtension.get(extension);
    if (owner) throw extensionTaken(extension, `the extension of ${owner.name}`);
    const group = groupNumbers().find((g) => g.number === extension);
    if (group) throw extensionTaken(extension, `the number of the ring group ${group.name}`);
    updateExtension.run(extension, identity);
    return { user: { ...user, extension }, changed: true };
  });

  const assignMissing = db.transaction((): User[] => {
    const taken = takenNumbers();
    const changed: User[] = [];
    // In the order people joined, so the first on the team gets 100.
    for (const user of withoutExtension.all().map(toUser)) {
      const extension = lowestFreeExtension(taken);
      taken.add(extension);
      updateExtension.run(extension, user.identity);
      changed.push({ ...user, extension });
    }
    return changed;
  });

  return {
    get(identity) {
      const row = one.get(identity);
      return row ? toUser(row) : null;
    },
    list: () => all.all().map(toUser),
    count: () => countAll.get()?.n ?? 0,
    upsertOnSignIn: (profile, now) => upsert.immediate(profile, now),
    setRole: (identity, role) => setRole.immediate(identity, role),
    rename(identity, name) {
      const user = existing(identity);
      if (user.name === name) return { user, changed: false };
      updateName.run(name, identity);
      return { user: { ...user, name }, changed: true };
    },
    remove: (identity) => remove.immediate(identity),
    setExtension: (identity, extension) => setExtension.immediate(identity, extension),
    assignMissingExtensions: () => assignMissing.immediate(),
  };
}
