// `/verify` from start to page, in this process: the web side against the Discord double's OAuth2
// and the demo data's stats service. A member with a verified Steam connection is linked to that
// account, marked verified, and their role connection carries the title's tier; a replayed or
// foreign `state`, a refused consent and an expired code each get their page, nothing linked.
import { randomBytes } from 'node:crypto';

import { REST } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Deps } from '../../commands/index.js';
import { startInteractionsServer } from '../../src/bot/http-interactions.js';
import { Router } from '../../src/bot/router.js';
import { createBotStores, type BotStores } from '../../src/bot/stores.js';
import { TITLE_SLUGS } from '../../src/catalog/index.js';
import { restOptions } from '../../src/bot/client.js';
import { createLookupCache } from '../../src/lookup/cache.js';
import { LookupClient } from '../../src/lookup/client.js';
import { discordOAuth } from '../../src/verify/discord-oauth.js';
import { roleConnectionRecords } from '../../src/verify/linked-roles.js';
import { tokenBox } from '../../src/verify/token-box.js';
import { createVerification, type WebVerification } from '../../src/verify/verify.js';
import { startWebServer, type WebServer } from '../../src/verify/web-server.js';
import { APPLICATION_ID, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startService, type TestService } from '../helpers/service.js';

/** Demo data: AtlasMain plays title_d on PC Store A (Steam id below), ranked Silver: the ladder's third tier. */
const ATLAS_STEAM = '76561198000000017';
const MEMBER = '1180000000000000777';

let discord: DiscordDouble;
let service: TestService;
let lookup: LookupClient;
let stores: BotStores;
let verification: WebVerification;
let web: WebServer;
const lines: Record<string, unknown>[] = [];

