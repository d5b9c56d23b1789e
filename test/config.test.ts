import { describe, expect, it } from 'vitest';

import { ConfigError, loadLookupConfig, loadServiceConfig } from '../src/config.js';

describe('configuration', () => {
  it('reads the lookup settings, blank values counting as unset', () => {
    expect(loadLookupConfig({})).toEqual({ LOOKUP_TIMEOUT_MS: 5_000, CACHE_NAMESPACE: 'player-stats', LOG_LEVEL: 'info' });
    expect(
      loadLookupConfig({ LOOKUP_BASE_URL: 'https://stats.example.com/api', LOOKUP_API_KEY: 'k', CACHE_URL: 'redis://:pw@127.0.0.1:6379/2', LOOKUP_TIMEOUT_MS: '2500', STATS_DATASET: '', LOG_LEVEL: '' }),
    ).toMatchObject({ LOOKUP_BASE_URL: 'https://stats.example.com/api', LOOKUP_API_KEY: 'k', CACHE_URL: 'redis://:pw@127.0.0.1:6379/2', LOOKUP_TIMEOUT_MS: 2_500, LOG_LEVEL: 'info' });
  });

  it('names the bad variable in one line, never its value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ LOOKUP_BASE_URL: 'ftp://secret-host' }, 'Configuration: LOOKUP_BASE_URL must be a URL such as https://stats.example.com'],
      [{ CACHE_URL: 'http://user:hunter2@host' }, 'Configuration: CACHE_URL must be a URL such as redis://127.0.0.1:6379'],
      [{ LOOKUP_TIMEOUT_MS: 'soon' }, 'Configuration: LOOKUP_TIMEOUT_MS must be a number of milliseconds'],
      [{ LOOKUP_TIMEOUT_MS: '5' }, 'Configuration: LOOKUP_TIMEOUT_MS must be at least 100 (milliseconds)'],
      [{ CACHE_NAMESPACE: 'a b' }, 'Configuration: CACHE_NAMESPACE must be letters, digits, _, . or - (at most 64)'],
      [{ LOG_LEVEL: 'loud' }, 'Configuration: LOG_LEVEL'],
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
    expect(loadServiceConfig({ SERVICE_API_KEYS: ' a, b ,', SERVICE_RATE_LIMIT_PER_MINUTE: '600' })).toEqual({ SERVICE_API_KEYS: ['a', 'b'], SERVICE_RATE_LIMIT_PER_MINUTE: 600, LOG_LEVEL: 'info' });
    expect(loadServiceConfig({})).toEqual({ SERVICE_API_KEYS: [], SERVICE_RATE_LIMIT_PER_MINUTE: 0, LOG_LEVEL: 'info' });
  });
});
