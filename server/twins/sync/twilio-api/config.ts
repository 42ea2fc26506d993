/** The Sync twin's test hooks read from its environment. */

type Env = Readonly<Record<string, string | undefined>>;

const set = (v: string | undefined): string | null =>
  v !== undefined && v.trim() !== '' ? v.trim() : null;

/**
 * The test hook SWITCHBOARD_TEST_SYNC_DELAY_MS (tests and benchmarks only, never in production): the
 * Sync REST twin answers every read (GET) this many ms late, as a slow Sync would. 0 when unset;
 * anything but a whole number of ms up to 10 000 stops the server.
 */
export function syncReadDelayFromEnv(env: Env): number {
  const raw = set(env.SWITCHBOARD_TEST_SYNC_DELAY_MS);
  if (raw === null) return 0;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 10_000)
    throw new Error('SWITCHBOARD_TEST_SYNC_DELAY_MS must be a whole number of ms, 0 to 10000');
  return Number(raw);
}