/** A browser: follows redirects by hand, keeps the cookies each host sets, and stops at the first page. */
async function browse(url: string, jar = new Map<string, string>()): Promise<{ status: number; text: string; url: string; jar: Map<string, string> }> {
  let at = url;
  for (let hops = 0; hops < 10; hops++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(at, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    const location = res.headers.get('location');
    // The double's consent page moves on by itself (a refresh to its button's address).
    const refresh = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(text)?.[1]?.replace(/&#38;/g, '&');
    if (location) at = new URL(location, at).toString();
    else if (refresh) at = refresh;
    else return { status: res.status, text, url: at, jar };
  }
  throw new Error('too many redirects');
}

/**
 * A web side of its own: the verification served on an ephemeral port, looking players up with
 * `lookup`, against the double's OAuth2 and this file's stores.
 */
async function webSide(
  o: Pick<Parameters<typeof createVerification>[0], 'lookup' | 'connections' | 'logger'> & { rolesTitle?: 'title_d' },
): Promise<{ web: WebServer; verification: WebVerification }> {
  const rest = new REST({ ...restOptions(discord.apiUrl), timeout: 10_000 });
  const clientId = () => Promise.resolve(APPLICATION_ID);
  // The web side's address is known once it listens; the verification is made for it.
  let handle: WebVerification['handle'] = () => Promise.resolve(false);
  const server = await startWebServer({ host: '127.0.0.1', port: 0, handle: (req, res) => handle(req, res), logger: o.logger });
  const made = createVerification({
    ...o,
    publicUrl: server.url,
    authorizeUrl: discord.oauth.authorizeUrl,
    clientId,
    oauth: discordOAuth(rest, clientId, discord.oauth.clientSecret),
    box: tokenBox(randomBytes(32)),
    store: stores.verify,
    links: stores.links,
  });
  handle = made.handle;
  return { web: server, verification: made };
}

beforeAll(async () => {
  [discord, service] = await Promise.all([startDiscordDouble(), startService()]);
  lookup = new LookupClient({ baseUrl: service.url, cache: await createLookupCache() });
  stores = await createBotStores({ namespace: `verify-${randomBytes(4).toString('hex')}`, linksPath: ':memory:' });
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  ({ web, verification } = await webSide({
    lookup,
    connections: { steam: 'pc_store_a', xbox: 'console_a', playstation: 'console_b', battlenet: 'pc_store_c' },
    rolesTitle: 'title_d',
    logger,
  }));
  discord.oauth.addMember({
    id: MEMBER,
    username: 'atlas',
    locale: 'de',
    connections: [
      { id: ATLAS_STEAM, name: 'AtlasMain', type: 'steam', verified: true },
      { id: 'x1', name: 'Atlas On Xbox', type: 'xbox', verified: false },
      { id: 'sp', name: 'atlas', type: 'spotify', verified: true },
    ],
  });
  // The metadata deploy-commands registers.
  await new REST(restOptions(discord.apiUrl))
    .setToken(discord.token)
    .put(`/applications/${APPLICATION_ID}/role-connections/metadata`, { body: roleConnectionRecords('title_d') });
}, 60_000);

afterAll(async () => {
  await web?.close();
  await stores?.close();
  await lookup?.close();
  await Promise.all([discord?.close(), service?.close()]);
});

beforeEach(() => {
  discord.oauth.decide('allow');
  discord.oauth.signIn(MEMBER);
});

describe('/verify on the interactions listener (HTTP mode without WEB_PORT)', () => {
  it('serves GET /verify there, and still refuses anything else that is not a signed interaction', async () => {
    const logger = pino({ level: 'silent' });
    const router = new Router({ logger } as unknown as Deps, logger);
    const server = await startInteractionsServer({
      host: '127.0.0.1',
      port: 0,
      publicKey: discord.publicKey,
      router,
      rest: new REST(),
      logger,
      web: verification.handle,
    });
    try {
      const start = await fetch(`http://127.0.0.1:${server.port}/verify`, { redirect: 'manual' });
      expect(start.status).toBe(302);
      expect(start.headers.get('location')).toContain(discord.oauth.authorizeUrl);
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(405);
      expect((await fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body: '{}' })).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('/verify', () => {
  it('links a verified Steam connection’s account as verified, carries its tier to Discord, and keeps the tokens sealed', async () => {
    const page = await browse(`${web.url}/verify`);
    expect(page.status).toBe(200);
    // In the member's language (Discord says German), what was linked and what was not, and why.
    expect(page.text).toContain('lang="de"');
    expect(page.text).toContain('Title D: AtlasMain auf PC Store A');
    expect(page.text).toContain('Xbox „Atlas On Xbox“: auf Discord nicht verifiziert');
    expect(page.text).not.toContain('spotify');
    expect(await stores.links.get(MEMBER, 'title_d')).toEqual({ platform: 'pc_store_a', identifier: ATLAS_STEAM, handle: 'AtlasMain', verified: true });
    // Silver is the third tier of title_d's ladder.
    expect(discord.oauth.roleConnection(MEMBER)).toMatchObject({
      platform_name: 'Title D · PC Store A',
      platform_username: 'AtlasMain',
      metadata: { tier: '3', verified: '1', rating: expect.stringMatching(/^\d+$/) as unknown, kd_x100: expect.stringMatching(/^\d+$/) as unknown },
    });
    // The grant is kept, sealed: neither token reads in the store, nor in a log line.
    const grant = await stores.verify.grant(MEMBER);
    expect(grant?.sealed).toMatch(/^v1\./);
    const tokens = discord.restCalls.filter((c) => c.path === '/oauth2/token').length;
    expect(tokens).toBeGreaterThan(0);
    for (const call of discord.restCalls.filter((c) => (c.headers.authorization ?? '').startsWith('Bearer '))) {
      const bearer = call.headers.authorization!.slice('Bearer '.length);
      expect(grant?.sealed).not.toContain(bearer);
      expect(JSON.stringify(lines)).not.toContain(bearer);
    }
    expect(JSON.stringify(lines)).not.toContain(discord.oauth.clientSecret);
  });

  it('refuses a replayed state, and one from another browser, with a clear page and nothing linked', async () => {
    const jar = new Map<string, string>();
    const start = await fetch(`${web.url}/verify`, { redirect: 'manual' });
    const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
    jar.set(cookie.split('=')[0]!, cookie.split('=')[1]!);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    discord.oauth.addMember({
      id: '1180000000000000778',
      username: 'other',
      connections: [{ id: ATLAS_STEAM, name: 'AtlasMain', type: 'steam', verified: true }],
    });
    discord.oauth.signIn('1180000000000000778');
    // Another browser (no cookie) arrives with this state: refused, and the state is spent.
    const stranger = await browse(`${web.url}/verify/callback?state=${state}&code=whatever`);
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain('started in another browser');
    // The state is single-use: the browser that started it, replaying it, is refused too.
    const replay = await browse(`${web.url}/verify/callback?state=${state}&code=whatever`, jar);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('used already or has expired');
    expect(await stores.links.get('1180000000000000778', 'title_d')).toBeUndefined();
  });

  it('says so when the member refuses consent, or their code has expired, and links nothing', async () => {
    const member = '1180000000000000779';
    discord.oauth.addMember({ id: member, username: 'refuser', connections: [{ id: ATLAS_STEAM, name: 'AtlasMain', type: 'steam', verified: true }] });
    discord.oauth.signIn(member);
    discord.oauth.decide('deny');
    const denied = await browse(`${web.url}/verify`);
    expect(denied.status).toBe(400);
    expect(denied.text).toContain('did not allow the bot');
    discord.oauth.decide('allow');
    // The member takes too long on Discord's page: their code has expired when it reaches the bot.
    const start = await fetch(`${web.url}/verify`, { redirect: 'manual' });
    const jar = new Map([start.headers.getSetCookie()[0]!.split(';')[0]!.split('=') as [string, string]]);
    const consent = await fetch(start.headers.get('location')!.replace('/oauth2/authorize?', '/oauth2/authorize/decide?') + '&allow=1', { redirect: 'manual' });
    discord.oauth.expireCodes();
    const late = await browse(consent.headers.get('location')!, jar);
    expect(late.status).toBe(400);
    expect(late.text).toContain('Discord refused the sign-in');
    expect(await stores.links.get(member, 'title_d')).toBeUndefined();
    expect(await stores.verify.grant(member)).toBeUndefined();
  });

  it('tells a member whose connections prove no player so, and keeps no grant', async () => {
    const member = '1180000000000000780';
    discord.oauth.addMember({ id: member, username: 'nobody', connections: [{ id: '76561190000000000', name: 'nobody', type: 'steam', verified: true }] });
    discord.oauth.signIn(member);
    const page = await browse(`${web.url}/verify`);
    expect(page.text).toContain('Nothing was linked');
    expect(page.text).toContain('Steam “nobody”: no player of that name on PC Store A');
    expect(await stores.verify.grant(member)).toBeUndefined();
    expect(discord.oauth.revoked().length).toBeGreaterThan(0);
  });

  it('says a connection could not be checked, not that there is no such player, when the stats service does not answer', async () => {
    const member = '1180000000000000781';
    discord.oauth.addMember({ id: member, username: 'unlucky', connections: [{ id: ATLAS_STEAM, name: 'AtlasMain', type: 'steam', verified: true }] });
    discord.oauth.signIn(member);
    const unanswered = { kind: 'timeout', status: null, message: 'The stats service did not answer in time.' };
    const silent = { profile: () => Promise.resolve({ errors: [unanswered] }), segments: () => Promise.resolve({ errors: [unanswered] }) };
    const { web: other } = await webSide({
      lookup: silent as unknown as LookupClient,
      connections: { steam: 'pc_store_a' },
      logger: pino({ level: 'silent' }),
    });
    try {
      const page = await browse(`${other.url}/verify`);
      expect(page.text).toContain('Nothing was linked');
      expect(page.text).toContain('Steam “AtlasMain”: could not be checked on PC Store A just now (the stats service did not answer)');
      expect(page.text).not.toContain('no player of that name');
      expect(await stores.links.get(member, 'title_d')).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('refreshes an expired access token to follow a member’s stats, and clears the role connection and revokes the grant at /unlink', async () => {
    discord.oauth.signIn(MEMBER);
    await browse(`${web.url}/verify`);
    const pushed = await stores.verify.grant(MEMBER);
    discord.oauth.expireAccessTokens();
    const before = discord.oauth.exchanges().refresh_token;
    // Another rating seen (a board, the feed): pushed once the push interval has passed, with a
    // token refreshed since Discord no longer takes the one kept.
    await stores.verify.setGrant(MEMBER, { ...pushed!, pushedAt: 0 });
    verification.seen(MEMBER, 'title_d', { rating: { value: 26_000, displayValue: '26,000', metadata: { tierName: 'Elite' } } } as never);
    await expect.poll(() => discord.oauth.roleConnection(MEMBER)?.metadata.tier, { timeout: 20_000 }).toBe('6');
    expect(discord.oauth.exchanges().refresh_token).toBe(before + 1);
    // The roles title unlinked: the role connection is cleared; the grant stays for the verified links left.
    const others = (await Promise.all(TITLE_SLUGS.map(async (t) => ((await stores.links.get(MEMBER, t))?.verified ? t : undefined)))).filter(
      (t) => t && t !== 'title_d',
    );
    expect(others.length).toBeGreaterThan(0);
    await stores.links.delete(MEMBER, 'title_d');
    await verification.forget(MEMBER);
    expect(discord.oauth.roleConnection(MEMBER)).toEqual({ platform_name: null, platform_username: null, metadata: {} });
    expect(await stores.verify.grant(MEMBER)).toBeDefined();
    // The last verified link unlinked: the grant is revoked at Discord and forgotten here.
    const revoked = discord.oauth.revoked().length;
    for (const t of others) await stores.links.delete(MEMBER, t!);
    await verification.forget(MEMBER);
    expect(discord.oauth.revoked().length).toBe(revoked + 1);
    expect(await stores.verify.grant(MEMBER)).toBeUndefined();
  });
});
