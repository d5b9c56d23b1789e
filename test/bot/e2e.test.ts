// End to end: the real bot process (`src/bot/main.ts`, as `npm start` runs it) against the local
// Discord double, on the embedded service's demo data. Interactions go in through the gateway;
// the replies are read where the bot sends them, the double's REST API.
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { commands } from '../../commands/index.js';
import { compareHeight } from '../../src/cards/layout.js';
import { ENDPOINTS } from '../../src/catalog/index.js';
import { autocomplete, chatInput, component, startDiscordDouble, type DiscordDouble, type RestCall } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { settled } from '../helpers/interactions.js';

// A token of the right shape; the double accepts it, the bot's configuration check too.
const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.e2e-token-abcdefghijklmnopqrstuvwx';
const OWNER = { id: '1180000000000000401', username: 'owner' };
const OTHER = { id: '1180000000000000402', username: 'other' };

let double: DiscordDouble;
let running: BotProcess;
const output = () => running.output();

beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  running = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl });
  await double.waitForReady(30_000);
  await running.storeLoaded();
}, 40_000);

afterAll(async () => {
  if (running.child.exitCode === null) running.child.kill('SIGKILL');
  await double.close();
});

interface Callback {
  type: number;
  data?: {
    content?: string;
    flags?: number;
    embeds?: {
      title?: string;
      description?: string;
      image?: { url: string };
      author?: { name: string };
      fields?: { name: string; value: string }[];
      footer?: { text: string };
    }[];
    components?: { components: { custom_id?: string; options?: { value: string }[]; label?: string; disabled?: boolean }[] }[];
    choices?: { name: string; value: string }[];
    allowed_mentions?: { parse: string[] };
  };
}

const EPHEMERAL = 64;
const callbackOf = (call: RestCall) => call.body as Callback;
/** Dispatches an interaction and returns the bot's first answer to it (the interaction callback). */
async function send(payload: Parameters<DiscordDouble['dispatchInteraction']>[0]): Promise<{ callback: Callback; call: RestCall; ms: number }> {
  const handle = double.dispatchInteraction(payload);
  const call = await handle.firstResponse(5_000);
  expect(call.path).toMatch(/^\/interactions\/\d+\/[^/]+\/callback$/);
  return { callback: callbackOf(call), call, ms: call.at - handle.dispatchedAt };
}

/** Options that find a demo player for each subcommand. */
const EXAMPLES: Record<string, Record<string, string | number>> = {
  'title_a profile': { platform: 'pc_store_a', player: 'novaplays' },
  'title_a matches': { platform: 'pc_store_a', player: 'novaplays' },
  'title_a match': { platform: 'pc_store_a', id: 'a-00001' },
  'title_a segments': { segment: 'weapon', platform: 'pc_store_a', player: 'novaplays' },
  'title_a search': { query: 'nova', platform: 'pc_store_a' },
  'title_b profile': { platform: 'pc_store_b', player: 'Wraithling' },
  'title_b segments': { segment: 'legend', platform: 'pc_store_c', player: 'Nova#2231' },
  'title_b search': { query: 'W', platform: 'pc_store_b' },
  'title_b sessions': { platform: 'pc_store_b', player: 'Wraithling' },
  'title_c profile': { platform: 'console_a', player: 'Nova' },
  'title_c segments': { segment: 'hero', platform: 'pc_store_c', player: 'Nova#2231' },
  'title_c search': { query: 'nov', platform: 'pc_store_c' },
  'title_d profile': { player: 'novaplays' },
  'title_d segments': { segment: 'map', player: '76561198000000001' },
  'title_d search': { query: 'novaplays' },
};

