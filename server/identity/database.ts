import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type AppDatabase = Database.Database;

/**
 * Schema versions, applied in order inside one transaction each. `PRAGMA user_version` records
 * how many have run, so an existing data folder is upgraded in place and never rebuilt.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
     identity   TEXT PRIMARY KEY,
     name       TEXT NOT NULL,
     email      TEXT NOT NULL,
     role       TEXT NOT NULL CHECK (role IN ('admin', 'agent')),
     picture    TEXT,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE sessions (
     id         TEXT PRIMARY KEY,
     identity   TEXT NOT NULL REFERENCES users(identity) ON DELETE CASCADE,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX sessions_expires_at ON sessions(expires_at);
   CREATE INDEX sessions_identity ON sessions(identity);`,
  // The reference a session's access tokens carry, so that they die with it (sign-out, removal, expiry).
  // Rows from before have none and get one when they next ask for a token.
  `ALTER TABLE sessions ADD COLUMN ref TEXT;
   CREATE UNIQUE INDEX sessions_ref ON sessions(ref);
   CREATE TABLE sign_in_keys (
     hash       TEXT PRIMARY KEY,
     identity   TEXT NOT NULL REFERENCES users(identity) ON DELETE CASCADE,
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX sign_in_keys_identity ON sign_in_keys(identity);`,
  // Each person's extension (unique; NULL until the server gives one: people from before get theirs at
  // startup, see Users.assignMissingExtensions in users.ts).
  `ALTER TABLE users ADD COLUMN extension TEXT;
   CREATE UNIQUE INDEX users_extension ON users(extension);`,
  // Calls in progress while the voice twin runs in this process (server/calls/journal.ts): each
  // one's history row as it would be if the server died now, and when the server was last seen
  // alive with it.
  `CREATE TABLE live_calls (
     id      TEXT PRIMARY KEY,
     row     TEXT NOT NULL,
     seen_at INTEGER NOT NULL
   ) STRICT;`,
];

/**
 * Opens (creating if needed) `<dataDir>/app.db`: WAL so readers never wait for the writer, and
 * synchronous=FULL so a sign-in that answered 200 survives a power cut.
 */
export function openAppDatabase(dataDir: string): AppDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'app.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function migrate(db: AppDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `app.db has schema version ${current}, newer than this server knows (${MIGRATIONS.length}): upgrade the server`,
    );
  }
  MIGRATIONS.slice(current).forEach((sql, i) => {
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${current + i + 1}`);
    })();
  });
}
