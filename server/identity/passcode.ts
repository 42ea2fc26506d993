import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares in constant time. Both sides are hashed first so neither the content nor the length
 * of the team passcode leaks through timing.
 */
export function passcodeMatches(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
