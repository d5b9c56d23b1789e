import { describe, expect, it } from 'vitest';

import { CommandLineError, parseCommandLine } from '../../src/bot/command-line.js';
import { renderText } from '../../src/bot/render-text.js';
import { notice, pageControls } from '../../src/embeds/index.js';

describe('reading a typed command', () => {
  it('reads group, subcommand and options, with quoted values and numbers', () => {
    expect(parseCommandLine('/stats title_a segments segment:map player:"Ashen Knight" platform:console_a season:2', 'u')).toEqual({
      name: 'stats',
      group: 'title_a',
      subcommand: 'segments',
      options: { segment: 'map', player: 'Ashen Knight', platform: 'console_a', season: 2 },
      userId: 'u',
      last: { name: 'season', value: '2' },
    });
    expect(parseCommandLine("/link title:title_c platform:pc_store_c player:'Nova#2231'", 'u')).toMatchObject({ name: 'link', group: null, subcommand: null, options: { player: 'Nova#2231' } });
  });

  it('refuses unknown commands, options and non-numbers', () => {
    expect(() => parseCommandLine('/nope', 'u')).toThrow(CommandLineError);
    expect(() => parseCommandLine('/stats title_c profile colour:red', 'u')).toThrow('has no option "colour"');
    expect(() => parseCommandLine('/stats title_a segments segment:map season:two', 'u')).toThrow('takes a number');
  });
});

describe('printing a reply', () => {
  it('prints embeds, controls and ephemeral notes as plain text', () => {
    const text = renderText({
      embeds: [{ author: { name: 'Title C · Career' }, title: 'Nova\\_x', description: 'Last played <t:1795197780:R>', fields: [{ name: 'Kills', value: '**12**\n#1 · top 1%', inline: true }], footer: { text: 'Updated just now' } }],
      components: [pageControls('s', 0, 3)!],
      ephemeral: false,
    });
    expect(text).toBe(['┌─ Title C · Career', '│ Nova_x', '│ Last played 2026-11-20 18:03 UTC', '│ Kills: 12  #1 · top 1%', '└─ Updated just now', '[◀ Previous] [1 / 3] [Next ▶*]'].join('\n'));
    expect(renderText(notice('No such player.'))).toBe('(only you can see this)\nNo such player.');
  });
});
