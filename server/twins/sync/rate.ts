/** A token bucket: `take()` is true while the rate allows, and counts refusals in a row. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  /** Refusals since the last allowed take. */
  refusedInARow = 0;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = clock();
  }

  take(): boolean {
    const now = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.refusedInARow = 0;
      return true;
    }
    this.refusedInARow += 1;
    return false;
  }
}
