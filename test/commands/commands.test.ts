// The command tree, and the handlers run against the real service (embedded on the small dataset).
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { APIApplicationCommandOption } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { setTimeout as sleep } from 'node:timers/promises';

import {
  StoreUnavailableError,
  commands,
  findCommand,
  goFromView,
  openFromView,
  renderView,
  stats,
  switchFromView,
  type Deps,
  type LinkStore,
} from '../../commands/index.js';
import { matchesView } from '../../commands/matches.js';
import { shownName } from '../../commands/onward.js';
import { searchChoices } from '../../commands/choices.js';
import { memoryLogger } from '../helpers/lookup.js';
import { COMMAND_DEADLINE_MS } from '../../commands/types.js';
import { lookupError } from '../../src/lookup/errors.js';
import { parseCustomId } from '../../src/embeds/index.js';
import { messageErrors } from '../discord-double/validate.js';
import { ENDPOINTS, TITLES, TITLE_SLUGS, type PlatformSlug, type TitleSlug } from '../../src/catalog/index.js';
import { createLookupCache } from '../../src/lookup/cache.js';
import { LookupClient } from '../../src/lookup/client.js';
import { createBotStores, type BotStores } from '../../src/bot/stores.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startService, type TestService } from '../helpers/service.js';

let service: TestService;
let stores: BotStores;
let deps: Deps;
let linksPath: string;

beforeAll(async () => {
  service = await startService(smallLines());
  linksPath = join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite');
  stores = await createBotStores({ namespace: 'test', linksPath });
  deps = {
    lookup: new LookupClient({ baseUrl: service.url, cache: await createLookupCache() }),
    links: stores.links,
    views: stores.views,
    snapshots: stores.snapshots,
    members: stores.members,
    logger: pino({ level: 'silent' }),
  };
});
afterAll(async () => {
  await stores.close();
  await deps.lookup.close();
  await service.close();
});

const input = (group: string, subcommand: string, options: Record<string, string | number> = {}, userId = 'u1') => ({
  name: 'stats',
  group,
  subcommand,
  options,
  userId,
});
const focus = (group: string, subcommand: string, options: Record<string, string | number>, focused: string, userId = 'u1') => ({
  ...input(group, subcommand, options, userId),
  focused: { name: focused, value: String(options[focused] ?? '') },
});
const textOf = (r: { content?: string; embeds: { title?: string; description?: string; fields?: { name: string; value: string }[] }[] }) =>
  [r.content ?? '', ...r.embeds.flatMap((e) => [e.title ?? '', e.description ?? '', ...(e.fields ?? []).flatMap((f) => [f.name, f.value])])].join('\n');

describe('the command tree', () => {
  it('is pinned', async () => {
    await expect(
      JSON.stringify(
        commands.map((c) => c.data),
        null,
        2,
      ),
    ).toMatchFileSnapshot('../fixtures/commands.json');
  });

  it('has a subcommand group per title with the subcommands of its endpoints', () => {
    const groups = Object.fromEntries((stats.data.options ?? []).map((g) => [g.name, 'options' in g ? (g.options ?? []).map((s) => s.name) : []]));
    expect(groups).toEqual({
      title_a: ['profile', 'matches', 'match', 'segments', 'search'],
      title_b: ['profile', 'segments', 'search', 'sessions'],
      title_c: ['profile', 'segments', 'search'],
      title_d: ['profile', 'segments', 'search'],
    });
    expect(commands.map((c) => c.data.name)).toEqual(['stats', 'link', 'unlink', 'compare', 'leaderboard', 'track', 'settings']);
  });

  it('is registered for server and user installs, usable in servers, the bot’s DMs and group DMs', () => {
    for (const c of commands) {
      expect(c.data.integration_types, c.data.name).toEqual([0, 1]);
      expect(c.data.contexts, c.data.name).toEqual([0, 1, 2]);
    }
  });

  it('keeps names unique and within Discord’s rules at every level', () => {
    const walk = (options: readonly APIApplicationCommandOption[] | undefined, where: string) => {
      const names = (options ?? []).map((o) => o.name);
      expect(new Set(names).size, where).toBe(names.length);
      expect(names.length, where).toBeLessThanOrEqual(25);
      for (const o of options ?? []) {
        expect(o.name, where).toMatch(/^[-_\p{Ll}\p{N}]{1,32}$/u);
        expect(o.description.length, `${where} ${o.name}`).toBeGreaterThan(0);
        expect(o.description.length, `${where} ${o.name}`).toBeLessThanOrEqual(100);
        if ('options' in o) walk(o.options, `${where} ${o.name}`);
      }
    };
    for (const c of commands) walk(c.data.options, c.data.name);
  });

  it('marks platform, player, segment, query and id for autocomplete, with queue and season on title_a segments only', () => {
    for (const g of stats.data.options ?? []) {
      if (!('options' in g)) continue;
      for (const sub of g.options ?? []) {
        if (!('options' in sub)) continue;
        const byName = Object.fromEntries((sub.options ?? []).map((o) => [o.name, o]));
        for (const name of ['platform', 'player', 'segment', 'query', 'id'])
          if (byName[name]) expect(byName[name], `${g.name} ${sub.name} ${name}`).toMatchObject({ autocomplete: true });
        const hasFilters = g.name === 'title_a' && sub.name === 'segments';
        expect('queue' in byName, `${g.name} ${sub.name}`).toBe(hasFilters);
        expect('season' in byName, `${g.name} ${sub.name}`).toBe(hasFilters);
      }
    }
  });
});

