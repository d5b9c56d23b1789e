import { describe, expect, it } from 'vitest';

import { WarningThrottle } from '../../src/lookup/warning-throttle.js';

describe('a warning that repeats', () => {
  it('goes out at once, then once an interval while it lasts, saying how many alike were left out', () => {
    let now = 1_000;
    const throttle = new WarningThrottle(60_000, () => now);
    expect(throttle.take()).toBe(0);
    for (let i = 0; i < 5; i++) {
      now += 10_000;
      expect(throttle.take()).toBeUndefined();
    }
    now += 9_999;
    expect(throttle.take()).toBeUndefined();
    now += 1;
    expect(throttle.take()).toBe(6);
    // A quiet spell: the next one goes out at once, none left out.
    now += 3_600_000;
    expect(throttle.take()).toBe(0);
  });
});
