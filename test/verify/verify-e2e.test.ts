// Verified accounts end to end: the real bot process (gateway mode, its web side on WEB_PORT)
// against the Discord double, on the demo data. A real browser (headless Chromium) walks `/verify`
// through the double's consent page to the result page; `/link` offers the way there, and
// `/leaderboard` marks the member verified.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput, startDiscordDouble, GUILD_ID, type DiscordDouble } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.verify-token-abcdefghijklmnopqrstuv';
/** Demo data: AtlasMain plays title_d on PC Store A, ranked Silver (the ladder's third tier). */
const ATLAS_STEAM = '76561198000000017';
const MEMBER = { id: '1180000000000000901', username: 'atlas' };

/** The browser the web pages are walked in: CHROME, else chromium on the PATH; none, and the walk is skipped. */
const CHROMIUM = [process.env.CHROME, 'chromium', 'chromium-browser', 'google-chrome']
  .filter((c): c is string => !!c)
  .map((c) => spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' }).stdout.trim())
  .find((p) => p !== '');
if (!CHROMIUM) console.warn('headless Chromium not found (apt-get install -y chromium): the browser walk of /verify is skipped');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Chromium, headless, on a profile of its own, at phone width: what it prints (the page with
 * `--dump-dom`). Not spawnSync: the Discord double lives in this process and must keep answering.
 */
function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'verify-chromium-'));
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--window-size=400,900'];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM!, [...flags, '--virtual-time-budget=15000', `--user-data-dir=${profile}`, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

let double: DiscordDouble;
let bot: BotProcess;
let publicUrl: string;

beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  double.oauth.addMember({ ...MEMBER, locale: 'en-US', connections: [{ id: ATLAS_STEAM, name: 'AtlasMain', type: 'steam', verified: true }] });
  double.oauth.signIn(MEMBER.id);
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  bot = startBot({
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: double.apiUrl,
    PUBLIC_URL: publicUrl,
    WEB_PORT: String(port),
    WEB_HOST: '127.0.0.1',
    DISCORD_CLIENT_SECRET: double.oauth.clientSecret,
    DISCORD_OAUTH_AUTHORIZE_URL: double.oauth.authorizeUrl,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LINKED_ROLES_TITLE: 'title_d',
  });
  await double.waitForReady(30_000);
  await bot.printed('web side listening', 30_000);
  await bot.storeLoaded();
  // What deploy-commands registers (its own test runs it): the records a role connection may carry.
  await fetch(`${double.apiUrl}/v10/applications/${double.applicationId}/role-connections/metadata`, {
    method: 'PUT',
    headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify((await import('../../src/verify/linked-roles.js')).roleConnectionRecords('title_d')),
  });
}, 60_000);

afterAll(async () => {
  if (bot?.child.exitCode === null) bot.child.kill('SIGKILL');
  await double?.close();
});

interface Callback {
  data?: { content?: string; embeds?: { description?: string }[]; components?: { components: { style?: number; url?: string; label?: string }[] }[] };
}

async function reply(payload: Parameters<DiscordDouble['dispatchInteraction']>[0]): Promise<Callback['data']> {
  const handle = double.dispatchInteraction(payload);
  const calls = await handle.waitForResponses(1, 20_000);
  const first = (calls[0]!.body as { type: number; data?: Callback['data'] }) ?? {};
  if (first.type !== 5) return first.data;
  const [, edit] = await handle.waitForResponses(2, 20_000);
  return edit!.body as Callback['data'];
}

describe('verified accounts, end to end', () => {
  it('/link offers "Verify with Discord", a link to the web side', async () => {
    const data = await reply(chatInput({ command: 'link', user: MEMBER, options: { title: 'title_c', platform: 'console_a', player: 'Nova' } }));
    const button = data?.components?.[0]?.components[0];
    expect(button).toMatchObject({ style: 5, url: `${publicUrl}/verify`, label: 'Verify with Discord' });
  });

  it.skipIf(!CHROMIUM)('a member walks /verify in a browser: consents on Discord, and is linked, verified, with their tier carried to Discord', async () => {
    const dom = await chromium(['--dump-dom', `${publicUrl}/verify`]);
    expect(dom).toContain('Title D: AtlasMain on PC Store A');
    expect(dom).toContain('Roles that ask for your Title D tier');
    expect(double.oauth.roleConnection(MEMBER.id)?.metadata).toMatchObject({ tier: '3', verified: '1' });
    // The page as a phone shows it.
    const shot = join(mkdtempSync(join(tmpdir(), 'verify-shot-')), 'verify-400.png');
    await chromium([`--screenshot=${shot}`, `${publicUrl}/verify`]);
    expect(existsSync(shot)).toBe(true);
    const png = readFileSync(shot);
    expect(png.readUInt32BE(16)).toBe(400);
  });

  it('a replayed state is refused with a page that says so', async () => {
    const start = await fetch(`${publicUrl}/verify`, { redirect: 'manual' });
    const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const consent = await fetch(`${double.oauth.authorizeUrl}/decide?${new URL(start.headers.get('location')!).searchParams.toString()}&allow=1`, {
      redirect: 'manual',
    });
    const callback = consent.headers.get('location')!;
    expect(new URL(callback).searchParams.get('state')).toBe(state);
    const first = await fetch(callback, { headers: { cookie } });
    expect(first.status).toBe(200);
    const again = await fetch(callback, { headers: { cookie } });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('used already or has expired');
  });

  it('/leaderboard marks the verified member', async () => {
    // Verified by the walks above (or the replay test when there is no browser).
    const data = await reply(chatInput({ command: 'leaderboard', user: MEMBER, guildId: GUILD_ID, options: { title: 'title_d' } }));
    const text = data?.embeds?.[0]?.description ?? '';
    expect(text).toMatch(/<@1180000000000000901> \*\*AtlasMain\*\*\u00a0✅/);
    expect(text).toContain('✅ verified through Discord');
    // No token or secret in anything the bot printed.
    expect(bot.output()).not.toContain(double.oauth.clientSecret);
  });
});
