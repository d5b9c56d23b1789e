// The bot's processes at their edges: registering commands, refusing bad configuration, and
// keeping Discord's deadlines when the stats service hangs.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { commands } from '../../commands/index.js';
import { autocomplete, chatInput, component, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { cleanEnv, startBot, tempLinksDb, type BotProcess } from '../helpers/bot.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { finalAnswer } from '../helpers/interactions.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.process-token-abcdefghijklmnopqrstu';
const GUILD = '1180000000000000100';

const links = tempLinksDb;

/** Runs a command to its end. Not spawnSync: the double lives in this process and must keep answering. */
function run(script: string, env: Record<string, string>, args: string[] = []): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { ...cleanEnv(), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let double: DiscordDouble;
beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
});
afterAll(async () => {
  await double.close();
});

describe('npm run deploy-commands', () => {
  it('registers the commands globally, reading the application id from Discord', async () => {
    const r = await run('src/bot/deploy.ts', { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Registered ${commands.length} commands (${commands.map((c) => `/${c.data.name}`).join(', ')}) globally for application ${double.applicationId}.\n`,
    );
    expect((double.commands.global as { name: string }[]).map((c) => c.name)).toEqual(commands.map((c) => c.data.name));
    // In every language the bot speaks: a German client sees German command names.
    expect(
      (double.commands.global as { name: string; name_localizations?: Record<string, string> }[]).find((c) => c.name === 'stats')?.name_localizations?.de,
    ).toBe('statistik');
  });

  it('registers the Linked Roles metadata of LINKED_ROLES_TITLE too, and refuses a title that is not one', async () => {
    const r = await run('src/bot/deploy.ts', { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LINKED_ROLES_TITLE: 'title_b' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `Registered the Linked Roles metadata of Title B (tier, rating, kd_x100, wins, verified) for application ${double.applicationId}.`,
    );
    expect(double.oauth.metadata().map((m) => [m.key, m.type])).toEqual([
      ['tier', 2],
      ['rating', 2],
      ['kd_x100', 2],
      ['wins', 2],
      ['verified', 7],
    ]);
    const wrong = await run('src/bot/deploy.ts', { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LINKED_ROLES_TITLE: 'title_z' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('LINKED_ROLES_TITLE title_z is not a title');
  });

  it('registers them in one guild when DISCORD_GUILD_ID is set', async () => {
    const r = await run('src/bot/deploy.ts', {
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      DISCORD_GUILD_ID: GUILD,
      DISCORD_APPLICATION_ID: double.applicationId,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`in guild ${GUILD}`);
    expect(double.commands.guilds.get(GUILD)).toHaveLength(commands.length);
  });

  it('removes them from that guild with --remove (after a move to global commands, which the guild would show twice)', async () => {
    const env = { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, DISCORD_GUILD_ID: GUILD };
    expect((await run('src/bot/deploy.ts', env)).status).toBe(0);
    expect(double.commands.guilds.get(GUILD)).toHaveLength(commands.length);
    const globally = (double.commands.global as unknown[]).length;
    const r = await run('src/bot/deploy.ts', env, ['--remove']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Removed the commands in guild ${GUILD} for application ${double.applicationId}.\n`);
    expect(double.commands.guilds.get(GUILD)).toEqual([]);
    expect((double.commands.global as unknown[]).length).toBe(globally);
    const wrong = await run('src/bot/deploy.ts', env, ['--remvoe']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('Usage: npm run deploy-commands');
  });

  it('fails with one line, and no token, when Discord refuses', async () => {
    const wrong = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.wrong-token-abcdefghijklmnopqrstuvw';
    const r = await run('src/bot/deploy.ts', { DISCORD_TOKEN: wrong, DISCORD_API_URL: double.apiUrl });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Could not register the commands: /);
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });

  it('names the setting Discord refused: the token, an application id not the token’s, a guild the bot is not in', async () => {
    const told = async (env: Record<string, string>, args: string[] = []) => {
      const r = await run('src/bot/deploy.ts', { DISCORD_API_URL: double.apiUrl, DISCORD_TOKEN: TOKEN, ...env }, args);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toContain(env.DISCORD_TOKEN ?? TOKEN);
      return r.stderr.trim();
    };
    const wrong = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.wrong-token-abcdefghijklmnopqrstuvw';
    expect(await told({ DISCORD_TOKEN: wrong })).toBe(
      'Could not register the commands: Discord refused DISCORD_TOKEN (401: Unauthorized): reset it in the developer portal (Bot > Reset Token) and put the new one in DISCORD_TOKEN',
    );
    // The same with the application id given: the token is what is wrong, not the id.
    expect(await told({ DISCORD_TOKEN: wrong, DISCORD_APPLICATION_ID: double.applicationId })).toContain('Discord refused DISCORD_TOKEN (401: Unauthorized)');
    const otherApp = '1180000000000000777';
    const wrongApp = `DISCORD_APPLICATION_ID ${otherApp} does not belong to the token's application, ${double.applicationId} (Discord: Missing Access): leave it blank to read it from Discord`;
    expect(await told({ DISCORD_APPLICATION_ID: otherApp })).toBe(`Could not register the commands: ${wrongApp}`);
    expect(await told({ DISCORD_APPLICATION_ID: otherApp, DISCORD_GUILD_ID: GUILD }, ['--remove'])).toBe(`Could not remove the commands: ${wrongApp}`);
    const strange = '1180000000000000555';
    const notInGuild = `Could not register the commands: the bot is not in guild ${strange} (DISCORD_GUILD_ID; Discord: Missing Access): invite it with the applications.commands scope (developer portal, OAuth2 > URL Generator), or correct DISCORD_GUILD_ID`;
    expect(await told({ DISCORD_GUILD_ID: strange })).toBe(notInGuild);
    expect(await told({ DISCORD_GUILD_ID: strange, DISCORD_APPLICATION_ID: double.applicationId })).toBe(notInGuild);
    expect(double.commands.guilds.has(strange)).toBe(false);
  });

  it('prints its usage with --help and exits 0', async () => {
    const r = await run('src/bot/deploy.ts', {}, ['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: npm run deploy-commands/);
    expect(r.stdout).toContain('--remove');
    expect(r.stderr).toBe('');
  });
});

describe('npm start with bad configuration', () => {
  it('names a missing or malformed variable in one line and exits non-zero', async () => {
    const missing = await run('src/bot/main.ts', { LINKS_DB: links() });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim()).toBe('Configuration: DISCORD_TOKEN is required: the bot token from the Discord developer portal (Bot > Reset Token)');
    const malformed = await run('src/bot/main.ts', { DISCORD_TOKEN: 'secret-but-malformed', LINKS_DB: links() });
    expect(malformed.status).toBe(2);
    expect(malformed.stderr.trim()).toBe('Configuration: DISCORD_TOKEN is not a bot token (three parts separated by dots)');
    expect(malformed.stderr).not.toContain('secret-but-malformed');
    const url = await run('src/bot/main.ts', { DISCORD_TOKEN: TOKEN, CACHE_URL: 'localhost:6379', LINKS_DB: links() });
    expect(url.status).toBe(2);
    expect(url.stderr.trim()).toBe('Configuration: CACHE_URL must be a URL such as redis://127.0.0.1:6379');
  });

  it('exits with one line when the dataset is not there or cannot be read', async () => {
    const missing = await run('src/bot/main.ts', {
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      STATS_DATASET: '/nonexistent/data.jsonl',
      LINKS_DB: links(),
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim()).toBe('Configuration: STATS_DATASET (/nonexistent/data.jsonl) does not exist');
    // There, but not a file to read (a folder).
    const unreadable = await run('src/bot/main.ts', { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, STATS_DATASET: 'examples', LINKS_DB: links() });
    expect(unreadable.status).toBe(1);
    expect(unreadable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreadable.stderr).toMatch(/^Could not start the lookups: the dataset could not be imported: .*EISDIR/);
  });

  it('exits 1 with one line when LINKS_DB was moved to Redis and CACHE_URL is gone, instead of starting with no links', async () => {
    const file = links();
    writeFileSync(`${file}.moved-to-redis`, '');
    const r = await run('src/bot/main.ts', {
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      STATS_DATASET: 'examples/small-dataset.jsonl',
      LINKS_DB: file,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toBe(
      `Could not start: LINKS_DB (${file}) was moved to Redis (${file}.moved-to-redis): set CACHE_URL again, or rename that file back to ${file} to use it without Redis (links made since in Redis are not in it)`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('exits 1 without printing the token when Discord refuses it', async () => {
    const wrong = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.refused-token-abcdefghijklmnopqrst';
    // A service of its own address, none there: the refusal comes before any lookup, and no embedded store is loaded first.
    const r = await run('src/bot/main.ts', {
      DISCORD_TOKEN: wrong,
      DISCORD_API_URL: double.apiUrl,
      LINKS_DB: links(),
      LOG_LEVEL: 'info',
      LOOKUP_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('could not connect to Discord');
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });
});

describe('the bot when the stats service hangs', () => {
  let fault: FaultServer;
  let hanging: DiscordDouble;
  let bot: BotProcess;
  const output = () => bot.output();
  const printed = (text: string) => bot.printed(text);

  beforeAll(async () => {
    fault = await startFaultServer({ hang: true });
    hanging = await startDiscordDouble({ token: TOKEN });
    bot = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: hanging.apiUrl, LOOKUP_BASE_URL: fault.url, LOOKUP_TIMEOUT_MS: '1500' });
    await hanging.waitForReady(30_000);
  }, 40_000);

  afterAll(async () => {
    bot.child.kill('SIGKILL');
    await hanging.close();
    await fault.close();
  });

  it('answers autocomplete within Discord’s deadline, echoing what was typed', async () => {
    const handle = hanging.dispatchInteraction(
      autocomplete({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nova#22' }, focused: 'player' }),
    );
    const call = await handle.firstResponse(3_000);
    expect(call.at - handle.dispatchedAt).toBeLessThan(2_500);
    expect(call.body).toEqual({ type: 8, data: { choices: [{ name: 'Nova#22', value: 'Nova#22' }] } });
  });

  it('defers a command that waits on the network, then tells the invoker alone that the service did not answer', async () => {
    const handle = hanging.dispatchInteraction(
      chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nova#2231' } }),
    );
    const calls = await handle.waitForResponses(3, 5_000);
    expect(calls[0]?.body).toMatchObject({ type: 5 });
    expect(calls[0]!.at - handle.dispatchedAt).toBeLessThan(1_000);
    expect(calls[1]).toMatchObject({ method: 'DELETE' });
    expect(calls[2]).toMatchObject({ method: 'POST', body: { flags: 64 } });
    expect((calls[2]?.body as { content: string }).content).toContain('did not answer in time');
    // The log line follows the last REST call.
    expect(await printed('"outcome":"deferred"')).toContain('"outcome":"deferred"');
  });

  it('logs each interaction with its command and duration, and no secrets', () => {
    const lines = output()
      .split('\n')
      .filter((l) => l.includes('"msg":"interaction"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.map((l) => l.command)).toContain('stats title_c profile');
    for (const l of lines) expect(typeof l.ms).toBe('number');
    expect(output()).not.toContain(TOKEN);
  });
});

describe('controls', () => {
  it('expire after CONTROLS_TTL_MS: a press is told so, and no message is edited for it', async () => {
    const quick = await startDiscordDouble({ token: TOKEN });
    const bot = startBot({
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: quick.apiUrl,
      STATS_DATASET: 'examples/small-dataset.jsonl',
      CONTROLS_TTL_MS: '1000',
    });
    try {
      await quick.waitForReady(30_000);
      await bot.storeLoaded();
      const handle = quick.dispatchInteraction(chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'ashplays' } }));
      const reply = await finalAnswer(handle);
      const answered = handle.responses().length;
      const rows = (reply.data as { components: { components: { custom_id?: string; disabled?: boolean }[] }[] }).components;
      const menu = rows.flatMap((r) => r.components).find((c) => c.custom_id?.startsWith('op:'));
      expect(menu).toBeDefined();
      await new Promise((r) => setTimeout(r, 1_300));
      const press = quick.dispatchInteraction(component({ customId: menu!.custom_id!, values: ['a-1'] }));
      expect(await finalAnswer(press)).toMatchObject({ type: 4, data: { flags: 64, content: 'These controls have expired. Run the command again.' } });
      // Switching them off costs no edit of the message: nothing but the press's answer went out.
      expect(handle.responses()).toHaveLength(answered);
    } finally {
      bot.child.kill('SIGKILL');
      await quick.close();
    }
  });
});
