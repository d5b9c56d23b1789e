// Every language file against the English one: the same texts, the same places for values, within
// Discord's limits; the command tree localized everywhere and accepted by the double's checks; and
// the replies in the reader's language with no English left in them.
import { beforeAll, describe, expect, it } from 'vitest';

import { commands } from '../../commands/index.js';
import {
  compareReply,
  errorReply,
  leaderboardReply,
  matchReportReply,
  matchesReply,
  profileReply,
  searchReply,
  segmentsReply,
  sessionsReply,
  sinceLines,
} from '../../src/embeds/index.js';
import { DISCORD_LOCALES, LANGUAGES, commandLine, en, enCommands, languageOf, say, sayCount, type TextKey } from '../../src/locales/index.js';
import { commandListErrors } from '../discord-double/validate.js';
import type { LookupMeta } from '../../src/lookup/client.js';
import { lookupError } from '../../src/lookup/errors.js';
import { servicePayloads, type Payloads } from '../helpers/payloads.js';

const OTHERS = Object.keys(DISCORD_LOCALES) as (keyof typeof DISCORD_LOCALES)[];
const placesOf = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const KEYS = Object.keys(en) as TextKey[];

describe('the language files', () => {
  it('joins a value that opens a German compound to it whole, but not text quoted as code', () => {
    expect(say('de', 'unlink.none', { title: 'Title C' })).toBe('Du hattest kein Title-C-Konto verknüpft.');
    expect(say('de', 'segments.noType.other', { title: 'Title A', type: '`wea pon`', list: 'x' })).toBe(
      'Title A hat keine `wea pon`-Segmente. Wähle eines davon: x.',
    );
    // Elsewhere a value is what it was.
    expect(say('en', 'unlink.none', { title: 'Title C' })).toContain('Title C');
  });

  it.each(OTHERS)('%s has every English text, no other, with the same places for values', (language) => {
    const texts = LANGUAGES[language].texts;
    expect(Object.keys(texts).sort()).toEqual([...KEYS].sort());
    for (const key of KEYS) {
      expect(texts[key].trim(), `${language} ${key}`).not.toBe('');
      expect(placesOf(texts[key]), `${language} ${key}`).toEqual(placesOf(en[key]));
    }
    const commandsOf = LANGUAGES[language].commands;
    expect(Object.keys(commandsOf.names).sort()).toEqual(Object.keys(enCommands.names).sort());
    expect(Object.keys(commandsOf.descriptions).sort()).toEqual(Object.keys(enCommands.descriptions).sort());
    for (const [key, template] of Object.entries(enCommands.descriptions))
      expect(placesOf(commandsOf.descriptions[key as keyof typeof enCommands.descriptions]), `${language} ${key}`).toEqual(placesOf(template));
  });

  it.each(['en', ...OTHERS] as const)('%s fits where the texts go: table headings, buttons, menus, embed titles', (language) => {
    const texts = LANGUAGES[language].texts;
    for (const key of KEYS) {
      const text = texts[key];
      // A segment table keeps its columns on a phone: headings of 5, a first heading of 10.
      if (key.startsWith('column.')) expect(text.length, key).toBeLessThanOrEqual(5);
      if (/^segment\.\w+\.one$/.test(key)) expect(text.length, key).toBeLessThanOrEqual(10);
      // Buttons: Discord takes 80; a row of three has to read on a phone.
      if (key.startsWith('controls.') || key.startsWith('go.')) expect(text.length, key).toBeLessThanOrEqual(20);
      if (key.startsWith('figure.')) expect(text.length, key).toBeLessThanOrEqual(25);
      // Menus' placeholders (150), embed authors and titles (256), notices (2,000): far under.
      expect(text.length, key).toBeLessThanOrEqual(400);
    }
  });

  it('picks the language by Discord locale and falls back to English', () => {
    expect(languageOf('de')).toBe('de');
    expect(languageOf('es-419')).toBe('es');
    expect(languageOf('es-ES')).toBe('es');
    expect(languageOf('pt-BR')).toBe('pt-BR');
    expect(languageOf('fr')).toBe('fr');
    expect(languageOf('ja')).toBe('en');
    expect(languageOf(undefined)).toBe('en');
    expect(say('ko', 'bot.expired')).toBe(en['bot.expired']);
    expect(say('de', 'matches.page', { n: 2 })).toBe('Seite 2');
  });

  it('says counts in each language’s forms', () => {
    expect(sayCount('en', 'sessions.matches', 1)).toBe('1 match');
    expect(sayCount('en', 'sessions.matches', 0)).toBe('0 matches');
    // French counts 0 and 1 alike.
    expect(sayCount('fr', 'sessions.matches', 0)).toBe('0 partie');
    expect(sayCount('fr', 'sessions.matches', 2)).toBe('2 parties');
    expect(sayCount('de', 'since.matches', 1_234, {}, '1.234')).toBe('+1.234 Spiele');
  });

  it('writes command lines with the reader’s command and option names', () => {
    // Placeholders in the reader's words; values as they are.
    expect(commandLine('de', '/link title:title_c platform:<platform> player:<name>')).toBe('/verknüpfen titel:title_c plattform:<Plattform> spieler:<Name>');
    expect(commandLine('es-ES', '/link title:title_c platform:<platform> player:<name>')).toBe(
      '/vincular título:title_c plataforma:<plataforma> jugador:<nombre>',
    );
    expect(commandLine('en-US', '/link title:title_c player:<name>')).toBe('/link title:title_c player:<name>');
    expect(commandLine('de', '/stats title_c profile player:<anything>')).toBe('/statistik title_c profil spieler:<anything>');
    expect(commandLine('en-US', '/stats title_c profile')).toBe('/stats title_c profile');
    expect(commandLine('pt-BR', '/stats title_c profile')).toBe('/estatísticas title_c perfil');
  });
});

