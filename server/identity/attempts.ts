/**
 * Counts failed passcode attempts per client address in a fixed window, so a team passcode on a
 * public address cannot be guessed at network speed. In memory: a restart forgives, which is fine
 * for a limit measured in minutes.
 */
export interface AttemptLimiter {
  /** Seconds until this client may try again, or 0 when it may try now. */
  retryAfter(client: string, now: number): number;
  recordFailure(client: string, now: number): void;
  recordSuccess(client: string): void;
}

export interface AttemptLimits {
  maxFailures: number;
  windowMs: number;
}

export const PASSCODE_LIMITS: AttemptLimits = { maxFailures: 10, windowMs: 15 * 60 * 1000 };

export function createAttemptLimiter(limits: AttemptLimits = PASSCODE_LIMITS): AttemptLimiter {
  const failures = new Map<string, { count: number; since: number }>();

  const prune = (now: number): void => {
    for (const [client, entry] of failures) {
      if (now - entry.since >= limits.windowMs) failures.delete(client);
    }
  };

  return {
    retryAfter(client, now) {
      const entry = failures.get(client);
      if (!entry || entry.count < limits.maxFailures) return 0;
      const left = entry.since + limits.windowMs - now;
      if (left <= 0) {
        failures.delete(client);
        return 0;
      }
      return Math.ceil(left / 1000);
    },
    recordFailure(client, now) {
      // Bounded memory under a flood of distinct addresses.
      if (failures.size > 10_000) prune(now);
      const entry = failures.get(client);
      if (!entry || now - entry.since >= limits.windowMs) {
        failures.set(client, { count: 1, since: now });
      } else {
        entry.count += 1;
      }
    },
    recordSuccess(client) {
      failures.delete(client);
    },
  };
}
