import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createClient } from '@keyv/redis';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CommandLineError, parseCommandLine } from '../../src/bot/command-line.js';
import { renderText } from '../../src/bot/render-text.js';
import { notice, pageControls } from '../../src/embeds/index.js';
import { runPreview } from '../helpers/preview.js';
import { startService, type TestService } from '../helpers/service.js';

/**
 * The preview with `args` (`$DIR` a directory of its own), looking up from the demo service this
 * file runs: the same data as the embedded service, without building it for every run.
 */
async function preview(...args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'preview-card-'));
  const run = await runPreview(
    args.map((a) => a.replace('$DIR', dir)),
    { PREVIEW_DB: join(dir, 'preview.sqlite'), LOOKUP_BASE_URL: demo.url },
  );
  return { dir, run };
}

let demo: TestService;
beforeAll(async () => {
  demo = await startService();
});
afterAll(async () => {
  await demo?.close();
});

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
    expect(parseCommandLine("/link title:title_c platform:pc_store_c player:'Nova#2231'", 'u')).toMatchObject({
      name: 'link',
      group: null,
      subcommand: null,
      options: { player: 'Nova#2231' },
    });
  });

  it('refuses unknown commands, options and non-numbers', () => {
    expect(() => parseCommandLine('/nope', 'u')).toThrow(CommandLineError);
    expect(() => parseCommandLine('/stats title_c profile colour:red', 'u')).toThrow('has no option "colour"');
    expect(() => parseCommandLine('/stats title_a segments segment:map season:two', 'u')).toThrow('takes a number');
  });

  it('lists the options a subcommand has beside one it has not, and the subcommands beside a path it lacks', () => {
    const told = (line: string) => {
      try {
        parseCommandLine(line, 'u');
      } catch (e) {
        expect(e).toBeInstanceOf(CommandLineError);
        return (e as Error).message;
      }
      throw new Error(`${line} was taken`);
    };
    expect(told('/stats title_a match platform:pc_store_a match:a-00743')).toBe('"/stats title_a match" has no option "match": its options are id, platform');
    expect(told('/link colour:red')).toBe('"/link" has no option "colour": its options are title, platform, player');
    expect(told('/track off colour:red')).toBe('"/track off" has no option "colour": it takes no options');
    expect(told('/stats title_a mtch id:a-00743')).toBe('"/stats title_a" has no subcommand "mtch": use profile, matches, match, segments, search');
    expect(told('/stats title_z profile')).toBe('"/stats" has no group "title_z": use title_a, title_b, title_c, title_d');
    expect(told('/stats title_c platform:pc_store_c')).toBe('"/stats title_c" needs a subcommand: profile, segments, search');
    expect(told('/link Nova')).toBe('"/link" has no subcommand "Nova": its options, written name:value, are title, platform, player');
  });

  it('says which options a command to run lacks that Discord always sends, and takes them missing while a command is typed', () => {
    expect(() => parseCommandLine('/stats title_b segments platform:pc_store_b player:Wraithling', 'u')).toThrow(
      '"/stats title_b segments" needs segment:… (Discord sends it with this always)',
    );
    expect(() => parseCommandLine('/link player:Nova', 'u')).toThrow('"/link" needs title:… platform:…');
    expect(parseCommandLine('/link title:title_c player:No', 'u', { complete: false })).toMatchObject({ name: 'link', last: { name: 'player', value: 'No' } });
  });
});

describe('the preview command line', () => {
  const FLAGS = ['--autocomplete', '--json', '--card', '--user', '--server', '--admin', '--locale'];

  it('prints its usage with --help, naming every flag on the usage line and below it, and exits 0', async () => {
    const { run } = await preview('--help');
    expect(run.status, run.stderr).toBe(0);
    const [usage = '', ...below] = run.stdout.split('\n');
    expect(usage).toMatch(/^Usage: npm run preview -- /);
    for (const flag of FLAGS) {
      expect(usage, flag).toContain(`[${flag}`);
      expect(
        below.some((l) => l.startsWith(`  ${flag} `)),
        flag,
      ).toBe(true);
    }
    expect(below.some((l) => l.startsWith('  --help '))).toBe(true);
  });

  it('tells an unknown option with the options the subcommand has, and exits 2', async () => {
    const { run } = await preview('/stats title_a match platform:pc_store_a match:a-00743');
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('"/stats title_a match" has no option "match": its options are id, platform');
    expect(run.stdout).toBe('');
  });
});

