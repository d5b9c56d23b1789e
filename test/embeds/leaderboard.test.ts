// The server leaderboard's text: places as a reader counts them.
import { describe, expect, it } from 'vitest';

import { leaderboardReply, searchReply, type BoardEntry } from '../../src/embeds/index.js';
import type { Stat } from '../../src/lookup/schemas.js';

const kd = (value: number): Stat => ({
  rank: null,
  percentile: null,
  displayName: 'K/D',
  displayCategory: null,
  category: null,
  metadata: {},
  value,
  displayValue: value.toFixed(2),
  displayType: 'Number',
});
const entry = (userId: string, handle: string, value: number): BoardEntry => ({ userId, handle, stat: kd(value) });
const board = (entries: BoardEntry[], invokerId: string) =>
  leaderboardReply(entries, { title: 'title_c', figure: 'kd', invokerId, notLookedUp: 0 }).embeds[0]!.description!.split('\n');

describe('the leaderboard', () => {
  it('writes its footer and a search’s count so that French and Spanish agree with one or none', () => {
    const footer = (locale: string) =>
      leaderboardReply([entry('u1', 'Ash', 1.5)], { title: 'title_c', figure: 'kd', invokerId: 'u1', notLookedUp: 0, locale }).embeds[0]!.footer!.text;
    expect(footer('en-US')).toBe('Title C · 1 ranked of 1 linked');
    expect(footer('fr')).toBe('Title C · classement : 1 sur 1 (comptes liés)');
    expect(footer('es-ES')).toBe('Title C · en la clasificación: 1 de 1 (cuentas vinculadas)');
    const found = (n: number, locale: string) =>
      searchReply(
        Array.from({ length: n }, (_, i) => ({
          platformId: null,
          platformSlug: 'pc_store_c',
          platformUserIdentifier: `P#${i}`,
          platformUserId: null,
          platformUserHandle: `P#${i}`,
          avatarUrl: null,
          status: null,
          additionalParameters: null,
        })),
        {
          title: 'title_c',
          platform: 'pc_store_c',
          query: 'p',
          meta: { source: 'network', fetchedAt: Date.now(), ageMs: 0 },
          page: 0,
          stateId: 's',
          locale,
        },
      ).embeds[0]!.footer!.text;
    expect([0, 1, 2].map((n) => found(n, 'fr'))).toEqual([
      'Title C · PC Store C · 0 trouvé',
      'Title C · PC Store C · 1 trouvé',
      'Title C · PC Store C · 2 trouvés',
    ]);
    expect([0, 1, 2].map((n) => found(n, 'es-ES'))).toEqual([
      'Title C · PC Store C · 0 encontrados',
      'Title C · PC Store C · 1 encontrado',
      'Title C · PC Store C · 2 encontrados',
    ]);
  });

  it('gives members with the same figure the same place, and the next one the place after them all', () => {
    const lines = board([entry('u1', 'Ash', 1.5), entry('u2', 'Bolt', 1.5), entry('u3', 'Cole', 1.2), entry('u4', 'Dune', 1.0)], 'u2');
    expect(lines.slice(0, 4)).toEqual([
      '🥇 <@u1> **Ash**\u00a0·\u00a01.50',
      '🥇 ▶ <@u2> **Bolt**\u00a0·\u00a01.50',
      '🥉 <@u3> **Cole**\u00a0·\u00a01.20',
      '` 4` <@u4> **Dune**\u00a0·\u00a01.00',
    ]);
  });

  it('names each member beside their handle, with their tier and matches, and counts those under the minimum instead of ranking them', () => {
    const ranked = { ...entry('u1', 'Ash', 1.5), tier: 'Gold 2', matches: 120 };
    const fresh = { ...entry('u2', 'Bolt', 4.0), matches: 3 };
    const r = leaderboardReply([ranked, fresh], { title: 'title_c', figure: 'kd', invokerId: 'u2', notLookedUp: 0, minMatches: 10, locale: 'en' });
    const lines = r.embeds[0]!.description!.split('\n');
    expect(lines[0]).toBe('🥇 <@u1> **Ash**\u00a0·\u00a01.50\u00a0·\u00a0Gold\u00a02\u00a0·\u00a0120\u00a0matches');
    expect(lines).toContain('-# Not ranked: 1 with fewer than 10 matches');
    expect(r.embeds[0]!.description).not.toContain('Bolt');
  });

  it('tells a member tied with the leader, but listed below the top ten, that they share first place', () => {
    const entries = Array.from({ length: 12 }, (_, i) => entry(`u${i}`, `Player${String(i).padStart(2, '0')}`, 2));
    const lines = board(entries, 'u11');
    expect(lines.slice(0, 10).every((l) => l.startsWith('🥇 '))).toBe(true);
    expect(lines).toContain('🥇 ▶ <@u11> **Player11**\u00a0·\u00a02.00');
    expect(lines).toContain('You are **#1** of 12.');
  });
});

