// Sealed tokens: what the store keeps of a member's grant reads as nothing without the key.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { roleConnectionOf, roleConnectionRecords, tierPlace } from '../../src/verify/linked-roles.js';
import { tokenBox, tokenKeyOf } from '../../src/verify/token-box.js';
import { LADDERS, TITLE_SLUGS } from '../../src/catalog/index.js';

describe('the token box', () => {
  it('opens what it sealed, and refuses a sealed text altered or sealed under another key', () => {
    const box = tokenBox(randomBytes(32));
    const sealed = box.seal('refresh-token-value');
    expect(sealed).not.toContain('refresh-token-value');
    expect(box.open(sealed)).toBe('refresh-token-value');
    // The same text sealed twice differs (a fresh nonce each time).
    expect(box.seal('refresh-token-value')).not.toBe(sealed);
    const parts = sealed.split('.');
    const altered = [...parts.slice(0, 3), `${parts[3]!.slice(0, -2)}AA`].join('.');
    expect(() => box.open(altered)).toThrow();
    expect(() => tokenBox(randomBytes(32)).open(sealed)).toThrow();
  });

  it('reads TOKEN_ENCRYPTION_KEY as 64 hex digits or base64 of 32 bytes, and nothing else', () => {
    const key = randomBytes(32);
    expect(tokenKeyOf(key.toString('hex'))).toEqual(key);
    expect(tokenKeyOf(key.toString('base64'))).toEqual(key);
    expect(tokenKeyOf(key.toString('base64url'))).toEqual(key);
    expect(tokenKeyOf('short')).toBeUndefined();
    expect(tokenKeyOf(randomBytes(16).toString('hex'))).toBeUndefined();
  });
});

describe('Linked Roles', () => {
  it('registers at most five records of Discord’s shape for every title', () => {
    for (const title of TITLE_SLUGS) {
      const records = roleConnectionRecords(title);
      expect(records.length).toBeLessThanOrEqual(5);
      for (const r of records) {
        expect(r.key).toMatch(/^[a-z0-9_]{1,50}$/);
        expect(r.name.length).toBeLessThanOrEqual(100);
        expect(r.description.length).toBeLessThanOrEqual(200);
      }
    }
  });

  it('carries a real answer’s tier as its place on the ladder, and what the career has', () => {
    // A real title_b answer: rankScore with its rankName; Diamond is the sixth tier of the ladder.
    expect(tierPlace('title_b', 'Diamond 1')).toBe(6);
    expect(tierPlace('title_b', 'Apex Predator')).toBeUndefined();
    const stats = {
      rankScore: { value: 11_650, displayValue: '11,650', metadata: { rankName: 'Diamond 1', iconUrl: 'https://example.com/d1.png' } },
      kills: { value: 7_349, displayValue: '7,349', metadata: {} },
      deaths: { value: 3_000, displayValue: '3,000', metadata: {} },
    };
    expect(roleConnectionOf('title_b', stats as never, { platform: 'pc_store_b', handle: 'Rift' })).toEqual({
      platform_name: 'Title B · PC Store B',
      platform_username: 'Rift',
      metadata: { verified: '1', tier: '6', rating: '11650', kd_x100: '245' },
    });
  });
});

describe('the tier numbers server owners make roles from', () => {
  it('are the ladders’ own, one row per title in docs/server-owners.md', () => {
    const doc = readFileSync('docs/server-owners.md', 'utf8');
    for (const title of TITLE_SLUGS) {
      const numbers = LADDERS[title].tiers.map((t, i) => `${i + 1} ${t.name}`).join(', ');
      expect(doc).toMatch(new RegExp(`^\\| ${title} +\\| ${numbers} +\\|$`, 'm'));
    }
  });
});
