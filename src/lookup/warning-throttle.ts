// One warning an interval at most for a failure that repeats (a store that is down, a wrong key, a
// service that keeps refusing): the operator hears of it at once and again each minute while it
// lasts, with how many alike were left out, and the log is not flooded. The lookup client keeps
// one a kind of failure; the bot one a kind of warning (the feed, the interactions endpoint, direct callbacks).

/** The interval between two warnings of a kind, in ms. */
export const WARNING_INTERVAL_MS = 60_000;

export class WarningThrottle {
  private next = -Infinity;
  private left = 0;

  constructor(
    private readonly intervalMs = WARNING_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether to warn now: how many alike were left out since the last warning (0 the first time), or undefined to stay quiet. */
  take(): number | undefined {
    const now = this.now();
    if (now < this.next) {
      this.left++;
      return undefined;
    }
    const left = this.left;
    this.next = now + this.intervalMs;
    this.left = 0;
    return left;
  }
}