describe('the leaderboard with long names', () => {
  it('keeps the invoker’s own place and the unranked count when every name is as long as a link allows', () => {
    const long = (i: number) => `${'_*'.repeat(99)}${String(i).padStart(2, '0')}`;
    const entries: BoardEntry[] = [
      ...Array.from({ length: 12 }, (_, i) => entry(`u${i}`, long(i), 3 - i / 10)),
      { userId: 'p', handle: long(99), missing: 'private' },
    ];
    const reply = leaderboardReply(entries, { title: 'title_c', figure: 'kd', invokerId: 'u11', notLookedUp: 0 });
    const description = reply.embeds[0]!.description!;
    expect(description).toContain('You are **#12** of 12.');
    expect(description).toContain('Not ranked: 1 private');
    expect(description.split('\n').filter((l) => l.includes('**\\_'))).toHaveLength(11);
  });
});

describe('a leaderboard nobody could be ranked on', () => {
  it('says why the linked members are not ranked, not that nobody linked', () => {
    const entries: BoardEntry[] = [
      { userId: 'u1', handle: 'Ash', missing: 'timeout' },
      { userId: 'u2', handle: 'Bolt', missing: 'private' },
    ];
    const description = leaderboardReply(entries, { title: 'title_c', figure: 'kd', invokerId: 'u1', notLookedUp: 0 }).embeds[0]!.description!;
    expect(description).not.toContain('Nobody to rank yet');
    expect(description).toBe('You are not ranked: see below.\n-# Not ranked: 1 not answered in time · 1 private');
  });

  it('says when none of the stats looked up has the figure, and to rank by another', () => {
    const entries: BoardEntry[] = [
      { userId: 'u1', handle: 'Ash', missing: 'no_figure' },
      { userId: 'u2', handle: 'Bolt', missing: 'private' },
    ];
    const description = leaderboardReply(entries, { title: 'title_a', figure: 'healingPerMatch', invokerId: 'u1', notLookedUp: 0 }).embeds[0]!.description!;
    expect(description).toBe(
      'None of the Title A stats looked up has Healing/match: rank by another figure.\n-# Not ranked: 1 without this figure · 1 private',
    );
    // With the figures those profiles have: named, with what to type.
    const withHas: BoardEntry[] = [
      { userId: 'u1', handle: 'Ash', missing: 'no_figure', has: ['kd', 'winRate'] },
      { userId: 'u4', handle: 'Dax', missing: 'no_figure', has: ['kd', 'rating'] },
    ];
    expect(
      leaderboardReply(withHas, { title: 'title_c', figure: 'headshotRate', invokerId: 'u1', notLookedUp: 0 }).embeds[0]!.description!.split('\n')[0],
    ).toBe('None of the Title C profiles looked up has Headshots. Rank by one they have: K/D, Win rate, Rating.');
    // One member with the figure makes a board as always.
    const one = leaderboardReply([...entries, entry('u3', 'Cole', 1.2)], { title: 'title_a', figure: 'kd', invokerId: 'u1', notLookedUp: 0 }).embeds[0]!
      .description!;
    expect(one).not.toContain('None of');
  });

  it('says nobody linked when nobody did', () => {
    const description = leaderboardReply([], { title: 'title_c', figure: 'kd', invokerId: 'u1', notLookedUp: 0 }).embeds[0]!.description!;
    expect(description).toContain('Nobody to rank yet');
    // Once: not also "You are not on this board: /link ... puts you on it" under it.
    expect(description.split('\n')).toHaveLength(1);
    expect(description).not.toContain('not on this board');
  });
});
