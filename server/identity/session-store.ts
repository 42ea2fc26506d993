import { createHash, randomBytes } from 'node:crypto';
import type { AppDatabase } from './database';

/** 30 days, in milliseconds. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface SessionRecord {
  identity: string;
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  /** Creates a session and returns the secret token that goes into the cookie. */
  create(identity: string, now: number): { token: string; expiresAt: number };
  /** The live session for a cookie token, or null (unknown, malformed or expired). */
  find(token: string, now: number): SessionRecord | null;
  /** Pushes the expiry to now + TTL; returns the new expiry. */
  extend(token: string, now: number): number;
  delete(token: string): void;
  /**
   * The reference that access tokens minted for this session carry (random, not derived from the token);
   * null when the session is not live.
   */
  refOf(token: string, now: number): string | null;
  /** True while the session with this reference is live and belongs to `identity`. */
  isLive(ref: string, identity: string, now: number): boolean;
  /** True while `identity` has any live session (on any browser). */
  anyLive(identity: string, now: number): boolean;
  /** Drops expired rows; returns how many went. */
  purgeExpired(now: number): number;
}

/** 32 random bytes, base64url: 43 characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Only a SHA-256 of the token is stored, so a copy of app.db (a backup, a support bundle) holds
 * no usable session.
 */
function idOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const newRef = (): string => randomBytes(16).toString('hex');

export function createSessionStore(db: AppDatabase): SessionStore {
  const insert = db.prepare<[string, string, number, number, string]>(
    'INSERT INTO sessions (id, identity, created_at, expires_at, ref) VALUES (?, ?, ?, ?, ?)',
  );
  const select = db.prepare<[string], { identity: string; created_at: number; expires_at: number }>(
    'SELECT identity, created_at, expires_at FROM sessions WHERE id = ?',
  );
  const setExpiry = db.prepare<[number, string]>('UPDATE sessions SET expires_at = ? WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const purge = db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?');
  const selectRef = db.prepare<[string, number], { ref: string | null }>(
    'SELECT ref FROM sessions WHERE id = ? AND expires_at > ?',
  );
  const setRef = db.prepare<[string, string]>(
    'UPDATE sessions SET ref = ? WHERE id = ? AND ref IS NULL',
  );
  const anyLive = db.prepare<[string, number], { one: number }>(
    'SELECT 1 AS one FROM sessions WHERE identity = ? AND expires_at > ? LIMIT 1',
  );
  const live = db.prepare<[string, string, number], { one: number }>(
    'SELECT 1 AS one FROM sessions WHERE ref = ? AND identity = ? AND expires_at > ?',
  );

  return {
    create(identity, now) {
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now + SESSION_TTL_MS;
      insert.run(idOf(token), identity, now, expiresAt, newRef());
      return { token, expiresAt };
    },
    find(token, now) {
      if (!TOKEN_PATTERN.test(token)) return null;
      const row = select.get(idOf(token));
      if (!row || row.expires_at <= now) return null;
      return { identity: row.identity, createdAt: row.created_at, expiresAt: row.expires_at };
    },
    extend(token, now) {
      const expiresAt = now + SESSION_TTL_MS;
      setExpiry.run(expiresAt, idOf(token));
      return expiresAt;
    },
    delete(token) {
      if (TOKEN_PATTERN.test(token)) remove.run(idOf(token));
    },
    refOf(token, now) {
      if (!TOKEN_PATTERN.test(token)) return null;
      const id = idOf(token);
      const row = selectRef.get(id, now);
      if (!row) return null;
      if (row.ref !== null) return row.ref;
      const ref = newRef();
      setRef.run(ref, id);
      return selectRef.get(id, now)?.ref ?? null;
    },
    isLive(ref, identity, now) {
      return live.get(ref, identity, now) !== undefined;
    },
    anyLive(identity, now) {
      return anyLive.get(identity, now) !== undefined;
    },
    purgeExpired(now) {
      return purge.run(now).changes;
    },
  };
}
