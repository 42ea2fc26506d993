/**
 * The one store over the `users` table: sign-in creates or refreshes a person, admins change roles,
 * extensions and the team, and every refusal is an IdentityError (the platform answers it), never
 * an HTTP error of the store's own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppDatabase, type AppDatabase } from '../../../../server/identity/database';
import { IdentityError } from '../../../../server/identity/errors';
import { createUsers, type Users } from '../../../../server/identity/users';
import { removeDir, tempDir } from '../support';

let dir: string;
let db: AppDatabase;
let users: Users;
let groups = [{ id: 'grp-sales', name: 'Sales', number: '101' }];

beforeEach(() => {
  dir = tempDir();
  db = openAppDatabase(dir);
  groups = [{ id: 'grp-sales', name: 'Sales', number: '101' }];
  users = createUsers(db, () => groups);
});
afterEach(() => {
  db.close();
  removeDir(dir);
});

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError);
    const { kind, code, message } = err as IdentityError;
    return { kind, code, message };
  }
  throw new Error('not refused');
};

describe('users', () => {
  it('makes the first person admin and gives each the lowest free extension, past group numbers', () => {
    const ada = users.upsertOnSignIn({ email: 'ada@x.io', name: 'Ada' }, 1);
    const bob = users.upsertOnSignIn({ email: 'bob@x.io', name: 'Bob' }, 2);
    expect([ada.role, ada.extension, bob.role, bob.extension]).toEqual([
      'admin',
      '100',
      'agent',
      '102',
    ]);
    // Signing in again refreshes the name, never the role.
    expect(users.upsertOnSignIn({ email: 'bob@x.io', name: 'Robert' }, 3)).toMatchObject({
      name: 'Robert',
      role: 'agent',
    });
    expect(users.list().map((u) => u.identity)).toEqual(['ada@x.io', 'bob@x.io']);
  });

  it('refuses with IdentityErrors: the last admin, a taken number, someone unknown', () => {
    users.upsertOnSignIn({ email: 'ada@x.io', name: 'Ada' }, 1);
    users.upsertOnSignIn({ email: 'bob@x.io', name: 'Bob' }, 2);
    expect(refusal(() => users.setRole('ada@x.io', 'agent'))).toEqual({
      kind: 'conflict',
      code: 'last_admin',
      message: 'Ada is the only admin: make someone else an admin first',
    });
    expect(refusal(() => users.remove('ada@x.io'))).toMatchObject({ code: 'last_admin' });
    expect(refusal(() => users.setExtension('bob@x.io', '100'))).toEqual({
      kind: 'conflict',
      code: 'extension_taken',
      message: '100 is already the extension of Ada',
    });
    expect(refusal(() => users.setExtension('bob@x.io', '101'))).toMatchObject({
      message: '101 is already the number of the ring group Sales',
    });
    expect(refusal(() => users.rename('eve@x.io', 'Eve'))).toMatchObject({
      kind: 'notFound',
      code: 'not_found',
    });
  });

  it('changes a role, a name and an extension, saying when nothing changed', () => {
    users.upsertOnSignIn({ email: 'ada@x.io', name: 'Ada' }, 1);
    users.upsertOnSignIn({ email: 'bob@x.io', name: 'Bob' }, 2);
    expect(users.setRole('bob@x.io', 'admin').changed).toBe(true);
    expect(users.setRole('bob@x.io', 'admin').changed).toBe(false);
    expect(users.rename('bob@x.io', 'Bobby').user.name).toBe('Bobby');
    expect(users.setExtension('bob@x.io', '250')).toMatchObject({
      changed: true,
      user: { extension: '250' },
    });
    expect(users.remove('ada@x.io').identity).toBe('ada@x.io');
    expect(users.get('ada@x.io')).toBeNull();
  });

  it('gives people from before extensions the lowest free ones, in the order they joined', () => {
    users.upsertOnSignIn({ email: 'bob@x.io', name: 'Bob' }, 1);
    users.upsertOnSignIn({ email: 'ada@x.io', name: 'Ada' }, 2);
    db.prepare('UPDATE users SET extension = NULL').run();
    groups = [{ id: 'grp-sales', name: 'Sales', number: '100' }];
    expect(users.assignMissingExtensions().map((u) => [u.identity, u.extension])).toEqual([
      ['bob@x.io', '101'],
      ['ada@x.io', '102'],
    ]);
  });
});