describe('the bot process against the Discord double', () => {
  it('identifies with no intents and logs that it is ready, never the token', async () => {
    expect((double.identifies[0] as { intents: number }).intents).toBe(0);
    for (let i = 0; i < 50 && !output().includes('"msg":"ready"'); i++) await sleep(100);
    expect(output()).toContain('"msg":"ready"');
    expect(output()).toContain('embedded service');
    expect(output()).not.toContain(TOKEN);
  });

  it('has an example for every subcommand of every title', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(ENDPOINTS.map((e) => `${e.title} ${e.kind}`).sort());
  });

  it.each([
    ['/stats title_c profile', { group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }, 500],
    ['/stats title_b sessions', { group: 'title_b', subcommand: 'sessions', options: { platform: 'pc_store_b', player: 'Wraithling' } }, 500],
    // Eight figures compared: the rating, K/D, win rate, three of title_c's, matches and time played.
    ['/compare', { command: 'compare', options: { title: 'title_c', player: 'Nova#2231', platform: 'pc_store_c', other: 'AtlasJr#6876' } }, compareHeight(8)],
  ] as const)('%s comes with its card: a PNG uploaded as card.png and shown as the embed image', async (_name, input, height) => {
    // The bot's first card starts its worker, which loads its fonts: on a busy machine that takes
    // longer than the answer may wait, and the text goes alone while the card is still drawn and
    // kept. The same command again then finds it.
    let interaction = chatInput({ ...input, user: OWNER });
    let calls = await settled(double.dispatchInteraction(interaction), 15_000, null);
    for (let attempt = 0; attempt < 10 && !calls.some((c) => c.files.length > 0); attempt++) {
      await sleep(500);
      interaction = chatInput({ ...input, user: OWNER });
      calls = await settled(double.dispatchInteraction(interaction), 15_000, null);
    }
    const call = calls.find((c) => c.files.length > 0)!;
    expect(call, JSON.stringify(calls.map((c) => [c.method, c.path]))).toBeDefined();
    const body = call.body as Callback & NonNullable<Callback['data']>;
    const callback = { data: body.data ?? body };
    expect(call.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(call.files).toHaveLength(1);
    const [file] = call.files;
    expect(file?.filename).toBe('card.png');
    // PNG signature, then the IHDR chunk's width and height.
    const head = Buffer.from(file!.head, 'hex');
    expect(head.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect([head.readUInt32BE(16), head.readUInt32BE(20)]).toEqual([640, height]);
    const embed = callback.data?.embeds?.[0];
    expect(embed?.image?.url).toBe('attachment://card.png');
    // The text stays: the reply reads without the picture.
    expect(embed?.title).toBeTruthy();
    // What Discord keeps: the embed image points at the uploaded attachment.
    const original = await fetch(`${double.apiUrl}/v10/webhooks/${double.applicationId}/${interaction.token}/messages/@original`);
    const message = (await original.json()) as { embeds: { image?: { url: string } }[]; attachments: { url: string; filename: string }[] };
    expect(message.attachments.map((a) => a.filename)).toEqual(['card.png']);
    expect(message.embeds[0]?.image?.url).toBe(message.attachments[0]?.url);
  });

  it('answers an autocomplete read behind a burst of commands before most of them: commands take turns', async () => {
    // Warm: the profile is cached, so each command of the burst runs to its REST call without a wait.
    const warm = { group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova', card: false }, user: OWNER } as const;
    await settled(double.dispatchInteraction(chatInput(warm)), 15_000, null);
    const burst = Array.from({ length: 120 }, () => double.dispatchInteraction(chatInput(warm)));
    const typed = double.dispatchInteraction(
      autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: '' }, focused: 'platform', user: OWNER }),
    );
    const answered = (await typed.firstResponse(15_000)).at;
    const firsts = await Promise.all(burst.map(async (h) => (await h.firstResponse(15_000)).at));
    // Started as they came, all 120 would be answered first (they share the gateway connection and
    // never wait on the network); taking turns, the autocomplete is read after a few of them.
    expect(firsts.filter((at) => at < answered).length).toBeLessThan(60);
  });

  it('card:false gives the text reply alone', async () => {
    const { callback, call } = await send(
      chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova', card: false }, user: OWNER }),
    );
    expect(call.files).toEqual([]);
    expect(callback.data?.embeds?.[0]?.image).toBeUndefined();
    expect(callback.data?.embeds?.[0]?.description).toContain('K/D');
    const vs = await send(
      chatInput({
        command: 'compare',
        options: { title: 'title_c', player: 'Nova#2231', platform: 'pc_store_c', other: 'AtlasJr#6876', card: false },
        user: OWNER,
      }),
    );
    expect(vs.call.files).toEqual([]);
    expect(vs.callback.data?.embeds?.[0]?.title).toBe('Nova#2231 vs AtlasJr#6876');
  });

  it.each(Object.entries(EXAMPLES))('/stats %s answers with an embed, directly, pinging no one', async (path, options) => {
    const [group, subcommand] = path.split(' ') as [string, string];
    const { callback } = await send(chatInput({ group, subcommand, options, user: OWNER }));
    expect(callback.type, JSON.stringify(callback).slice(0, 300)).toBe(4);
    expect(callback.data?.flags ?? 0).toBe(0);
    expect(callback.data?.embeds?.length).toBe(1);
    expect(callback.data?.embeds?.[0]?.author?.name).toMatch(/^Title [ABCD] · /);
    expect(callback.data?.allowed_mentions).toEqual({ parse: [] });
  });

  it('answers a missing player and a refused platform with an ephemeral message', async () => {
    const missing = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nobody#0000' } }));
    expect(missing.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(missing.callback.data?.content).toContain('No Title C player');
    const platform = await send(
      chatInput({ group: 'title_b', subcommand: 'segments', options: { segment: 'legend', platform: 'pc_store_b', player: 'Wraithling' } }),
    );
    expect(platform.callback.data?.flags).toBe(EPHEMERAL);
    expect(platform.callback.data?.content).toContain('pc_store_c');
  });

  it('answers a segment type of a thousand emoji with a notice Discord takes (no half emoji where it is cut)', async () => {
    const handle = double.dispatchInteraction(
      chatInput({ group: 'title_d', subcommand: 'segments', options: { segment: '😀'.repeat(1001), player: 'novaplays' } }),
    );
    const calls = await settled(handle, 5_000);
    expect(calls.map((c) => c.status)).toEqual([204]);
    const notice = callbackOf(calls[0]!);
    expect(notice.data?.flags).toBe(EPHEMERAL);
    expect(notice.data?.content).toMatch(/…/);
  });

  it('autocompletes platforms per endpoint, players from search, and segment types', async () => {
    const platforms = async (subcommand: string) =>
      (await send(autocomplete({ group: 'title_b', subcommand, options: {}, focused: 'platform' }))).callback.data?.choices?.map((c) => c.value);
    expect(await platforms('profile')).toEqual(['pc_store_b', 'console_a', 'console_b']);
    expect(await platforms('segments')).toEqual(['pc_store_c', 'console_b', 'console_a']);
    const players = await send(
      autocomplete({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nova#' }, focused: 'player' }),
    );
    expect(players.callback.type).toBe(8);
    expect(players.callback.data?.choices?.map((c) => c.value)).toEqual(['Nova#2231', 'Nova#']);
    const segments = await send(
      autocomplete({ group: 'title_a', subcommand: 'segments', options: { platform: 'pc_store_a', player: 'novaplays', segment: '' }, focused: 'segment' }),
    );
    expect(segments.callback.data?.choices?.map((c) => c.value)).toEqual(['overview', 'playlist', 'gamemode', 'map', 'weapon']);
  });

  it('pages with buttons: the owner’s press updates the message, anyone else gets their own view', async () => {
    const list = await send(chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'novaplays' }, user: OWNER }));
    const rows = list.callback.data?.components ?? [];
    const next = rows.flatMap((r) => r.components).find((c) => c.label === 'Next ▶');
    expect(next?.custom_id).toMatch(/^pg:[\w-]+:1$/);
    const page2 = await send(component({ customId: next!.custom_id!, user: OWNER }));
    expect(page2.callback.type).toBe(7);
    expect(page2.callback.data?.embeds?.[0]?.footer?.text).toContain('page 2');
    const theirs = await send(component({ customId: next!.custom_id!, user: OTHER }));
    expect(theirs.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(theirs.callback.data?.embeds?.[0]?.footer?.text).toContain('page 2');
    const theirNext = theirs.callback.data?.components?.flatMap((r) => r.components).find((c) => c.label === 'Next ▶');
    expect(theirNext?.custom_id).not.toBe(next?.custom_id);
  });

  it('opens a match report from the match list’s menu', async () => {
    const list = await send(chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'novaplays' }, user: OWNER }));
    const menu = list.callback.data?.components?.flatMap((r) => r.components).find((c) => c.custom_id?.startsWith('op:'));
    const matchId = menu?.options?.[0]?.value ?? '';
    const report = await send(component({ customId: menu!.custom_id!, values: [matchId], user: OWNER }));
    expect(report.callback.type).toBe(4);
    expect(report.callback.data?.embeds?.[0]?.author?.name).toBe('Title A · Match report');
    expect(report.callback.data?.embeds?.[0]?.footer?.text).toContain(`Match ${matchId}`);
  });

  it('switches a segments reply in place from its menu: the owner’s message is updated, anyone else gets their own', async () => {
    const maps = await send(
      chatInput({ group: 'title_a', subcommand: 'segments', options: { segment: 'map', platform: 'pc_store_a', player: 'novaplays' }, user: OWNER }),
    );
    const menu = maps.callback.data?.components?.flatMap((r) => r.components).find((c) => c.custom_id?.startsWith('sw:'));
    expect(menu?.options?.map((o) => o.value)).toContain('t:weapon');
    const weapons = await send(component({ customId: menu!.custom_id!, values: ['t:weapon'], user: OWNER }));
    expect(weapons.callback.type).toBe(7);
    expect(weapons.callback.data?.embeds?.[0]?.author?.name).toBe('Title A · Weapons');
    const theirs = await send(component({ customId: menu!.custom_id!, values: ['q:ranked'] }));
    expect(theirs.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(theirs.callback.data?.embeds?.[0]?.author?.name).toBe('Title A · Maps');
  });

  it('says so when controls have expired', async () => {
    const stale = await send(component({ customId: 'pg:gone-state-id:2' }));
    expect(stale.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(stale.callback.data?.content).toContain('expired');
    // A control this bot never made (another version's, or made up) is told the same, not left unanswered.
    const strange = await send(component({ customId: 'zz:not-a-control' }));
    expect(strange.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(strange.callback.data?.content).toContain('expired');
  });

  it('acknowledges a menu sent with nothing picked, leaving the message as it is', async () => {
    const list = await send(chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'novaplays' }, user: OWNER }));
    const menu = list.callback.data?.components?.flatMap((r) => r.components).find((c) => c.custom_id?.startsWith('op:'));
    const empty = await send(component({ customId: menu!.custom_id!, values: [], user: OWNER }));
    expect(empty.callback.type).toBe(6);
  });

  it('links an account and uses it when player is left out', async () => {
    const user = { id: '1180000000000000499', username: 'linker' };
    const none = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user }));
    expect(none.callback.data?.content).toContain('/link');
    const link = await send(chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'nova#2231' }, user }));
    expect(link.callback.data?.embeds?.[0]?.title).toBe('Linked: Nova#2231');
    const mine = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user }));
    expect(mine.callback.data?.embeds?.[0]?.title).toBe('Nova#2231');
  });

  it('ranks the server’s linked members, compares two players, and tells a member what changed since their last look', async () => {
    const ana = { id: '1180000000000000511', username: 'ana' };
    const ben = { id: '1180000000000000512', username: 'ben' };
    await send(chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'Nova#2231' }, user: ana }));
    await send(chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'AtlasJr#6876' }, user: ben }));
    const board = await send(chatInput({ command: 'leaderboard', options: { title: 'title_c', stat: 'kd' }, user: ben }));
    expect(board.callback.data?.embeds?.[0]?.author?.name).toBe('Title C · Server leaderboard');
    const rows = (board.callback.data?.embeds?.[0]?.description ?? '').split('\n');
    expect(rows.findIndex((l) => l.includes('**Nova#2231**'))).toBeGreaterThanOrEqual(0);
    expect(rows.find((l) => l.includes('▶'))).toContain('AtlasJr#6876');
    const dm = await send(chatInput({ command: 'leaderboard', options: { title: 'title_c' }, user: ben, guildId: null }));
    expect(dm.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });

    const vs = await send(chatInput({ command: 'compare', options: { title: 'title_c', player: 'Nova#2231', platform: 'pc_store_c' }, user: ben }));
    expect(vs.callback.data?.embeds?.[0]?.title).toBe('Nova#2231 vs AtlasJr#6876');
    expect(vs.callback.data?.embeds?.[0]?.description).toMatch(/^K\/D · /m);

    const first = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user: ana }));
    expect(first.callback.data?.embeds?.[0]?.description).toContain('Look again later');
    const second = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user: ana }));
    expect(second.callback.data?.embeds?.[0]?.description).toMatch(/\*\*Since your last look\*\* <t:\d+:R>: no new matches\./);
  });

  it('registered nothing by itself: commands come from deploy-commands', () => {
    expect(double.commands.global).toBeNull();
    expect(commands.map((c) => c.data.name)).toEqual(['stats', 'link', 'unlink', 'compare', 'leaderboard', 'track', 'settings']);
  });

  it('resumes after the gateway drops and answers what arrives afterwards', async () => {
    const resumes = double.stats().resumes;
    double.dropConnection('close');
    await sleep(100);
    const after = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }));
    expect(after.callback.type).toBe(4);
    expect(double.stats().resumes).toBe(resumes + 1);
    double.dropConnection('terminate');
    await sleep(100);
    expect((await send(chatInput({ group: 'title_d', subcommand: 'profile', options: { player: 'novaplays' } }))).callback.type).toBe(4);
  });

  it('never answers an interaction twice', () => {
    const callbacks = double.restCalls.filter((c) => c.path.endsWith('/callback'));
    expect(callbacks.every((c) => c.status === 200 || c.status === 204)).toBe(true);
  });

  it('on SIGTERM answers what is in flight, then exits cleanly', async () => {
    const inflight = double.dispatchInteraction(
      chatInput({ group: 'title_b', subcommand: 'sessions', options: { platform: 'pc_store_b', player: 'Wraithling' } }),
    );
    running.child.kill('SIGTERM');
    const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
    expect((await inflight.firstResponse(5_000)).status).toBeLessThan(300);
    const started = performance.now();
    expect(await exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await running.printed('"msg":"stopped"')).toContain('"msg":"stopped"');
    expect(output()).not.toContain(TOKEN);
  });
});