describe('the command tree', () => {
  const tree = commands.map((c) => c.data);
  type Choice = { name: string; value: string | number; name_localizations?: Record<string, string> };
  type Node = {
    name: string;
    description?: string;
    name_localizations?: Record<string, string>;
    description_localizations?: Record<string, string>;
    options?: Node[];
    choices?: Choice[];
  };

  it('names and describes every command, option and choice in every language', () => {
    const missing: string[] = [];
    const walk = (node: Node, path: string) => {
      for (const language of OTHERS)
        for (const locale of DISCORD_LOCALES[language]) {
          // The title groups keep their slugs in every language: they are what the titles are called.
          if (!/^title_[a-d]$/.test(node.name) && !node.name_localizations?.[locale]) missing.push(`${path} name ${locale}`);
          if (node.description && !node.description_localizations?.[locale]) missing.push(`${path} description ${locale}`);
          // Titles are called by their names in every language, as their groups are.
          for (const c of node.choices ?? [])
            if (!/^title_[a-d]$/.test(String(c.value)) && !c.name_localizations?.[locale]) missing.push(`${path} choice ${c.value} ${locale}`);
        }
      for (const o of node.options ?? []) walk(o, `${path} ${o.name}`);
    };
    for (const command of tree as unknown as Node[]) walk(command, `/${command.name}`);
    expect(missing).toEqual([]);
  });

  it('passes the checks Discord makes of localized names and descriptions', () => {
    expect(commandListErrors(tree)).toEqual([]);
    const stats = tree.find((c) => c.name === 'stats')!;
    expect(stats.name_localizations?.de).toBe('statistik');
    expect(stats.description_localizations?.['pt-BR']).toBe('Estatísticas de jogadores de Title A, B, C e D');
  });

  it('is refused by the double when a localized name breaks Discord’s rules', () => {
    const bad = structuredClone(tree);
    bad[0]!.name_localizations = { de: 'Statistik' };
    expect(commandListErrors(bad).map((e) => e.code)).toEqual(['APPLICATION_COMMAND_INVALID_NAME']);
    const twice = structuredClone(tree);
    const sub = (twice[0]!.options![0] as unknown as Node).options!;
    sub[1]!.name_localizations = { ...sub[1]!.name_localizations, de: sub[0]!.name_localizations!.de! };
    expect(commandListErrors(twice).map((e) => e.code)).toContain('APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS');
  });
});

