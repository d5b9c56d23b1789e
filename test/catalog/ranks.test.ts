import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { LADDERS, TITLE_SLUGS, tierColours, tierOf } from '../../src/catalog/index.js';

describe('rank ladders', () => {
  it('names a rating’s tier with its division, the best division 1, a tier without divisions bare', () => {
    expect(tierOf('title_b', 0)).toEqual({ name: 'Rookie 4', tier: 'Rookie', division: 4 });
    expect(tierOf('title_b', 11_400)).toEqual({ name: 'Diamond 4', tier: 'Diamond', division: 4 });
    expect(tierOf('title_b', 14_999)).toEqual({ name: 'Diamond 1', tier: 'Diamond', division: 1 });
    expect(tierOf('title_b', 15_000)).toEqual({ name: 'Master', tier: 'Master', division: null });
    expect(tierOf('title_b', 1e9).name).toBe('Master');
    expect(tierOf('title_d', 16_874)).toEqual({ name: 'Gold', tier: 'Gold', division: null });
    expect(tierOf('title_c', 2_628).name).toBe('Platinum 4');
    // Below the ladder (a dataset may give a negative rating): its lowest tier.
    expect(tierOf('title_a', -5).tier).toBe('Bronze');
  });

  it('colours an emblem by the tier’s first word, whoever named it, and any other tier grey', () => {
    expect(tierColours('Diamond 1')).toEqual(tierColours('diamond IV'));
    expect(tierColours('Gold 3')).not.toEqual(tierColours('Silver 3'));
    expect(tierColours('Ascendant 2')).toEqual(tierColours('Radiant'));
  });

  it('is documented as it is defined: the stats service page’s table names each title’s keys and tiers', () => {
    const page = readFileSync('docs/stats-service.md', 'utf8');
    const table = page.slice(page.indexOf('| Title   | Rating'));
    for (const title of TITLE_SLUGS) {
      const ladder = LADDERS[title];
      const row = table.split('\n').find((line) => line.startsWith(`| ${title} `));
      expect(row, title).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim());
      expect(cells.slice(2, 5)).toEqual([`\`${ladder.key}\``, `\`${ladder.changeKey}\``, `\`${ladder.tierField}\``]);
      const tiers = [...cells[5]!.matchAll(/([A-Z][a-z]+) (\d+)/g)].map((m) => ({ name: m[1], from: Number(m[2]) }));
      expect(tiers).toEqual(ladder.tiers.map((t) => ({ name: t.name, from: t.from })));
      expect(cells[5]).toContain(ladder.divisions === 0 ? 'no divisions' : `(${ladder.divisions} each)`);
    }
  });
});
