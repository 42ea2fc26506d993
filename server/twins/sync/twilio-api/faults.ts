/**
 * The test hook SWITCHBOARD_TEST_SYNC_FAULTS (tests only, never in production): the Sync REST twin
 * refuses requests as a Sync in trouble would, so a test can show what the Twilio-mode server does
 * then (retries, the stale copies, voicemail, the history row written later: issue 24). Its value
 * is the path of a file the twin reads on each request, so a test can change the fault while the
 * server runs:
 *
 * - missing or empty: no fault;
 * - `429 <n>` or `5xx <n>` (e.g. `429 2`): every request is refused with that status on its first
 *   `n` tries and answered on the next (a request is known by its method, path and body, so the
 *   server's retries of one request count together), as a busy Sync answers a client that backs off;
 * - `503` (no count): every request is refused, as a Sync that is down;
 * - `slow <ms>` (e.g. `slow 6000`): every request waits that long, then is carried out and answered,
 *   as a Sync that is slow but working (a client that gave up meanwhile does not undo it);
 * - `webhooks lost`: requests are answered, but the service's webhooks never arrive (a firewall or
 *   proxy in front of the server drops them; Twilio sends each once and does not retry).
 *
 * A 429 is Twilio's 54009 (https://www.twilio.com/docs/api/errors/54009), a 5xx Twilio's 20500-style
 * error of that status. Anything else in the file is a mistake in the test: every request is then
 * refused 500 with a sentence saying so, which the test sees.
 */
import { readFileSync } from 'node:fs';
import { SyncRestError } from '../errors';

type Env = Readonly<Record<string, string | undefined>>;

export interface SyncFaults {
  /** The file read on each request. */
  file: string;
  /** The error this request is refused with, or null to answer it. */
  refusal(method: string, path: string, body: string): SyncRestError | null;
  /** How long every request waits before it is carried out (`slow <ms>`), 0 for none. */
  delayMs(): number;
  /** The webhooks are lost on the way now (`webhooks lost`). */
  webhooksLost(): boolean;
}

const refusedWith = (status: number): SyncRestError =>
  status === 429
    ? new SyncRestError(429, 54009, 'Rate limit exceeded (SWITCHBOARD_TEST_SYNC_FAULTS)')
    : new SyncRestError(
        status,
        20000 + status,
        'Service unavailable (SWITCHBOARD_TEST_SYNC_FAULTS)',
      );

/** The fault the file says now; null for none. */
export function parseFault(
  text: string,
): { status: number; tries: number | null } | { slowMs: number } | { webhooksLost: true } | null {
  const t = text.trim();
  if (t === '') return null;
  if (t === 'webhooks lost') return { webhooksLost: true };
  const slow = /^slow\s+(\d{1,6})$/.exec(t);
  if (slow) return { slowMs: Number(slow[1]) };
  const m = /^(429|5\d\d)(?:\s+(\d{1,3}))?$/.exec(t);
  if (!m) throw new Error(`SWITCHBOARD_TEST_SYNC_FAULTS: cannot read "${t.slice(0, 40)}"`);
  return { status: Number(m[1]), tries: m[2] === undefined ? null : Number(m[2]) };
}

export function createSyncFaults(file: string): SyncFaults {
  /** Tries refused so far, per request, under the fault the file said then. */
  const tries = new Map<string, number>();
  let said = '';
  const read = (): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    file,
    delayMs() {
      try {
        const fault = parseFault(read());
        return fault && 'slowMs' in fault ? fault.slowMs : 0;
      } catch {
        return 0;
      }
    },
    webhooksLost() {
      try {
        const fault = parseFault(read());
        return fault !== null && 'webhooksLost' in fault;
      } catch {
        return false;
      }
    },
    refusal(method, path, body) {
      const text = read();
      if (text !== said) {
        said = text;
        tries.clear();
      }
      let fault: ReturnType<typeof parseFault>;
      try {
        fault = parseFault(text);
      } catch (e) {
        return new SyncRestError(500, 20500, (e as Error).message);
      }
      if (!fault || 'slowMs' in fault || 'webhooksLost' in fault) return null;
      if (fault.tries === null) return refusedWith(fault.status);
      const key = `${method} ${path}\n${body}`;
      const n = tries.get(key) ?? 0;
      if (n >= fault.tries) {
        tries.delete(key);
        return null;
      }
      tries.set(key, n + 1);
      return refusedWith(fault.status);
    },
  };
}

export function syncFaultsFromEnv(env: Env): SyncFaults | null {
  const file = env.SWITCHBOARD_TEST_SYNC_FAULTS?.trim();
  return file ? createSyncFaults(file) : null;
}