describe('handlers', () => {
  it('answers a profile', async () => {
    const r = await stats.execute(input('title_a', 'profile', { platform: 'pc_store_a', player: 'ashplays' }), deps);
    expect(r.ephemeral).toBe(false);
    expect(r.embeds[0]?.title).toBe('Ash');
    expect(textOf(r)).toContain('K/D');
  });

  it('says what to type when there is neither a player nor a linked account', async () => {
    const r = await stats.execute(input('title_c', 'profile', {}, 'nobody-linked'), deps);
    expect(r.ephemeral).toBe(true);
    expect(r.content).toContain('/link title:title_c');
    expect(r.content).toContain('player:');
  });

  it('checks values typed past autocomplete, naming what is allowed', async () => {
    const platform = await stats.execute(input('title_b', 'segments', { segment: 'legend', platform: 'pc_store_b', player: 'Rift' }), deps);
    expect(platform.ephemeral).toBe(true);
    // Platforms by name; nothing escaped inside a code span (Discord would show the backslash).
    expect(platform.content).toContain('PC\u00a0Store\u00a0C\u00a0(`pc_store_c`)');
    expect(platform.content).not.toMatch(/`[^`]*\\[^`]*`/);
    const segment = await stats.execute(input('title_c', 'segments', { segment: 'weapon', platform: 'pc_store_c', player: 'Ember#4471' }), deps);
    expect(segment.content).toContain('`hero`');
    const season = await stats.execute(input('title_a', 'segments', { segment: 'weapon', platform: 'pc_store_a', player: 'ashplays', season: 2 }), deps);
    expect(season.content).toContain('lifetime only');
  });

  it('names a platform or segment type it knows by the name players know, quoting back only what it does not know', async () => {
    for (const typed of ['pc_store_a', 'PC STORE A']) {
      const r = await stats.execute(input('title_b', 'segments', { segment: 'legend', platform: typed, player: 'Rift' }), deps);
      expect(r.content, typed).toContain('has no segments on PC\u00a0Store\u00a0A. ');
    }
    const unknown = await stats.execute(input('title_b', 'segments', { segment: 'legend', platform: 'pc_store_z', player: 'Rift' }), deps);
    expect(unknown.content).toContain('has no segments on `pc_store_z`.');
    // The list of what to type keeps its slugs.
    expect(unknown.content).toContain('PC\u00a0Store\u00a0C\u00a0(`pc_store_c`)');
    const weapon = await stats.execute(input('title_c', 'segments', { segment: 'weapon', platform: 'pc_store_c', player: 'Ember#4471' }), deps);
    // Title C has one segment type: named as the only one, not offered as a choice of one.
    expect(weapon.content).toBe('Title C has no weapons segments, only Heroes\u00a0(`hero`).');
    const german = await stats.execute(
      { ...input('title_c', 'segments', { segment: 'weapon', platform: 'pc_store_c', player: 'Ember#4471' }), locale: 'de' },
      deps,
    );
    expect(german.content).toBe('Title C hat keine Waffen-Segmente, nur Helden\u00a0(`hero`).');
    // Several: a choice.
    const many = await stats.execute(input('title_a', 'segments', { segment: 'hero', platform: 'pc_store_a', player: 'ashplays' }), deps);
    expect(many.content).toMatch(/^Title A has no heroes segments\. Choose one of: Overview\u00a0\(`overview`\), /);
    // Title D is on one platform: "only on", not "Choose one of" one.
    const onlyOne = await stats.execute(input('title_d', 'profile', { platform: 'console_a', player: 'x' }), deps);
    expect(onlyOne.content).toBe('Title D has no profile on Console\u00a0A, only on PC\u00a0Store\u00a0A\u00a0(`pc_store_a`).');
    const platformDe = await stats.execute(
      { ...input('title_b', 'segments', { segment: 'legend', platform: 'pc_store_a', player: 'Rift' }), locale: 'de' },
      deps,
    );
    expect(platformDe.content).toContain('gibt es nicht auf PC\u00a0Store\u00a0A.');
  });

  it('quotes a long typed value back clipped, so that what to choose stays in sight', async () => {
    const typed = '😀'.repeat(300);
    const segment = await stats.execute(input('title_c', 'segments', { segment: typed, platform: 'pc_store_c', player: 'Ember#4471' }), deps);
    expect(segment.content).toContain('`hero`');
    expect(segment.content).toContain('…');
    expect(segment.content!.length).toBeLessThan(300);
    const platform = await stats.execute(input('title_c', 'profile', { platform: 'x'.repeat(100), player: 'Ember#4471' }), deps);
    expect(platform.content).toContain('(`pc_store_c`)');
    expect(platform.content).not.toContain('x'.repeat(41));
  });

  it('takes a segment type typed by its name or in another case, as a platform is taken', async () => {
    for (const segment of ['Map', 'MAP', 'Maps', ' map ']) {
      const r = await stats.execute(input('title_a', 'segments', { segment, platform: 'PC Store A', player: 'ashplays' }), deps);
      expect(r.ephemeral, segment).toBe(false);
    }
    expect((await stats.execute(input('title_a', 'segments', { segment: 'Mapz', platform: 'pc_store_a', player: 'ashplays' }), deps)).content).toContain(
      'no `Mapz` segments',
    );
  });

  it('tells a failed search at once, asking the service once', async () => {
    let requests = 0;
    const down = createServer((_req, res) => {
      requests++;
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ code: 'NotFound', message: 'no route' }] }));
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const lookup = new LookupClient({ baseUrl: `http://127.0.0.1:${(down.address() as AddressInfo).port}`, cache: await createLookupCache() });
    try {
      const r = await stats.execute(input('title_c', 'search', { query: 'ember', platform: 'pc_store_c' }), { ...deps, lookup });
      expect(r).toMatchObject({ ephemeral: true });
      expect(requests).toBe(1);
    } finally {
      await lookup.close();
      down.close();
    }
  });

  it('answers not found and private players with an ephemeral message', async () => {
    const missing = await stats.execute(input('title_c', 'profile', { platform: 'pc_store_c', player: 'Nobody#0000' }), deps);
    expect(missing).toMatchObject({ ephemeral: true });
    expect(missing.content).toContain('No Title C player **Nobody#0000**');
    const hidden = await stats.execute(input('title_c', 'profile', { platform: 'pc_store_c', player: 'Shade#0001' }), deps);
    expect(hidden.content).toContain('private');
  });

  it('links an account after checking it, uses it when player is left out, and forgets it', async () => {
    const link = findCommand('link')!;
    const unlink = findCommand('unlink')!;
    const bad = await link.execute(
      { name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player: 'Nobody#1' }, userId: 'u2' },
      deps,
    );
    expect(bad.ephemeral).toBe(true);
    expect(await stores.links.get('u2', 'title_c')).toBeUndefined();
    const ok = await link.execute(
      { name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player: 'ember#4471' }, userId: 'u2' },
      deps,
    );
    expect(ok.embeds[0]?.title).toBe('Linked: Ember#4471');
    expect(ok.embeds[0]?.description).toContain('Now `/stats title_c profile` works without');
    // A platform with segments and no profile (title_b's pc_store_c): the reply names the view that works.
    const segmentsOnly = await link.execute(
      { name: 'link', group: null, subcommand: null, options: { title: 'title_b', platform: 'pc_store_c', player: 'Rift#0042' }, userId: 'u2b' },
      deps,
    );
    expect(segmentsOnly.embeds[0]?.description).toContain('Now `/stats title_b segments` works without');
    const profile = await stats.execute(input('title_c', 'profile', {}, 'u2'), deps);
    expect(profile.embeds[0]?.title).toBe('Ember#4471');
    // title_b's link on pc_store_b does not serve its segments endpoint: the reply says so.
    await link.execute(
      { name: 'link', group: null, subcommand: null, options: { title: 'title_b', platform: 'pc_store_b', player: 'Rift' }, userId: 'u2' },
      deps,
    );
    const segments = await stats.execute(input('title_b', 'segments', { segment: 'legend' }, 'u2'), deps);
    expect(segments.content).toContain('where Title B has no segments');
    const sessions = await stats.execute(input('title_b', 'sessions', {}, 'u2'), deps);
    expect(sessions.embeds[0]?.description).toContain('### Latest session');
    expect(sessions.embeds[0]?.fields?.map((f) => f.name)).toEqual(['Earlier sessions']);
    const gone = await unlink.execute({ name: 'unlink', group: null, subcommand: null, options: { title: 'title_c' }, userId: 'u2' }, deps);
    expect(gone.content).toContain('Forgotten');
    expect(await stores.links.get('u2', 'title_c')).toBeUndefined();
  });

  it('tells a search that found no one to the searcher alone, and takes a name of invisible characters for none', async () => {
    const none = await stats.execute(input('title_c', 'search', { platform: 'pc_store_c', query: 'zzzqqq' }), deps);
    expect(none).toMatchObject({ ephemeral: true });
    expect(none.embeds[0]?.description).toContain('No players found.');
    const found = await stats.execute(input('title_c', 'search', { platform: 'pc_store_c', query: 'ember' }), deps);
    expect(found.ephemeral).toBe(false);
    for (const invisible of ['\u200b', '\u200b \u2060', '\ufeff\u202e']) {
      const r = await stats.execute(input('title_c', 'profile', { platform: 'pc_store_c', player: invisible }), deps);
      expect(r.content).toMatch(/^Which player\?/);
    }
  });

  it('says a linked account keeps its stats private, and names the account a new link replaces', async () => {
    const link = findCommand('link')!;
    const linkAs = (player: string) =>
      link.execute({ name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player }, userId: 'u-relink' }, deps);
    const hidden = await linkAs('Shade#0001');
    expect(hidden.embeds[0]?.title).toBe('Linked: Shade#0001');
    expect(hidden.embeds[0]?.description).toContain('Its stats are private for now');
    expect(hidden.embeds[0]?.description).not.toContain('replaces');
    const other = await linkAs('Ember#4471');
    expect(other.embeds[0]?.description).not.toContain('private');
    expect(other.embeds[0]?.description).toMatch(/\nIt replaces \*\*Shade#0001\*\* on PC\u00a0Store\u00a0C\.$/);
    // The same account again (in another case) replaces nothing.
    expect((await linkAs('ember#4471')).embeds[0]?.description).not.toContain('replaces');
  });

  it('offers "Verify with Discord" where the bot has verified accounts, and never lets a typed link replace a verified one silently', async () => {
    const link = findCommand('link')!;
    const unlink = findCommand('unlink')!;
    const forgotten: string[] = [];
    const verification = { url: 'https://bot.example.com/verify', forget: (u: string) => (forgotten.push(u), Promise.resolve()), seen: () => undefined };
    const withVerify = { ...deps, verification };
    const linkAs = (player: string) =>
      link.execute({ name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player }, userId: 'u-ver' }, withVerify);
    const typed = await linkAs('Embertide#1000');
    expect(typed.components[0]?.components[0]).toMatchObject({ type: 2, style: 5, url: 'https://bot.example.com/verify', label: 'Verify with Discord' });
    // Verified through Discord since: a typed link to another account is refused, saying how to replace it.
    await stores.links.set('u-ver', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471', verified: true });
    const refused = await linkAs('Embertide#1000');
    expect(refused.content).toContain('verified through Discord');
    expect(refused.content).toContain('/unlink title:title_c');
    expect((await stores.links.get('u-ver', 'title_c'))?.identifier).toBe('Ember#4471');
    // The same account typed again keeps its mark, and offers no verification.
    const same = await linkAs('ember#4471');
    expect(same.components).toEqual([]);
    expect((await stores.links.get('u-ver', 'title_c'))?.verified).toBe(true);
    // Unlinking a verified account lets the verification forget the member's grant.
    await unlink.execute({ name: 'unlink', group: null, subcommand: null, options: { title: 'title_c' }, userId: 'u-ver' }, withVerify);
    expect(forgotten).toEqual(['u-ver']);
  });

  it('names a player as typed, and tells the operator, when looking up their handle throws', async () => {
    const { logger, logs } = memoryLogger();
    const throwing = Object.create(deps.lookup) as Deps['lookup'];
    throwing.profile = () => Promise.reject(new Error('a defect'));
    const view: Parameters<typeof shownName>[0] = {
      kind: 'segments',
      title: 'title_a',
      platform: 'pc_store_a',
      player: '76561198000000042',
      type: 'map',
      ownerId: 'u1',
    };
    expect(await shownName(view, { ...deps, lookup: throwing, logger }, 1_000)).toBe('76561198000000042');
    expect(logs()).toContain('could not be looked up: shown as typed');
    expect(await shownName(view, deps, 1_000)).toBe('Ash');
  });

  it('names a private player found by search by their handle, found alone or picked from the list', async () => {
    const player = (id: string, handle: string) => JSON.stringify({ type: 'player', title: 'title_d', platform: 'pc_store_a', id, handle, private: true });
    const own = await startService([player('76561198000000091', 'Hidden Hand'), player('76561198000000092', 'Hidden Eye')]);
    const lookup = new LookupClient({ baseUrl: own.url, cache: await createLookupCache() });
    try {
      const alone = await stats.execute(input('title_d', 'search', { platform: 'pc_store_a', query: 'Hidden H' }), { ...deps, lookup });
      expect(alone.content).toContain('**Hidden Hand** keeps their Title D stats private');
      const list = await stats.execute(input('title_d', 'search', { platform: 'pc_store_a', query: 'Hidden' }), { ...deps, lookup });
      const menu = list.components[0]?.components[0];
      const stateId = menu && 'custom_id' in menu ? (parseCustomId(menu.custom_id) as { stateId: string }).stateId : '';
      const picked = await openFromView((await deps.views.load(stateId))!, stateId, '76561198000000092', { ...deps, lookup });
      expect(picked.content).toContain('**Hidden Eye** keeps their Title D stats private');
    } finally {
      await lookup.close();
      await own.close();
    }
  });

  it('suggests players for /link whether the platform was picked or typed by its name', async () => {
    const link = findCommand('link')!;
    const ask = (platform: string) =>
      link.autocomplete!(
        {
          name: 'link',
          group: null,
          subcommand: null,
          options: { title: 'title_c', platform, player: 'emb' },
          userId: 'u2',
          focused: { name: 'player', value: 'emb' },
        },
        deps,
      );
    const picked = await ask('pc_store_c');
    expect(picked.map((c) => c.value)).toEqual(['Ember#4471', 'Embertide#1000', 'emb']);
    expect(await ask('PC Store C')).toEqual(picked);
    expect(await ask('pc store c')).toEqual(picked);
    // A platform the title does not have: what was typed, and no search.
    expect(await ask('Console Z')).toEqual([{ name: 'emb', value: 'emb' }]);
  });

  it('keeps links across a restart (a new store on the same file)', async () => {
    await stores.links.set('u3', 'title_d', { platform: 'pc_store_a', identifier: '76561198000000077', handle: 'Dusty' });
    const again = await createBotStores({ namespace: 'test', linksPath });
    try {
      expect(await again.links.get('u3', 'title_d')).toEqual({ platform: 'pc_store_a', identifier: '76561198000000077', handle: 'Dusty' });
    } finally {
      await again.close();
    }
  });

  it('links by what was typed when a compatible service sends an empty identifier, and refuses to save a link that would not read back', async () => {
    // The real service's answer for ember#4471, as another service might send it: its id empty.
    const real = (await (await fetch(`${service.url}/v2/title_c/standard/profile/pc_store_c/ember%234471`)).json()) as {
      data: { platformInfo: Record<string, unknown> };
    };
    real.data.platformInfo.platformUserIdentifier = '';
    const other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(real)));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const lookup = new LookupClient({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}`, cache: await createLookupCache() });
    try {
      const ok = await findCommand('link')!.execute(
        { name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player: 'ember#4471' }, userId: 'u4' },
        { ...deps, lookup },
      );
      expect(textOf(ok)).toContain('Linked: Ember#4471');
      expect(await stores.links.get('u4', 'title_c')).toMatchObject({ platform: 'pc_store_c', identifier: 'ember#4471' });
      await expect(stores.links.set('u4', 'title_c', { platform: 'pc_store_c', identifier: '', handle: 'x' })).rejects.toMatchObject({
        told: 'store.linkNotSaved',
      });
      expect((await stores.links.get('u4', 'title_c'))?.identifier).toBe('ember#4471');
    } finally {
      await lookup.close();
      other.close();
    }
  });
});

describe('replies a player reads at a glance', () => {
  const buttons = (r: Awaited<ReturnType<typeof stats.execute>>) =>
    r.components
      .flatMap((row) => row.components)
      .flatMap((c) => ('custom_id' in c && 'label' in c ? [{ label: c.label, action: parseCustomId(c.custom_id) }] : []));

  it('shows a linked player by their handle in every reply, never by the raw id', async () => {
    await stores.links.set('u5', 'title_a', { platform: 'pc_store_a', identifier: '76561198000000042', handle: 'Ash' });
    for (const [sub, options] of [
      ['profile', {}],
      ['segments', { segment: 'map' }],
      ['matches', {}],
    ] as const) {
      const r = await stats.execute(input('title_a', sub, options, 'u5'), deps);
      expect(r.embeds[0]?.title, sub).toBe('Ash');
      expect(JSON.stringify(r.embeds), sub).not.toContain('76561198000000042');
    }
  });

  it('names a player typed by id or profile URL (as autocomplete hands them over) by their handle in segments and matches too', async () => {
    for (const typed of ['76561198000000042', 'ashplays'])
      for (const [sub, options] of [
        ['segments', { segment: 'map' }],
        ['matches', {}],
      ] as const) {
        const r = await stats.execute(input('title_a', sub, { ...options, platform: 'pc_store_a', player: typed }), deps);
        expect(r.embeds[0]?.title, `${sub} ${typed}`).toBe('Ash');
      }
    // Where the title has no profile on that platform, what was typed.
    const legends = await stats.execute(input('title_b', 'segments', { segment: 'legend', platform: 'pc_store_c', player: 'rift#0042' }), deps);
    expect(legends.embeds[0]?.title).toBe('rift#0042');
  });

  it('goes from a profile to its other views and back with buttons', async () => {
    const profile = await stats.execute(input('title_a', 'profile', { platform: 'pc_store_a', player: 'ashplays' }), deps);
    const onward = buttons(profile);
    expect(onward.map((b) => b.label)).toEqual(['Maps', 'Matches']);
    const go = onward[1]!.action as { kind: 'go'; stateId: string; to: string };
    const view = await deps.views.load(go.stateId);
    const list = await goFromView(view!, go.to, 'u1', deps);
    expect(list.embeds[0]?.author?.name).toBe('Title A · Recent matches');
    const back = buttons(list).find((b) => b.label === '◀ Profile')!.action as { kind: 'go'; stateId: string; to: string };
    const again = await goFromView((await deps.views.load(back.stateId))!, back.to, 'u1', deps);
    expect(again.embeds[0]?.title).toBe('Ash');
    // title_b's segments serve other platforms than its profile: no button that would fail.
    const rift = await stats.execute(input('title_b', 'profile', { platform: 'pc_store_b', player: 'Rift' }), deps);
    expect(buttons(rift).map((b) => b.label)).toEqual(['Sessions']);
  });

  it('offers a view on the platforms it is served on, for the same player, when asked on one it is not', async () => {
    const refused = await stats.execute(input('title_b', 'segments', { segment: 'legend', platform: 'pc_store_b', player: 'Rift#0042' }), deps);
    expect(refused.content).toMatch(/^Title B has no segments on PC.Store.B\./);
    const menu = refused.components[0]?.components[0];
    expect(menu && 'options' in menu ? menu.options.map((o) => o.value) : []).toEqual(['p:pc_store_c', 'p:console_b', 'p:console_a']);
    const stateId = menu && 'custom_id' in menu ? (parseCustomId(menu.custom_id) as { stateId: string }).stateId : '';
    const legends = await switchFromView((await deps.views.load(stateId))!, 'p:pc_store_c', 'u1', deps);
    expect(legends.embeds[0]?.author?.name).toContain('Legends');
    expect(legends.embeds[0]?.footer?.text).toContain('PC Store C');
  });

  it('offers the search for that name, not empty segments, from a profile with nothing played', async () => {
    // A namesake picked from a search: the service knows the account, which never played the title.
    const empty = Object.assign(Object.create(deps.lookup) as Deps['lookup'], {
      profile: async (...args: Parameters<Deps['lookup']['profile']>) => {
        const r = await deps.lookup.profile(...args);
        return r.data
          ? {
              ...r,
              data: {
                ...r.data,
                segments: r.data.segments.map((g) => ({ ...g, stats: { matchesPlayed: { ...g.stats.matchesPlayed!, value: 0, displayValue: '0' } } })),
              },
            }
          : r;
      },
    });
    const profile = await stats.execute(input('title_c', 'profile', { platform: 'pc_store_c', player: 'Ember#4471' }), { ...deps, lookup: empty });
    const onward = buttons(profile);
    expect(onward.map((b) => b.label)).toEqual(['Search this name']);
    const go = onward[0]!.action as { kind: 'go'; stateId: string; to: string };
    const found = await goFromView((await deps.views.load(go.stateId))!, go.to, 'u1', deps);
    expect(found.embeds[0]?.author?.name).toContain('Search on PC Store C');
    expect(found.embeds[0]?.description).toContain('Ember#4471');
  });

  it('autocompletes the seasons the player has data for, newest first', async () => {
    const seasons = await stats.autocomplete(
      focus('title_a', 'segments', { segment: 'map', platform: 'pc_store_a', player: 'ashplays', season: '' }, 'season'),
      deps,
    );
    expect(seasons.length).toBeGreaterThan(0);
    expect(seasons.every((c) => /^Season \d+$/.test(c.name) && /^\d+$/.test(c.value))).toBe(true);
    expect(seasons.map((c) => Number(c.value))).toEqual([...seasons.map((c) => Number(c.value))].sort((a, b) => b - a));
  });

  it('switches a segments reply in place to another segment type, season or queue, and back to the lifetime', async () => {
    const maps = await stats.execute(input('title_a', 'segments', { segment: 'map', platform: 'pc_store_a', player: 'ashplays' }), deps);
    const menu = maps.components.flatMap((row) => row.components).find((c) => 'custom_id' in c && c.custom_id.startsWith('sw:'));
    expect(menu && 'options' in menu ? menu.options.map((o) => o.value) : []).toEqual(expect.arrayContaining(['t:weapon', 'q:ranked']));
    const stateId = menu && 'custom_id' in menu ? (parseCustomId(menu.custom_id) as { kind: string; stateId: string }).stateId : '';
    expect(parseCustomId(`sw:${stateId}`)).toEqual({ kind: 'switch', stateId });
    const view = (await deps.views.load(stateId))!;
    const ranked = await switchFromView(view, 'q:ranked', 'u1', deps);
    expect(ranked.embeds[0]?.author?.name).toBe('Title A · Maps');
    expect(ranked.embeds[0]?.description).toMatch(/Ranked/);
    const weapons = await switchFromView(view, 't:weapon', 'u1', deps);
    expect(weapons.embeds[0]?.author?.name).toBe('Title A · Weapons');
    // A season on a type kept for the lifetime only is dropped, not refused.
    const weaponsFromSeason = await switchFromView({ ...view, season: 1 } as typeof view, 't:weapon', 'u1', deps);
    expect(weaponsFromSeason.embeds[0]?.description).not.toMatch(/Season 1/);
    // What the menu never offers is told, not followed.
    expect((await switchFromView(view, 't:nothing', 'u1', deps)).content).toMatch(/./);
  });

  it('opens the profile at once when a search finds one player', async () => {
    const one = await stats.execute(input('title_d', 'search', { query: 'dusty_d' }), deps);
    expect(one.embeds[0]?.author?.name).toBe('Title D · Career');
    const two = await stats.execute(input('title_c', 'search', { platform: 'pc_store_c', query: 'ember' }), deps);
    expect(two.embeds[0]?.author?.name).toBe('Title C · Search on PC Store C');
    // Each result says how many matches it has played, and a namesake the service has no profile of, none.
    expect(two.embeds[0]?.description).toMatch(/\*\*Ember#4471\*\* · 1\u00a0match/);
    const unknown = Object.assign(Object.create(deps.lookup) as Deps['lookup'], {
      profile: (title: TitleSlug, platform: PlatformSlug, player: string, options?: { deadlineMs?: number }) =>
        player === 'Embertide#1000'
          ? Promise.resolve({ errors: [lookupError('not_found', 'No such player.')], meta: { source: 'network' as const, fetchedAt: Date.now(), ageMs: 0 } })
          : deps.lookup.profile(title, platform, player, options),
    });
    const namesake = await stats.execute(input('title_c', 'search', { platform: 'pc_store_c', query: 'ember' }), { ...deps, lookup: unknown });
    expect(namesake.embeds[0]?.description).toMatch(/\*\*Embertide#1000\*\* · no\u00a0matches/);
  });

  it('marks the looked-up player in a report opened from the match list, with a way back', async () => {
    const list = await stats.execute(input('title_a', 'matches', { platform: 'pc_store_a', player: 'ashplays' }), deps);
    const menu = list.components[0]?.components[0];
    const stateId = menu && 'custom_id' in menu ? (parseCustomId(menu.custom_id) as { stateId: string }).stateId : '';
    const report = await openFromView((await deps.views.load(stateId))!, stateId, 'a-1', deps);
    expect(JSON.stringify(report.embeds)).toMatch(/▶ (⭐ )?\*\*Ash\*\*/);
    expect(buttons(report).map((b) => b.label)).toEqual(['◀ Matches']);
  });

  it('leads on from a report asked by its id: a menu of its players opens the profile of the one picked', async () => {
    const report = await stats.execute(input('title_a', 'match', { platform: 'pc_store_a', id: 'a-1' }), deps);
    const menu = report.components[0]?.components[0] as { custom_id: string; placeholder: string; options: { label: string; value: string }[] } | undefined;
    expect(menu?.placeholder).toBe('Open a player’s profile');
    const ash = menu?.options.find((o) => o.label === 'Ash');
    expect(ash?.value).toMatch(/^pc_store_a:/);
    const stateId = (parseCustomId(menu!.custom_id) as { stateId: string }).stateId;
    const profile = await openFromView((await deps.views.load(stateId))!, stateId, ash!.value, deps);
    expect(profile.embeds[0]?.author?.name).toBe('Title A · Career');
    expect(profile.embeds[0]?.title).toBe('Ash');
    // A value the menu did not make, or a platform the title has no profiles on, is told, not looked up.
    expect((await openFromView((await deps.views.load(stateId))!, stateId, 'nonsense', deps)).content).toBe(
      (await openFromView((await deps.views.load(stateId))!, stateId, 'elsewhere:Ash', deps)).content,
    );
    // Drawn again (a page press, a restart), it keeps its menu.
    const again = await renderView((await deps.views.load(stateId))!, stateId, 0, deps);
    expect(again.components).toEqual(report.components);
  });

  it('keeps field names short enough for a phone and every reply within Discord’s limits', async () => {
    const replies = await Promise.all([
      stats.execute(input('title_a', 'profile', { platform: 'pc_store_a', player: 'ashplays' }), deps),
      stats.execute(input('title_a', 'segments', { segment: 'weapon', platform: 'pc_store_a', player: 'ashplays' }), deps),
      stats.execute(input('title_b', 'sessions', { platform: 'pc_store_b', player: 'Rift' }), deps),
      stats.execute(input('title_a', 'matches', { platform: 'pc_store_a', player: 'ashplays' }), deps),
      stats.execute(input('title_a', 'match', { platform: 'pc_store_a', id: 'a-1' }), deps),
    ]);
    for (const r of replies) {
      expect(messageErrors({ embeds: r.embeds, components: r.components })).toEqual([]);
      for (const f of r.embeds.flatMap((e) => e.fields ?? [])) expect(f.name.length, f.name).toBeLessThanOrEqual(24);
      expect(JSON.stringify(r)).not.toMatch(/just now|minutes? ago/);
    }
  });
});

describe('autocomplete', () => {
  it('offers only the platforms the endpoint allows, filtered by what was typed', async () => {
    const names = async (sub: string, typed: string) =>
      (await stats.autocomplete(focus('title_b', sub, { platform: typed }, 'platform'), deps)).map((c) => c.value);
    expect(await names('profile', '')).toEqual(['pc_store_b', 'console_a', 'console_b']);
    expect(await names('segments', '')).toEqual(['pc_store_c', 'console_b', 'console_a']);
    expect(await names('segments', 'pc')).toEqual(['pc_store_c']);
    expect(await names('profile', 'CONSOLE')).toEqual(['console_a', 'console_b']);
    for (const e of ENDPOINTS) {
      const offered = (await stats.autocomplete(focus(e.title, e.kind, { platform: '' }, 'platform'), deps)).map((c) => c.value);
      expect(offered, `${e.title} ${e.kind}`).toEqual([...e.platforms]);
    }
  });

  it('finds players through search and echoes what was typed last', async () => {
    const choices = await stats.autocomplete(focus('title_c', 'profile', { platform: 'pc_store_c', player: 'emb' }, 'player'), deps);
    expect(choices.map((c) => c.value)).toEqual(['Ember#4471', 'Embertide#1000', 'emb']);
    expect(choices[0]?.name).toBe('Ember#4471 · PC Store C');
    const exact = await stats.autocomplete(focus('title_c', 'profile', { platform: 'pc_store_c', player: 'ember#4471' }, 'player'), deps);
    expect(exact.map((c) => c.value)).toEqual(['Ember#4471']);
  });

  it('tells players of one name apart by their identifier, and only them', async () => {
    const found = (handle: string, id: string) => ({
      platformId: 1,
      platformSlug: 'pc_store_a',
      platformUserHandle: handle,
      platformUserIdentifier: id,
      platformUserId: id,
      avatarUrl: null,
      status: null,
      additionalParameters: null,
    });
    // The search answers as the demo data's does: two players called Blaze on one platform.
    const lookup = {
      search: () =>
        Promise.resolve({
          data: [found('Blaze', '76561198000000026'), found('Blaze', '76561198000000030'), found('BlazeJr', '76561198000000022')],
          meta: { source: 'network', fetchedAt: 0, ageMs: 0 },
        }),
    };
    const choices = await searchChoices('title_a', 'pc_store_a', 'blaze', { ...deps, lookup: lookup as unknown as Deps['lookup'] });
    const named = choices.map((c) => c.name);
    expect(named).toContain('Blaze · PC Store A · 76561198000000026');
    expect(named).toContain('Blaze · PC Store A · 76561198000000030');
    expect(named).toContain('BlazeJr · PC Store A');
    expect(new Set(named).size).toBe(named.length);
  });

  it('orders segment types by the data the player has', async () => {
    const choices = await stats.autocomplete(focus('title_a', 'segments', { platform: 'console_a', player: 'Ashen Knight', segment: '' }, 'segment'), deps);
    expect(choices.map((c) => c.value)).toEqual(['overview', 'playlist', 'gamemode', 'map', 'weapon']);
    expect(choices.at(-1)?.name).toContain('no data');
    const filtered = await stats.autocomplete(focus('title_a', 'segments', { segment: 'wea' }, 'segment'), deps);
    expect(filtered.map((c) => c.value)).toEqual(['weapon']);
    expect(TITLES.title_a.segmentTypes).toHaveLength(5);
  });

  it('offers segment types without the career’s counts when a queue or season is typed, and none kept for the lifetime only with a season', async () => {
    const player = { platform: 'pc_store_a', player: 'ashplays', segment: '' };
    const queued = await stats.autocomplete(focus('title_a', 'segments', { ...player, queue: 'ranked' }, 'segment'), deps);
    expect(queued.map((c) => c.value)).toEqual(['overview', 'playlist', 'gamemode', 'map', 'weapon']);
    expect(queued.map((c) => c.name).join('\n')).not.toMatch(/data/);
    const season = await stats.autocomplete(focus('title_a', 'segments', { ...player, season: 3 }, 'segment'), deps);
    expect(season.map((c) => c.value)).toEqual(['overview', 'playlist', 'gamemode', 'map']);
    expect(season.map((c) => c.name).join('\n')).not.toMatch(/data/);
  });

  it('offers every segment type at once, unranked, when the link store fails or is slow', async () => {
    const all = TITLES.title_a.segmentTypes.map((s) => s.type);
    const down: LinkStore = { ...stores.links, get: () => Promise.reject(new StoreUnavailableError('store.linksUnreadable')) };
    const slow: LinkStore = { ...stores.links, get: () => sleep(5_000).then(() => undefined) };
    for (const links of [down, slow]) {
      const started = performance.now();
      const choices = await stats.autocomplete(focus('title_a', 'segments', { segment: '' }, 'segment'), { ...deps, links });
      // Within the router's budget (2 s), which would otherwise answer with nothing at all.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(choices.map((c) => c.value)).toEqual(all);
    }
  });

  it('offers the linked player’s recent matches for a match id', async () => {
    await stores.links.set('u4', 'title_a', { platform: 'pc_store_a', identifier: '76561198000000042', handle: 'Ash' });
    const choices = await stats.autocomplete(focus('title_a', 'match', { id: '' }, 'id', 'u4'), deps);
    expect(choices.map((c) => c.value)).toEqual(['a-3', 'a-2', 'a-1']);
    // When first, as plain text (a choice shows no live timestamp), then where and how it went; no K/D/A.
    for (const c of choices) {
      expect(c.name).toMatch(/^(\d+ (minutes?|min\.|hours?|hr\.|days?) ago|yesterday|this minute) · /);
      expect(c.name).not.toContain('K/D/A');
    }
  });

  it('answers every title and subcommand without throwing, even for nonsense', async () => {
    for (const title of TITLE_SLUGS)
      for (const e of ENDPOINTS.filter((x) => x.title === title))
        for (const name of ['platform', 'player', 'segment', 'query', 'id', 'unknown']) {
          const choices = await stats.autocomplete(focus(title, e.kind, { [name]: '"@everyone/../%?#' }, name), deps);
          expect(choices.length).toBeLessThanOrEqual(25);
        }
  });
});

describe('/compare', () => {
  const compare = findCommand('compare')!;
  const run = (options: Record<string, string>, userId = 'cmp1') => compare.execute({ name: 'compare', group: null, subcommand: null, options, userId }, deps);

  it('sets two players side by side, the better of each pair bold and pointed at, counts unmarked', async () => {
    const r = await run({ title: 'title_c', player: 'Ember#4471', platform: 'pc_store_c', other: 'Embertide#1000' });
    expect(r.ephemeral).toBe(false);
    const e = r.embeds[0]!;
    expect(e.title).toBe('Ember#4471 vs Embertide#1000');
    expect(messageErrors({ embeds: r.embeds, components: r.components })).toEqual([]);
    const kd = e.description!.split('\n').find((l) => l.startsWith('K/D · '))!;
    expect(kd).toMatch(/^K\/D · (\*\*[\d.]+\*\*\u00a0◂\u00a0[\d.]+|[\d.]+\u00a0▸\u00a0\*\*[\d.]+\*\*|[\d.]+\u00a0=\u00a0[\d.]+)$/);
    expect(e.description).toMatch(/^Matches · \d+\u00a0vs\u00a0\d+$/m);
    // The verdict names who leads on what decides (rank, K/D, win rate), not a count of figures.
    expect(e.description).toMatch(/\*\*Ember(tide)?#\d+\*\* leads on ((Rating|K\/D|Win rate)(, | and |, and )?)+|Even:/);
    // A value of two words (a time played) is held together: a phone broke `8h 57m` between them.
    expect(e.description).toMatch(/^Time played · \**[^ ]+\**\u00a0(◂|▸|vs|=)\u00a0\**[^ ]+\**$/m);
  });

  it('takes the invoker’s linked account as the other player, and says what to do without one', async () => {
    const none = await run({ title: 'title_c', player: 'Ember#4471', platform: 'pc_store_c' }, 'cmp-nolink');
    expect(none).toMatchObject({ ephemeral: true });
    expect(none.content).toContain('with whom');
    await stores.links.set('cmp2', 'title_c', { platform: 'pc_store_c', identifier: 'Embertide#1000', handle: 'Embertide#1000' });
    const linked = await run({ title: 'title_c', player: 'Ember#4471' }, 'cmp2');
    expect(linked.embeds[0]?.title).toBe('Ember#4471 vs Embertide#1000');
    const same = await run({ title: 'title_c', player: 'embertide#1000' }, 'cmp2');
    expect(same.content).toContain('same player twice');
  });

  it('refuses the same account named two ways (a vanity name and the id), and tells a member whose link is on another platform so', async () => {
    await stores.links.set('cmp3', 'title_a', { platform: 'pc_store_a', identifier: '76561198000000042', handle: 'Ash' });
    const vanity = await run({ title: 'title_a', player: 'ashplays', platform: 'pc_store_a' }, 'cmp3');
    expect(vanity).toMatchObject({ ephemeral: true });
    expect(vanity.content).toContain('same player twice');
    expect((await run({ title: 'title_a', player: 'ashplays', platform: 'pc_store_a', other: '76561198000000042' })).content).toContain('same player twice');
    await stores.links.set('cmp4', 'title_a', { platform: 'console_a', identifier: 'Ashen Knight', handle: 'Ashen Knight' });
    const elsewhere = await run({ title: 'title_a', player: 'ashplays', platform: 'pc_store_a', other_platform: 'console_b' }, 'cmp4');
    expect(elsewhere).toMatchObject({ ephemeral: true });
    expect(elsewhere.content).toContain('Console A');
    expect(elsewhere.content).not.toContain('with whom');
    // A link on a platform the title has no profiles on (title_b's pc_store_c): the player is typed, the other is wanted.
    await stores.links.set('cmp5', 'title_b', { platform: 'pc_store_c', identifier: 'Rift#0042', handle: 'Rift#0042' });
    const unprofiled = await run({ title: 'title_b', player: 'Rift', platform: 'pc_store_b' }, 'cmp5');
    expect(unprofiled).toMatchObject({ ephemeral: true });
    expect(unprofiled.content).toBe(
      'Compare **Rift** with whom? Your linked Title B account is on PC\u00a0Store\u00a0C, where Title B has no profiles: type `other:`.',
    );
  });

  it('answers a missing or private player, and a title typed past the choices, with an ephemeral message', async () => {
    const missing = await run({ title: 'title_c', player: 'Nobody#0000', platform: 'pc_store_c', other: 'Ember#4471' });
    expect(missing).toMatchObject({ ephemeral: true });
    expect(missing.content).toContain('Nobody#0000');
    const hidden = await run({ title: 'title_c', player: 'Ember#4471', platform: 'pc_store_c', other: 'Shade#0001' });
    expect(hidden.content).toContain('private');
    expect((await run({ title: 'title_z', player: 'x' })).content).toContain('Choose a title: Title\u00a0A\u00a0(`title_a`), Title\u00a0B\u00a0(`title_b`)');
  });

  it('autocompletes platforms and both players', async () => {
    const c = (options: Record<string, string>, focused: string) =>
      compare.autocomplete!(
        { name: 'compare', group: null, subcommand: null, options, userId: 'cmp1', focused: { name: focused, value: options[focused] ?? '' } },
        deps,
      );
    expect((await c({ title: 'title_c', platform: 'pc' }, 'platform')).map((x) => x.value)).toContain('pc_store_c');
    expect((await c({ title: 'title_c', platform: 'pc_store_c', other: 'Embert' }, 'other')).map((x) => x.value)).toContain('Embertide#1000');
    // A platform typed past its choices is read as the command reads it: by name, in any case.
    for (const platform of ['PC Store C', 'pc store c', 'PC_STORE_C'])
      expect(
        (await c({ title: 'title_c', platform, player: 'emb' }, 'player')).map((x) => x.value),
        platform,
      ).toEqual(['Ember#4471', 'Embertide#1000', 'emb']);
    expect(await c({ title: 'nope', player: 'x' }, 'player')).toEqual([]);
  });
});

describe('since your last look', () => {
  const look = (userId: string, options: Record<string, string> = {}) => stats.execute(input('title_c', 'profile', options, userId), deps);
  const lastLines = (r: Awaited<ReturnType<typeof look>>) => r.embeds[0]!.description!.split('\n\n').at(-1)!;

  it('keeps a snapshot of the linked player’s own profile and says what changed at the next look', async () => {
    await stores.links.set('since1', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' });
    const first = await look('since1');
    expect(lastLines(first)).toContain('Look again later');
    const kept = await stores.snapshots.get('since1', 'title_c');
    expect(kept).toMatchObject({ platform: 'pc_store_c', identifier: 'Ember#4471' });
    expect(kept!.matches).toBeGreaterThan(0);

    const again = await look('since1');
    expect(lastLines(again)).toMatch(/^\*\*Since your last look\*\* <t:\d+:R>: no new matches\.$/);

    // Days ago they had played none of these matches, with a lower K/D.
    await stores.snapshots.set('since1', 'title_c', { ...kept!, at: '2026-11-17T10:00:00.000Z', matches: 0, wins: 0, kd: 0.5 });
    const later = await look('since1');
    const [m, w] = [kept!.matches!, kept!.wins!];
    expect(lastLines(later).split('\n')).toEqual([
      `**Since your last look** <t:${Date.parse('2026-11-17T10:00:00.000Z') / 1000}:R>`,
      `+${m} ${m === 1 ? 'match' : 'matches'} · ${w} ${w === 1 ? 'win' : 'wins'}`,
      `K/D 0.50 → **${kept!.kd!.toFixed(2)}**`,
      `Win rate **${kept!.winRate!.toFixed(1)}%**`,
    ]);
  });

  it('says nothing of it for another player’s profile, typed or someone else’s link', async () => {
    await stores.links.set('since2', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' });
    const other = await look('since2', { platform: 'pc_store_c', player: 'Embertide#1000' });
    expect(other.embeds[0]!.description).not.toMatch(/last look|Look again/);
    const own = await look('since2', { platform: 'pc_store_c', player: 'ember#4471' });
    expect(own.embeds[0]!.description).toMatch(/last look|Look again/);
    expect(await stores.snapshots.get('since-nobody', 'title_c')).toBeUndefined();
  });

  it('tells the user when the snapshot could not be kept, and still shows the profile', async () => {
    await stores.links.set('since3', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' });
    const broken = { ...deps, snapshots: { get: () => Promise.reject(new Error('store down')), set: () => Promise.reject(new Error('store down')) } };
    const r = await stats.execute(input('title_c', 'profile', {}, 'since3'), broken);
    expect(r.embeds[0]!.title).toBe('Ember#4471');
    expect(r.embeds[0]!.description).toContain('Could not keep this look');
  });
});

describe('a linked player’s history', () => {
  const days = (n: number) => new Date(Date.parse('2026-11-20T12:00:00Z') + n * 86_400_000);
  const at = (now: Date) => ({ ...deps, history: stores.history, now: () => now });
  const look = (userId: string, now: Date, options: Record<string, string> = {}) => stats.execute(input('title_c', 'profile', options, userId), at(now));

  it('keeps a day of the viewer’s own linked player, then tells the week’s change and the week at a glance', async () => {
    await stores.links.set('hist1', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' });
    const none = await look('hist1', days(0), { period: 'week' });
    expect(none.embeds[0]!.description).toContain('No history of this player yet');
    const kept = await stores.history.days('title_c', 'pc_store_c', 'Ember#4471');
    expect(kept.map((d) => d.day)).toEqual(['2026-11-20']);
    // Without a period, the first day says when the form of a title without a match list comes.
    expect((await look('hist1', days(0))).embeds[0]!.description).toContain('Recent form from tomorrow on');
    // A week earlier they had played fewer matches with fewer kills.
    const [today] = kept;
    await stores.history.record('title_c', 'pc_store_c', 'Ember#4471', {
      ...today!,
      day: '2026-11-13',
      matches: today!.matches! - 3,
      wins: 0,
      kills: today!.kills! - 30,
      deaths: today!.deaths! - 10,
      kd: 0.5,
    });
    const week = await look('hist1', days(0), { period: 'week' });
    const text = week.embeds[0]!.description!.replace(/\u00a0/g, ' ');
    expect(text).toContain(`**Last week** · since <t:${Date.parse('2026-11-13') / 1000}:d>`);
    expect(text).toContain('+3 matches · 1 win · +30 Kills');
    expect(text).toMatch(/K\/D 0\.50 → \*\*\d\.\d\d\*\* · in the period 3\.00/);
    // The period replaces the lines since the last look.
    expect(text).not.toMatch(/last look/);
    // Without one, the week's glance stands under the rank, for a title without a match list.
    const glance = (await look('hist1', days(0))).embeds[0]!.description!.replace(/\u00a0/g, ' ');
    expect(glance).toContain(`**since <t:${Date.parse('2026-11-13') / 1000}:d>** · +3 matches`);
    expect(glance).toMatch(/last look/);
  });

  it('keeps another player’s day only once their history is kept, and never from a stale answer', async () => {
    await look('hist2', days(0), { platform: 'pc_store_c', player: 'Embertide#1000' });
    expect(await stores.history.days('title_c', 'pc_store_c', 'Embertide#1000')).toEqual([]);
    await stores.history.record('title_c', 'pc_store_c', 'Embertide#1000', { day: '2026-11-10', matches: 1 });
    await look('hist2', days(1), { platform: 'pc_store_c', player: 'embertide#1000' });
    expect((await stores.history.days('title_c', 'pc_store_c', 'Embertide#1000')).map((d) => d.day)).toEqual(['2026-11-10', '2026-11-21']);
  });

  it('still shows the profile when the history store fails, and says so where a period was asked for', async () => {
    const broken = { ...at(days(0)), history: { days: () => Promise.reject(new Error('store down')), record: () => Promise.reject(new Error('store down')) } };
    const r = await stats.execute(input('title_c', 'profile', { platform: 'pc_store_c', player: 'Ember#4471', period: 'month' }, 'hist3'), broken);
    expect(r.embeds[0]!.title).toBe('Ember#4471');
    expect(r.embeds[0]!.description).toContain('history cannot be read right now');
  });
});

describe('/leaderboard', () => {
  const board = findCommand('leaderboard')!;
  // The small dataset's players have played a match or two: no minimum, unless a test sets one.
  const run = (options: Record<string, string | number>, userId: string, guildId: string | null = 'g-board') =>
    board.execute({ name: 'leaderboard', group: null, subcommand: null, options: { min_matches: 0, ...options }, userId, guildId }, deps);
  const link = findCommand('link')!;
  const linkIn = (userId: string, player: string, guildId = 'g-board') =>
    link.execute({ name: 'link', group: null, subcommand: null, options: { title: 'title_c', platform: 'pc_store_c', player }, userId, guildId }, deps);

  it('ranks the members who linked in the server, best first, with the invoker marked and the unranked counted', async () => {
    await linkIn('b1', 'Ember#4471');
    await linkIn('b2', 'Embertide#1000');
    await linkIn('b3', 'Shade#0001'); // private: linked, not ranked
    await linkIn('b9', 'Ember#4471', 'g-other'); // another server's member
    const r = await run({ title: 'title_c', stat: 'kd' }, 'b2');
    expect(r.ephemeral).toBe(false);
    const e = r.embeds[0]!;
    expect(e.title).toBe('K/D');
    expect(messageErrors({ embeds: r.embeds, components: r.components })).toEqual([]);
    const rows = e.description!.split('\n').filter((l) => /^(🥇|🥈|🥉|`)/.test(l));
    expect(rows).toHaveLength(2);
    const values = rows.map((l) => Number(/\*\*\s·\s([\d.]+)/u.exec(l)![1]));
    expect(values[0]).toBeGreaterThanOrEqual(values[1]!);
    expect(rows.filter((l) => l.includes('▶ <@b2> **Embertide#1000**'))).toHaveLength(1);
    expect(e.description).toContain('Not ranked: 1 private');
    expect(e.footer?.text).toBe('Title C · 2 ranked of 3 linked');
    // The invoker's command records them again, as the latest.
    expect(await stores.members.list('g-board')).toEqual(['b1', 'b3', 'b2']);
  });

  it('takes the server’s own minimum and verified-only rule from /settings, which only a manager changes', async () => {
    const settings = findCommand('settings')!;
    const set = (options: Record<string, number | boolean>, userId: string, canManageServer: boolean) =>
      settings.execute(
        { name: 'settings', group: null, subcommand: null, options, userId, guildId: 'g-set', canManageServer },
        { ...deps, servers: stores.servers },
      );
    const shown = await set({}, 'v1', false);
    expect(shown.content).toContain('Leaderboard: ranks members with at least **10** matches');
    expect(shown.content).toContain('Session feed: posts every member who follows it');
    expect((await set({ board_verified_only: true }, 'v1', false)).content).toBe('Only members who can manage the server change its settings.');
    const saved = await set({ min_matches: 0, board_verified_only: true }, 'v1', true);
    expect(saved.content).toContain('Leaderboard: ranks **verified accounts only**');
    // No verified accounts set up on this bot: the manager hears what "verified only" then means.
    expect(saved.content).toContain('ranks and posts nobody');
    expect(await stores.servers.get('g-set')).toEqual({ boardMinMatches: 0, boardVerifiedOnly: true });
    // Two members: one verified (through Discord), one linked by hand.
    await stores.links.set('v1', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471', verified: true });
    await stores.links.set('v2', 'title_c', { platform: 'pc_store_c', identifier: 'Embertide#1000', handle: 'Embertide#1000' });
    for (const m of ['v1', 'v2']) await stores.members.add('g-set', m);
    const r = await board.execute(
      { name: 'leaderboard', group: null, subcommand: null, options: { title: 'title_c' }, userId: 'v2', guildId: 'g-set' },
      { ...deps, servers: stores.servers },
    );
    const text = r.embeds[0]!.description!;
    expect(text).toMatch(/🥇 <@v1> \*\*Ember#4471\*\*\u00a0✅/u);
    expect(text).not.toContain('Embertide');
    expect(text).toContain('Not ranked: 1 not verified');
    expect(text).toContain('✅ verified through Discord');
  });

  it('says why a member linked on a platform without profiles is not ranked, not that their figure is still to come', async () => {
    await link.execute(
      {
        name: 'link',
        group: null,
        subcommand: null,
        options: { title: 'title_b', platform: 'pc_store_c', player: 'Rift#0042' },
        userId: 'b5',
        guildId: 'g-board-b',
      },
      deps,
    );
    const r = await run({ title: 'title_b' }, 'b5', 'g-board-b');
    expect(r.embeds[0]?.description).toContain('Not ranked: 1 linked where the title has no profiles');
  });

  it('ranks by another figure by meaning, and tells a member who has not linked how to get on it', async () => {
    const r = await run({ title: 'title_c', stat: 'winRate' }, 'b-nolink');
    expect(r.embeds[0]!.title).toBe('Win rate');
    expect(r.embeds[0]!.description).toMatch(/·\s[\d.]+%(\s·|$)/mu);
    expect(r.embeds[0]!.description).toContain('You are not on this board');
    expect(await stores.members.list('g-board')).toContain('b-nolink');
  });

  it('answers within the command’s deadline when the service is slow, counting who was not answered in time', async () => {
    // A service that answers nobody: each lookup lasts its whole deadline and times out.
    const slow = {
      profile: async (_title: string, _platform: string, _player: string, options?: { deadlineMs?: number }) => {
        await sleep(options?.deadlineMs ?? 10_000);
        return {
          errors: [lookupError('timeout', 'The stats service did not answer in time.')],
          meta: { source: 'network' as const, fetchedAt: Date.now(), ageMs: 0 },
        };
      },
    };
    for (let i = 0; i < 60; i++) {
      await stores.links.set(`slow${i}`, 'title_c', { platform: 'pc_store_c', identifier: `Slow#${1000 + i}`, handle: `Slow#${1000 + i}` });
      await stores.members.add('g-slow', `slow${i}`);
    }
    const started = Date.now();
    const r = await board.execute(
      { name: 'leaderboard', group: null, subcommand: null, options: { title: 'title_c' }, userId: 'slow1', guildId: 'g-slow' },
      { ...deps, lookup: slow as unknown as Deps['lookup'] },
    );
    expect(Date.now() - started).toBeLessThan(COMMAND_DEADLINE_MS);
    expect(r.embeds[0]!.description).toContain('50 not answered in time · 10 not looked up this time');
  }, 20_000);

  it('reads the links within a bound of its own when the store is slow, the invoker first and the latest members next', async () => {
    for (let i = 0; i < 1_000; i++) {
      if (i % 10 === 0) await stores.links.set(`many${i}`, 'title_c', { platform: 'pc_store_c', identifier: `Ember#${i}`, handle: `Ember${i}` });
      await stores.members.add('g-many', `many${i}`);
    }
    // Each link read takes 200 ms (a store near its timeout): 1,000 of them, 16 at a time, took 12.5 s.
    const slowLinks = Object.assign(Object.create(stores.links) as Deps['links'], {
      get: async (userId: string, title: TitleSlug) => (await sleep(200), stores.links.get(userId, title)),
    });
    // A hundred accounts (one place each), every one answered with Ember#4471's profile.
    const oneProfile = Object.assign(Object.create(deps.lookup) as Deps['lookup'], {
      profile: (title: TitleSlug, platform: PlatformSlug, _player: string, options?: { deadlineMs?: number }) =>
        deps.lookup.profile(title, platform, 'Ember#4471', options),
    });
    const started = Date.now();
    const r = await board.execute(
      { name: 'leaderboard', group: null, subcommand: null, options: { title: 'title_c', min_matches: 0 }, userId: 'many0', guildId: 'g-many' },
      { ...deps, links: slowLinks, lookup: oneProfile },
    );
    expect(Date.now() - started).toBeLessThan(COMMAND_DEADLINE_MS);
    const description = r.embeds[0]!.description!;
    // The invoker, recorded as the latest, was read first and is on the board; the latest members'
    // links were read next (the others, not read in time, are counted as not looked up).
    expect(description).toContain('▶ <@many0> **Ember0**');
    const others = [...description.matchAll(/\*\*Ember(\d+)\*\*/g)].map((m) => Number(m[1])).filter((n) => n !== 0);
    expect(others.length).toBeGreaterThan(0);
    expect(Math.min(...others)).toBeGreaterThanOrEqual(500);
    expect(description).toMatch(/Not ranked: \d{3} not looked up this time/);
  }, 20_000);

  it('ranks an account once when two members linked to it, the invoker’s link holding it', async () => {
    for (const userId of ['twin1', 'twin2', 'other3']) {
      await stores.links.set(
        userId,
        'title_c',
        userId === 'other3'
          ? { platform: 'pc_store_c', identifier: 'Embertide#1000', handle: 'Embertide#1000' }
          : { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' },
      );
      await stores.members.add('g-twins', userId);
    }
    const r = await run({ title: 'title_c' }, 'twin1', 'g-twins');
    const rows = r.embeds[0]!.description!.split('\n').filter((l) => /^(🥇|🥈|🥉|`)/.test(l));
    expect(rows.filter((l) => l.includes('Ember#4471'))).toEqual([expect.stringContaining('▶ <@twin1> **Ember#4471**')]);
    expect(rows).toHaveLength(2);
  });

  it('answers outside a server, an unknown figure and an empty server with a clear message', async () => {
    expect((await run({ title: 'title_c' }, 'b1', null)).content).toContain('use it in one');
    expect((await run({ title: 'title_c', stat: 'luck' }, 'b1')).content).toContain('Rank by one of: K/D\u00a0(`kd`), Win\u00a0rate\u00a0(`winRate`)');
    const empty = await run({ title: 'title_a' }, 'b1', 'g-empty');
    expect(empty.embeds[0]!.description).toContain('Nobody to rank yet');
  });
});

describe('a match list paged far along', () => {
  it('walks the cursors within one deadline for the whole walk, not one for each step', async () => {
    // A player with no end of matches: every page names a next one, each answered in 20 ms.
    let calls = 0;
    const endless = {
      matches: async (_title: string, _platform: string, _player: string, next: string | undefined, options?: { deadlineMs?: number }) => {
        calls++;
        const meta = { source: 'network' as const, fetchedAt: Date.now(), ageMs: 0 };
        if ((options?.deadlineMs ?? Infinity) < 20) return { errors: [lookupError('timeout', 'The stats service did not answer in time.')], meta };
        await sleep(20);
        return { data: { matches: [], metadata: { next: `${next ?? ''}+` } }, meta };
      },
    };
    const view = { kind: 'matches' as const, title: 'title_a' as const, platform: 'pc_store_a' as const, player: 'novaplays', ownerId: 'u1' };
    const started = Date.now();
    // Page 9999 is 5,000 service pages along: at 20 ms each, 100 s one after the other.
    const reply = await matchesView.render(view, 'state', 9999, { ...deps, lookup: endless as unknown as Deps['lookup'] });
    const ms = Date.now() - started;
    expect(ms).toBeLessThan(COMMAND_DEADLINE_MS + 2_000);
    expect(calls).toBeLessThan(COMMAND_DEADLINE_MS / 20 + 10);
    expect(textOf(reply)).toMatch(/did not answer in time|time/i);
  }, 20_000);
});
