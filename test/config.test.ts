import { describe, expect, it } from 'vitest';

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { getHeapStatistics } from 'node:v8';

import { ConfigError, importNice, loadBotConfig, loadDotEnv, loadLookupConfig, loadPreviewConfig, loadServiceConfig, unknownSettings } from '../src/config.js';
import { NO_SETTINGS, cleanEnv } from './helpers/bot.js';

describe('configuration', () => {
  it('reads the lookup settings, blank values counting as unset', () => {
    expect(loadLookupConfig({})).toEqual({
      LOOKUP_TIMEOUT_MS: 5_000,
      CACHE_NAMESPACE: 'player-stats',
      LOOKUP_PATH_VALUES: {},
      CACHE_MAX_MB: 32,
      STATS_IMPORT_NICE: 10,
      LOG_LEVEL: 'info',
    });
    // The embedded import's priority: 0 (as fast as the bot) to 19.
    expect(loadLookupConfig({ STATS_IMPORT_NICE: '0' }).STATS_IMPORT_NICE).toBe(0);
    expect(() => loadLookupConfig({ STATS_IMPORT_NICE: '20' })).toThrow(/STATS_IMPORT_NICE.*0 to 19/);
    expect([importNice({}), importNice({ STATS_IMPORT_NICE: '3' })]).toEqual([10, 3]);
    expect(loadLookupConfig({ LOOKUP_PATH_VALUES: ' title_b=apex, pc_store_b=origin ' }).LOOKUP_PATH_VALUES).toEqual({ title_b: 'apex', pc_store_b: 'origin' });
    expect(
      loadLookupConfig({
        LOOKUP_BASE_URL: 'https://stats.example.com/api',
        LOOKUP_API_KEY: 'k',
        CACHE_URL: 'redis://:pw@127.0.0.1:6379/2',
        LOOKUP_TIMEOUT_MS: '2500',
        STATS_DATASET: '',
        LOG_LEVEL: '',
      }),
    ).toMatchObject({
      LOOKUP_BASE_URL: 'https://stats.example.com/api',
      LOOKUP_API_KEY: 'k',
      CACHE_URL: 'redis://:pw@127.0.0.1:6379/2',
      LOOKUP_TIMEOUT_MS: 2_500,
      LOG_LEVEL: 'info',
    });
  });

  it('takes an API key with a line end as the key, and refuses one a header cannot carry, naming it, never echoing it', () => {
    expect(loadLookupConfig({ LOOKUP_API_KEY: 'cli-secret-key\n' }).LOOKUP_API_KEY).toBe('cli-secret-key');
    let message = '';
    try {
      loadLookupConfig({ LOOKUP_API_KEY: 'cli secret\u0007key' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^Configuration: LOOKUP_API_KEY has characters a header cannot carry/);
    expect(message).not.toContain('secret');
  });

  it('names the bad variable in one line, never its value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ LOOKUP_BASE_URL: 'ftp://secret-host' }, 'Configuration: LOOKUP_BASE_URL must be a URL such as https://stats.example.com'],
      [{ CACHE_URL: 'http://user:hunter2@host' }, 'Configuration: CACHE_URL must be a URL such as redis://127.0.0.1:6379'],
      [
        { CACHE_URL: 'redis://:hunter2%zz@host' },
        'Configuration: CACHE_URL has a user or password with a % not followed by two hex digits (write a % in them as %25)',
      ],
      [{ LOOKUP_BASE_URL: 'https://us%er:hunter2@host' }, 'Configuration: LOOKUP_BASE_URL has a user or password with a % not followed by two hex digits'],
      [{ LOOKUP_TIMEOUT_MS: 'soon' }, 'Configuration: LOOKUP_TIMEOUT_MS must be a number of milliseconds'],
      [{ LOOKUP_TIMEOUT_MS: '5' }, 'Configuration: LOOKUP_TIMEOUT_MS must be at least 100 (milliseconds)'],
      [{ CACHE_NAMESPACE: 'a b' }, 'Configuration: CACHE_NAMESPACE must be letters, digits, _, . or - (at most 64)'],
      [{ LOG_LEVEL: 'loud' }, 'Configuration: LOG_LEVEL'],
      [{ LOOKUP_PATH_VALUES: 'title_b:apex' }, 'Configuration: LOOKUP_PATH_VALUES must be name=value pairs separated by commas'],
    ];
    for (const [env, message] of cases) {
      let error: unknown;
      try {
        loadLookupConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message.startsWith(message), (error as Error).message).toBe(true);
      expect((error as Error).message).not.toMatch(/hunter2|secret-host|\n/);
    }
  });

  it('reads the service settings', () => {
    expect(loadServiceConfig({ SERVICE_API_KEYS: ' a, b ,', SERVICE_RATE_LIMIT_PER_MINUTE: '600' })).toEqual({
      SERVICE_API_KEYS: ['a', 'b'],
      SERVICE_RATE_LIMIT_PER_MINUTE: 600,
      SERVICE_MAX_CONNECTIONS: 512,
      SERVICE_IDLE_TIMEOUT_MS: 30_000,
      METRICS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    expect(loadServiceConfig({})).toEqual({
      SERVICE_API_KEYS: [],
      SERVICE_RATE_LIMIT_PER_MINUTE: 0,
      SERVICE_MAX_CONNECTIONS: 512,
      SERVICE_IDLE_TIMEOUT_MS: 30_000,
      METRICS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
  });

  it('keeps metrics off unless METRICS_PORT is set, on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadServiceConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadServiceConfig({ METRICS_PORT: '' }).METRICS_PORT).toBeUndefined();
    expect(loadServiceConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: '0.0.0.0' });
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN, METRICS_PORT: '9464' })).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: '127.0.0.1' });
    expect(() => loadServiceConfig({ METRICS_PORT: 'ninety' })).toThrow('Configuration: METRICS_PORT must be a port number');
    expect(() => loadServiceConfig({ METRICS_PORT: '70000' })).toThrow('Configuration: METRICS_PORT must be a port number (1 to 65535)');
    expect(() => loadServiceConfig({ METRICS_HOST: 'a host' })).toThrow('Configuration: METRICS_HOST must be an address to listen on');
  });
});

