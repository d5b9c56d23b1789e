import { describe, expect, it } from 'vitest';

import { madeOnce } from '../../src/embeds/once.js';

describe('madeOnce', () => {
  it('makes a value once per object and key, again for another object or key, and bounds the keys of one object', () => {
    let made = 0;
    const once = madeOnce<object, number>(2);
    const make = () => ++made;
    const a = {};
    expect([once(a, 'en', make), once(a, 'en', make)]).toEqual([1, 1]);
    expect(once({}, 'en', make)).toBe(2);
    expect(once(a, 'de', make)).toBe(3);
    // A third key for the same object starts its keys afresh.
    expect(once(a, 'fr', make)).toBe(4);
    expect(once(a, 'en', make)).toBe(5);
  });
});
