import { HttpError } from '../http/errors';
import type { AppDatabase } from '../store/db';
import type { Role, User } from '../store/users';

/** Admin changes to the team: roles and removal. Sign-in itself stays in store/users.ts. */
export interface TeamStore {
  list(): User[];
  /**
   * Sets a user's role. 404 when the user is unknown; 409 `last_admin` when it would leave the team
   * without an admin. Setting the role a user already has changes nothing and is not an error.
   */
  setRole(identity: string, role: Role): { user: User; changed: boolean };
  /** Sets a user's display name (already checked by parseName). 404 when unknown. */
  rename(identity: string, name: string): { user: User; changed: boolean };
  /** Deletes the user; their sessions go with them (ON DELETE CASCADE). 404 when unknown. */
  remove(identity: string): User;
}

interface Row {
  identity: string;
  name: string;
  email: string;
  role: string;
  picture: string | null;
}

const toUser = (row: Row): User => ({
  identity: row.identity,
  name: row.name,
  email: row.email,
  role: row.role === 'admin' ? 'admin' : 'agent',
  picture: row.picture,
});

const unknownUser = (identity: string): HttpError =>
  new HttpError(404, 'not_found', `No user ${JSON.stringify(identity).slice(0, 120)} on this team`);

export function createTeamStore(db: AppDatabase): TeamStore {
  const all = db.prepare<[], Row>(
    'SELECT identity, name, email, role, picture FROM users ORDER BY identity',
  );
  const one = db.prepare<[string], Row>(
    'SELECT identity, name, email, role, picture FROM users WHERE identity = ?',
  );
  const admins = db.prepare<[], { n: number }>(
    "SELECT COUNT(*) AS n FROM users WHERE role = 'admin'",
  );
  const updateRole = db.prepare<[Role, string]>('UPDATE users SET role = ? WHERE identity = ?');
  const deleteUser = db.prepare<[string]>('DELETE FROM users WHERE identity = ?');
  const updateName = db.prepare<[string, string]>('UPDATE users SET name = ? WHERE identity = ?');

  // IMMEDIATE: the admin count and the change happen under the write lock, so two admins demoting
  // each other at once cannot both succeed and leave nobody in charge.
  const setRole = db.transaction((identity: string, role: Role) => {
    const row = one.get(identity);
    if (!row) throw unknownUser(identity);
    const user = toUser(row);
    if (user.role === role) return { user, changed: false };
    if (user.role === 'admin' && (admins.get()?.n ?? 0) <= 1) {
      throw new HttpError(
        409,
        'last_admin',
        `${user.name} is the only admin: make someone else an admin first`,
      );
    }
    updateRole.run(role, identity);
    return { user: { ...user, role }, changed: true };
  });

  const remove = db.transaction((identity: string) => {
    const row = one.get(identity);
    if (!row) throw unknownUser(identity);
    const user = toUser(row);
    if (user.role === 'admin' && (admins.get()?.n ?? 0) <= 1) {
      throw new HttpError(
        409,
        'last_admin',
        `${user.name} is the only admin and cannot be removed`,
      );
    }
    deleteUser.run(identity);
    return user;
  });

  return {
    list: () => all.all().map(toUser),
    setRole: (identity, role) => setRole.immediate(identity, role),
    rename(identity, name) {
      const row = one.get(identity);
      if (!row) throw unknownUser(identity);
      const user = toUser(row);
      if (user.name === name) return { user, changed: false };
      updateName.run(name, identity);
      return { user: { ...user, name }, changed: true };
    },
    remove: (identity) => remove.immediate(identity),
  };
}