const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz012345';

describe('bot configuration', () => {
  it('needs a bot token, and says where to get one without echoing a bad one', () => {
    expect(() => loadBotConfig({})).toThrow('Configuration: DISCORD_TOKEN is required: the bot token from the Discord developer portal');
    let message = '';
    try {
      loadBotConfig({ DISCORD_TOKEN: 'hunter2-not-a-token' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe('Configuration: DISCORD_TOKEN is not a bot token (three parts separated by dots)');
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, DISCORD_GUILD_ID: 'my-guild' })).toThrow('Configuration: DISCORD_GUILD_ID must be a guild id');
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: 'discord.com' })).toThrow('Configuration: DISCORD_API_URL must be a URL');
  });

  it('refuses a blank token as missing, a DISCORD_API_URL with the version, and takes one with a trailing slash', () => {
    expect(() => loadBotConfig({ DISCORD_TOKEN: ' ' })).toThrow('Configuration: DISCORD_TOKEN is required');
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: 'http://127.0.0.1:9/api/v10' })).toThrow(
      'Configuration: DISCORD_API_URL must end before the version',
    );
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: 'http://127.0.0.1:9/api/' }).DISCORD_API_URL).toBe('http://127.0.0.1:9/api');
  });

  it('bounds what lives in the heap: CACHE_MAX_MB at half of it, VIEWS_MAX_ENTRIES at 200,000', () => {
    const half = Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20 / 2);
    expect(loadLookupConfig({ CACHE_MAX_MB: String(half) }).CACHE_MAX_MB).toBe(half);
    expect(() => loadLookupConfig({ CACHE_MAX_MB: String(half + 1) })).toThrow(
      `Configuration: CACHE_MAX_MB must be at most half of this process's heap (${half} MB`,
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, VIEWS_MAX_ENTRIES: '100000000' })).toThrow('Configuration: VIEWS_MAX_ENTRIES must be at most 200000');
  });

  it('defaults to Discord’s API and a links file', () => {
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN })).toMatchObject({
      DISCORD_API_URL: 'https://discord.com/api',
      LINKS_DB: '.data/links.sqlite',
      CACHE_NAMESPACE: 'player-stats',
    });
  });

  it("gives the preview a file of its own, never the bot's links file", () => {
    expect(loadPreviewConfig({})).toMatchObject({ PREVIEW_DB: '.data/preview.sqlite', LINKS_DB: '.data/links.sqlite' });
    expect(loadPreviewConfig({ PREVIEW_DB: ' ', LINKS_DB: 'bot.sqlite' })).toMatchObject({ PREVIEW_DB: '.data/preview.sqlite' });
    expect(() => loadPreviewConfig({ PREVIEW_DB: './.data/links.sqlite' })).toThrow(
      new ConfigError("Configuration: PREVIEW_DB must not be LINKS_DB (.data/links.sqlite): the preview's made-up links and channels would reach the bot"),
    );
  });

  it('runs the gateway on one shard unless told otherwise, and HTTP interactions only with the public key', () => {
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN })).toMatchObject({ INTERACTIONS_MODE: 'gateway', INTERACTIONS_PORT: 8080, INTERACTIONS_HOST: '0.0.0.0' });
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN }).SHARD_COUNT).toBeUndefined();
    const key = 'ab'.repeat(32);
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN, INTERACTIONS_MODE: 'http', DISCORD_PUBLIC_KEY: key, INTERACTIONS_PORT: '3000' })).toMatchObject({
      INTERACTIONS_MODE: 'http',
      DISCORD_PUBLIC_KEY: key,
      INTERACTIONS_PORT: 3000,
    });
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, INTERACTIONS_MODE: 'http' })).toThrow(
      'Configuration: DISCORD_PUBLIC_KEY is required with INTERACTIONS_MODE=http',
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, INTERACTIONS_MODE: 'webhook' })).toThrow('Configuration: INTERACTIONS_MODE must be gateway or http');
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, DISCORD_PUBLIC_KEY: 'not-a-key' })).toThrow(
      'Configuration: DISCORD_PUBLIC_KEY must be the application public key',
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, INTERACTIONS_PORT: '70000' })).toThrow('Configuration: INTERACTIONS_PORT must be a port number');
  });

  it('turns verified accounts on with PUBLIC_URL, which then needs the client secret, the token key and, in gateway mode, WEB_PORT', () => {
    const key = 'ab'.repeat(32);
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN }).PUBLIC_URL).toBeUndefined();
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN })).toMatchObject({
      VERIFY_CONNECTIONS: { pc_store_a: 'steam', console_a: 'xbox', console_b: 'playstation', pc_store_c: 'battlenet' },
      DISCORD_OAUTH_AUTHORIZE_URL: 'https://discord.com/oauth2/authorize',
    });
    const web = {
      DISCORD_TOKEN: TOKEN,
      PUBLIC_URL: 'https://stats-bot.example.com/',
      DISCORD_CLIENT_SECRET: 'a-client-secret-of-32-characters',
      TOKEN_ENCRYPTION_KEY: key,
    };
    expect(() => loadBotConfig({ ...web, DISCORD_CLIENT_SECRET: '' })).toThrow('DISCORD_CLIENT_SECRET is required with PUBLIC_URL');
    expect(() => loadBotConfig({ ...web, TOKEN_ENCRYPTION_KEY: '' })).toThrow('TOKEN_ENCRYPTION_KEY is required with PUBLIC_URL');
    expect(() => loadBotConfig(web)).toThrow('WEB_PORT is required with PUBLIC_URL in gateway mode');
    expect(loadBotConfig({ ...web, WEB_PORT: '8081' })).toMatchObject({ PUBLIC_URL: 'https://stats-bot.example.com', WEB_PORT: 8081 });
    // HTTP mode serves /verify on the interactions listener.
    expect(loadBotConfig({ ...web, INTERACTIONS_MODE: 'http', DISCORD_PUBLIC_KEY: 'a'.repeat(64) }).WEB_PORT).toBeUndefined();
    // A key that is not 32 bytes is refused, never echoed.
    let told = '';
    try {
      loadBotConfig({ ...web, WEB_PORT: '8081', TOKEN_ENCRYPTION_KEY: 'secret-but-short' });
    } catch (e) {
      told = (e as Error).message;
    }
    expect(told).toContain('TOKEN_ENCRYPTION_KEY must be 32 random bytes');
    expect(told).not.toContain('secret-but-short');
  });

  it('reads the shards a process runs as numbers and ranges of SHARD_COUNT', () => {
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '8', SHARD_IDS: '4-6,0,5' })).toMatchObject({ SHARD_COUNT: 8, SHARD_IDS: [0, 4, 5, 6] });
    expect(loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '2' }).SHARD_IDS).toBeUndefined();
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_IDS: '0' })).toThrow('Configuration: SHARD_IDS needs SHARD_COUNT');
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '2', SHARD_IDS: '1,2' })).toThrow(
      'Configuration: SHARD_IDS names shard 2, but SHARD_COUNT makes shards 0 to 1',
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '4', SHARD_IDS: '3-1' })).toThrow(
      'Configuration: SHARD_IDS has a range that runs backwards',
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '4', SHARD_IDS: 'all' })).toThrow(
      'Configuration: SHARD_IDS must be shard numbers and ranges',
    );
    expect(() => loadBotConfig({ DISCORD_TOKEN: TOKEN, SHARD_COUNT: '0' })).toThrow('Configuration: SHARD_COUNT must be at least 1');
  });

  it('reads the settings file ENV_FILE names, where variables already set win; a named file that is missing is told', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    const file = join(dir, 'bot.env');
    writeFileSync(file, 'DOTENV_TEST_A=from-file\nDOTENV_TEST_B=from-file\n');
    const before = process.env.ENV_FILE;
    process.env.DOTENV_TEST_B = 'from-environment';
    try {
      process.env.ENV_FILE = file;
      loadDotEnv();
      expect(process.env.DOTENV_TEST_A).toBe('from-file');
      expect(process.env.DOTENV_TEST_B).toBe('from-environment');
      process.env.ENV_FILE = join(dir, 'missing.env');
      expect(() => loadDotEnv()).toThrow(`Configuration: ENV_FILE (${join(dir, 'missing.env')}) could not be read`);
    } finally {
      process.env.ENV_FILE = before;
      delete process.env.DOTENV_TEST_A;
      delete process.env.DOTENV_TEST_B;
    }
  });

  it('reads .env of the working directory without ENV_FILE, and goes on without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    const before = { cwd: process.cwd(), file: process.env.ENV_FILE };
    delete process.env.ENV_FILE;
    try {
      process.chdir(dir);
      expect(() => loadDotEnv()).not.toThrow();
      writeFileSync(join(dir, '.env'), 'DOTENV_TEST_C=from-dot-env\n');
      loadDotEnv();
      expect(process.env.DOTENV_TEST_C).toBe('from-dot-env');
    } finally {
      process.chdir(before.cwd);
      process.env.ENV_FILE = before.file;
      delete process.env.DOTENV_TEST_C;
    }
  });

  it("keeps a developer's .env out of the tests: they run with ENV_FILE naming a file of no settings", () => {
    expect(process.env.ENV_FILE).toBe(NO_SETTINGS);
    expect(cleanEnv().ENV_FILE).toBe(NO_SETTINGS);
    expect(readFileSync(NO_SETTINGS, 'utf8')).not.toMatch(/^[A-Z_]+=/m);
  });

  it('names a setting no command reads, with the one it likely meant: in the settings file any name, in the environment those shaped like a setting', () => {
    expect(
      unknownSettings(
        ['SERVICE_API_KEY', 'DISCORD_GUILDID', 'LOG_LEVEL', 'MY_OWN_THING'],
        { CARD: 'off', HOME: '/root', LOOKUP_TIMEOUT_MS: '5000', DISCORD_GUILDID: '1' },
        '.env',
      ),
    ).toEqual([
      'Configuration: SERVICE_API_KEY (in .env) is not a setting and is ignored: did you mean SERVICE_API_KEYS?',
      'Configuration: DISCORD_GUILDID (in .env) is not a setting and is ignored: did you mean DISCORD_GUILD_ID?',
      'Configuration: MY_OWN_THING (in .env) is not a setting and is ignored',
      'Configuration: CARD (in the environment) is not a setting and is ignored: did you mean CARDS?',
    ]);
    // Every name .env.example sets is one some command reads.
    expect(unknownSettings(Object.keys(parseEnv(readFileSync('.env.example', 'utf8'))), {})).toEqual([]);
  });

  it('tells a misspelled name in the settings file on stderr as the file is read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    const file = join(dir, 'typo.env');
    writeFileSync(file, 'SERVICE_API_KEY=secret-key-1\n');
    const before = process.env.ENV_FILE;
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(chunk) > 0;
    try {
      process.env.ENV_FILE = file;
      loadDotEnv();
    } finally {
      process.stderr.write = write;
      process.env.ENV_FILE = before;
      delete process.env.SERVICE_API_KEY;
    }
    expect(written).toEqual([`Configuration: SERVICE_API_KEY (in ${file}) is not a setting and is ignored: did you mean SERVICE_API_KEYS?\n`]);
    expect(written.join('')).not.toContain('secret-key-1');
  });
});
