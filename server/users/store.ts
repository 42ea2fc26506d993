import { HttpError } from '../http/errors';
import type { AppDatabase } from '../store/db';
import { toUser, USER_COLUMNS, type Role, type User, type UserRow } from '../store/users';
import { extensionTaken, lowestFreeExtension, type GroupNumber } from './extensions';

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
  /**
   * Sets a user's extension (already checked by parseExtension). 404 when unknown; 409
   * `extension_taken`, naming the owner, when it is another person's extension or a group's number.
   */
  setExtension(
    identity: string,
    extension: string,
    groups: readonly GroupNumber[],
  ): { user: User; changed: boolean };
  /**
   * Gives everyone without an extension the lowest free one (people from before extensions);
   * returns those it changed.
   */
  assignMissingExtensions(groups: readonly GroupNumber[]): User[];
}

type Row = UserRow;

const unknownUser = (identity: string): HttpError =>
  new HttpError(404, 'not_found', `No user ${JSON.stringify(identity).slice(0, 120)} on this team`);

export function createTeamStore(db: AppDatabase): TeamStore {
  const all = db.prepare<[], Row>(`SELECT ${USER_COLUMNS} FROM users ORDER BY identity`);
  const one = db.prepare<[string], Row>(`SELECT ${USER_COLUMNS} FROM users WHERE identity = ?`);
  const byExtension = db.prepare<[string], Row>(
    `SELECT ${USER_COLUMNS} FROM users WHERE extension = ?`,
  );
  const withoutExtension = db.prepare<[], Row>(
    `SELECT ${USER_COLUMNS} FROM users WHERE extension IS NULL ORDER BY created_at, identity`,
  );
  const updateExtension = db.prepare<[string, string]>(
    'UPDATE users SET extension = ? WHERE identity = ?',
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

  const setExtension = db.transaction(
    (identity: string, extension: string, groups: readonly GroupNumber[]) => {
      const row = one.get(identity);
      if (!row) throw unknownUser(identity);
      const user = toUser(row);
      if (user.extension === extension) return { user, changed: false };
      const owner = byExtension.get(extension);
      if (owner) throw extensionTaken(extension, `the extension of ${owner.name}`);
      const group = groups.find((g) => g.number === extension);
      if (group) throw extensionTaken(extension, `the number of the ring group ${group.name}`);
      updateExtension.run(extension, identity);
      return { user: { ...user, extension }, changed: true };
    },
  );

  const assignMissing = db.transaction((groups: readonly GroupNumber[]) => {
    const taken = new Set<string>(groups.map((g) => g.number));
    for (const u of all.all()) if (u.extension !== null) taken.add(u.extension);
    const changed: User[] = [];
    // In the order people joined, so the first on the team gets 100.
    for (const u of withoutExtension.all().map(toUser)) {
      const extension = lowestFreeExtension(taken);
      taken.add(extension);
      updateExtension.run(extension, u.identity);
      changed.push({ ...u, extension });
    }
    return changed;
  });

  return {
    list: () => all.all().map(toUser),
    setExtension: (identity, extension, groups) =>
      setExtension.immediate(identity, extension, groups),
    assignMissingExtensions: (groups) => assignMissing.immediate(groups),
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
