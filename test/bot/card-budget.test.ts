import { describe, expect, it } from 'vitest';

import { DEFERRED_CARD_BY_MS, DIRECT_CARD_BY_MS, DIRECT_REPLY_BUDGET_MS, cardWaitMs } from '../../src/bot/router.js';

describe('how long an answer waits for its card', () => {
  it('keeps a quick answer direct: the card gets until just before the direct-reply budget', () => {
    expect(DIRECT_CARD_BY_MS).toBeLessThan(DIRECT_REPLY_BUDGET_MS);
    expect(cardWaitMs(0)).toBe(DIRECT_CARD_BY_MS);
    expect(cardWaitMs(650)).toBe(DIRECT_CARD_BY_MS - 650);
    // Past that point, while the answer could still go out directly, no card is waited for at all.
    expect(cardWaitMs(DIRECT_CARD_BY_MS + 50)).toBeLessThanOrEqual(0);
  });

  it('gives a deferred answer only what is left of its budget, and nothing once it is spent', () => {
    expect(cardWaitMs(1_000)).toBe(DEFERRED_CARD_BY_MS - 1_000);
    expect(cardWaitMs(DEFERRED_CARD_BY_MS)).toBe(0);
    expect(cardWaitMs(4_000)).toBeLessThan(0);
  });
});