describe('printing a reply', () => {
  it('prints embeds, controls and ephemeral notes as plain text', () => {
    const text = renderText({
      embeds: [
        {
          author: { name: 'Title C · Career' },
          title: 'Nova\\_x',
          description: 'Last played <t:1795197780:R>',
          fields: [{ name: 'Kills', value: '**12**\n#1 · top 1%', inline: true }],
          footer: { text: 'Updated just now' },
        },
      ],
      components: [pageControls('s', 0, 3)!],
      ephemeral: false,
    });
    expect(text).toBe(
      [
        '┌─ Title C · Career',
        '│ Nova_x',
        '│ Last played 2026-11-20 18:03 UTC',
        '│ Kills: 12  #1 · top 1%',
        '└─ Updated just now',
        '[◀ Previous] [1 / 3] [Next ▶*]',
      ].join('\n'),
    );
    expect(renderText(notice('No such player.'))).toBe('(only you can see this)\nNo such player.');
  });
});

describe('--json', () => {
  it('prints the message JSON the bot sends: a private reply with flags 64, no mentions', async () => {
    const { run } = await preview('--json', '/stats title_c profile platform:pc_store_c player:nobody#0000');
    expect(run.status, run.stderr).toBe(0);
    const { reply } = JSON.parse(run.stdout) as { reply: Record<string, unknown> };
    expect(reply).toMatchObject({ flags: 64, allowed_mentions: { parse: [] }, attachments: [] });
    expect(reply).not.toHaveProperty('ephemeral');
  }, 40_000);
});

describe('--card', () => {
  it('writes the card a command attaches, and the JSON names it as the message sends it', async () => {
    const { dir, run } = await preview('--json', '--card', '$DIR/card.png', '/stats title_b sessions platform:pc_store_b player:Wraithling');
    expect(run.status, run.stderr).toBe(0);
    const png = PNG.sync.read(readFileSync(join(dir, 'card.png')));
    expect([png.width, png.height]).toEqual([640, 500]);
    const reply = (JSON.parse(run.stdout) as { reply: { embeds: { image?: { url: string } }[]; files: { name: string; bytes: number }[] } }).reply;
    expect(reply.embeds[0]?.image?.url).toBe('attachment://card.png');
    expect(reply.files).toEqual([{ name: 'card.png', bytes: expect.any(Number) as unknown }]);
  }, 40_000);

  it('says so when the reply has no card (card:false, or a reply without one)', async () => {
    for (const command of [
      '/stats title_c profile platform:console_a player:Nova card:false',
      '/stats title_c segments segment:hero platform:pc_store_c player:Nova#2231',
    ]) {
      const { run } = await preview('--card', '$DIR/card.png', command);
      expect(run.status, command).toBe(1);
      expect(run.stderr).toContain('This reply has no card');
    }
  }, 60_000);
});

describe("the preview's own store", () => {
  it("keeps links, members and /track settings in PREVIEW_DB between runs, never in the bot's LINKS_DB or in Redis (lookups still cached there)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'preview-store-'));
    const namespace = `preview-${randomUUID()}`;
    const linksDb = join(dir, 'links.sqlite');
    const previewDb = join(dir, 'preview.sqlite');
    const env = { LINKS_DB: linksDb, CACHE_URL: 'redis://127.0.0.1:6379', CACHE_NAMESPACE: namespace, PREVIEW_DB: previewDb, LOOKUP_BASE_URL: demo.url };
    const run = (...args: string[]) => runPreview(args, env);
    const redis = createClient({ url: 'redis://127.0.0.1:6379' });
    await redis.connect();
    try {
      for (const args of [
        ['/link title:title_c platform:pc_store_c player:Nova#2231'],
        ['--admin', '/track channel channel:1180000000000000777'],
        ['/track join title:title_c'],
      ]) {
        const r = await run(...args);
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
      expect(existsSync(linksDb)).toBe(false);
      expect(existsSync(previewDb)).toBe(true);
      // The stores' keys are `<namespace>-links::…`, `<namespace>-feed:…` and the like; the lookup cache's `<namespace>::…`.
      expect(await redis.keys(`${namespace}-*`)).toEqual([]);
      expect((await redis.keys(`${namespace}::*`)).length).toBeGreaterThan(0);
      const profile = await run('/stats title_c profile');
      expect(profile.status, profile.stderr).toBe(0);
      expect(profile.stdout).toContain('│ Nova');
      const status = await run('/track status');
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toContain('1180000000000000777');
      expect(existsSync(linksDb)).toBe(false);
    } finally {
      for (const k of await redis.keys(`${namespace}*`)) await redis.del(k);
      redis.destroy();
    }
  }, 120_000);

  it("refuses a PREVIEW_DB that is the bot's LINKS_DB, naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'preview-same-'));
    const r = await runPreview(['/link title:title_c platform:pc_store_c player:Nova#2231'], {
      LINKS_DB: join(dir, 'links.sqlite'),
      PREVIEW_DB: `${dir}/./links.sqlite`,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      `Configuration: PREVIEW_DB must not be LINKS_DB (${join(dir, 'links.sqlite')}): the preview's made-up links and channels would reach the bot`,
    );
    expect(existsSync(join(dir, 'links.sqlite'))).toBe(false);
  });
});