describe('replies in the reader’s language', () => {
  let fixtures: Partial<Payloads> = {};
  beforeAll(async () => {
    fixtures = await servicePayloads();
  });
  const meta: LookupMeta = { source: 'network', fetchedAt: Date.now(), ageMs: 0 };
  const stale: LookupMeta = { ...meta, source: 'stale', staleBecause: lookupError('timeout', 'slow') };
  const earlier = { at: '2026-11-01T10:00:00Z', platform: 'pc_store_a', identifier: 'a', matches: 10, wins: 5, kd: 1.2, winRate: 50 };
  const later = { ...earlier, at: '2026-11-01T12:00:00Z', matches: 12, wins: 6, kd: 1.3, winRate: 50 };
  /** Every reply builder, in one language. */
  const replies = (locale: string) => [
    profileReply(fixtures.profile!, 'title_a', stale, { locale, since: [...sinceLines(earlier, later, locale), ...sinceLines(undefined, later, locale)] }),
    matchReportReply(fixtures.report!, 'title_a', meta, { locale }),
    searchReply(fixtures.search!, { title: 'title_c', platform: 'pc_store_c', query: 'ember', meta, page: 0, stateId: 's', locale }),
    searchReply([], { title: 'title_c', platform: 'pc_store_c', query: 'zz', meta, page: 0, stateId: 's', locale }),
    segmentsReply(fixtures.segments!, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Nova',
      type: 'map',
      filter: {},
      meta,
      page: 0,
      stateId: 's',
      locale,
    }),
    matchesReply(fixtures.matches!.matches, { title: 'title_a', platform: 'pc_store_a', player: 'Nova', meta, page: 0, hasMore: true, stateId: 's', locale }),
    sessionsReply(fixtures.sessions!.items, { title: 'title_b', platform: 'pc_store_b', player: 'Wraithling', meta, page: 0, stateId: 's', locale }),
    compareReply('title_a', { profile: fixtures.profile!, meta }, { profile: fixtures.profile!, meta }, locale),
    leaderboardReply([], { title: 'title_a', figure: 'kd', invokerId: 'u', notLookedUp: 0, locale }),
    errorReply(lookupError('not_found', 'x', { code: 'PlayerNotFound' }), { title: 'title_a', player: 'Nobody', locale }),
    errorReply(lookupError('private', 'x'), { title: 'title_a', player: 'Nobody', locale }),
    errorReply(lookupError('rate_limited', 'x', { retryAfterMs: 1_000 }), { title: 'title_a', locale }),
    errorReply(lookupError('unavailable', 'x'), { title: 'title_a', locale }),
    errorReply(lookupError('unavailable', 'x', { code: 'ServiceLoading' }), { title: 'title_a', locale }),
  ];
  const textOf = (r: ReturnType<typeof replies>[number]) => JSON.stringify([r.content, r.embeds, r.components]);

  it.each(OTHERS)('%s leaves no English fixed text in a reply', (language) => {
    const locale = DISCORD_LOCALES[language][0]!;
    const texts = LANGUAGES[language].texts;
    // The English texts this language says differently, cut at their values: each piece long
    // enough to be a phrase (not "K/D") must not show up.
    const english = KEYS.filter((k) => texts[k] !== en[k])
      .flatMap((k) => en[k].split(/\{\w+\}/))
      .map((p) => p.trim())
      .filter((p) => p.length >= 12);
    const shown = replies(locale).map(textOf).join('\n');
    expect(english.filter((p) => shown.includes(p))).toEqual([]);
    expect(shown).not.toMatch(/\{\w+\}/);
  });

  it('answers English readers as before', () => {
    const shown = replies('en-US').map(textOf).join('\n');
    expect(shown).toContain('Title A · Career');
    expect(shown).toContain('The stats service is busy right now. Try again in 1 second.');
  });
});
