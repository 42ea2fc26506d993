/**
 * `bytes` random bytes as lowercase hex (twice as many digits), from `crypto.getRandomValues`, not
 * `crypto.randomUUID`, which plain-http LAN pages lack.
 */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}
