// `npm run lookup` as a newcomer runs it: a real process, configured by the environment.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';

import { createClient } from '@keyv/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LookupConfigSchema } from '../../src/config.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { cleanEnv } from '../helpers/bot.js';
import { startService, type TestService } from '../helpers/service.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function lookupCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/lookup-cli.ts', ...args], {
      env: { ...cleanEnv(), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The envelopes a run printed (one per lookup). */
const envelopes = (run: Run) =>
  run.stdout
    .split(/\n(?=\{)/)
    .filter((s) => s.trim())
    .map((s) => JSON.parse(s) as { data?: unknown; errors?: { kind: string }[]; meta: { source: string } });

let keyed: TestService;
beforeAll(async () => {
  keyed = await startService(smallLines(), { apiKeys: ['cli-secret-key'] });
});
afterAll(async () => {
  await keyed.close();
});

describe('npm run lookup', () => {
  it('looks up on the embedded service with the demo data when no base URL is configured', async () => {
    const run = await lookupCli(['profile', 'title_c', 'pc_store_c', 'Nova#2231', '--twice']);
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = envelopes(run);
    expect(first?.meta.source).toBe('network');
    expect(second?.meta.source).toBe('cache');
    expect(JSON.stringify(first?.data)).toContain('"platformUserHandle":"Nova#2231"');
  });

  it('goes to LOOKUP_BASE_URL with LOOKUP_API_KEY, and prints typed errors', async () => {
    const env = { LOOKUP_BASE_URL: keyed.url, LOOKUP_API_KEY: 'cli-secret-key', LOG_LEVEL: 'debug' };
    const found = await lookupCli(['segments', 'title_a', 'pc_store_a', 'ashplays', 'map', '--season', '2'], env);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.stringify(envelopes(found)[0]?.data)).toContain('"key":"Harbor"');
    expect(found.stdout + found.stderr).not.toContain('cli-secret-key');
    // Printed, and told by the exit code: a script that runs a lookup learns that it failed.
    const missing = await lookupCli(['profile', 'title_a', 'console_a', 'nobody'], env);
    expect(missing.code, missing.stderr).toBe(1);
    expect(envelopes(missing)[0]?.errors?.[0]?.kind).toBe('not_found');
    const refused = await lookupCli(['profile', 'title_a', 'console_a', 'nobody'], { LOOKUP_BASE_URL: keyed.url });
    expect(refused.code, refused.stderr).toBe(1);
    expect(envelopes(refused)[0]?.errors?.[0]?.kind).toBe('unauthorized');
  });

  it('exits 1 when the service cannot be reached, after printing the envelope that says so', async () => {
    // A port nothing listens on: taken for a moment, then let go.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await lookupCli(['profile', 'title_a', 'console_a', 'nobody'], {
      LOOKUP_BASE_URL: `http://127.0.0.1:${port}`,
      LOOKUP_TIMEOUT_MS: '1000',
    });
    expect(unreachable.code, unreachable.stderr).toBe(1);
    expect(envelopes(unreachable)[0]?.errors?.[0]?.kind).toBe('unavailable');
  });

  it('prints its usage with --help: the methods, the exit codes and every setting it reads', async () => {
    const help = await lookupCli(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run lookup -- /);
    expect(help.stdout).toContain('1 when one carries errors');
    for (const setting of Object.keys(LookupConfigSchema.shape)) expect(help.stdout, setting).toContain(setting);
  });

  it('shares a Redis cache between processes (CACHE_URL)', async () => {
    const namespace = `cli-${randomUUID()}`;
    const env = { LOOKUP_BASE_URL: keyed.url, LOOKUP_API_KEY: 'cli-secret-key', CACHE_URL: 'redis://127.0.0.1:6379', CACHE_NAMESPACE: namespace };
    try {
      const first = await lookupCli(['sessions', 'title_b', 'pc_store_b', 'Rift'], env);
      expect(envelopes(first)[0]?.meta.source).toBe('network');
      const second = await lookupCli(['sessions', 'title_b', 'pc_store_b', 'rift'], env);
      expect(envelopes(second)[0]?.meta.source).toBe('cache');
    } finally {
      const redis = createClient({ url: 'redis://127.0.0.1:6379' });
      await redis.connect();
      for (const k of await redis.keys(`${namespace}::*`)) await redis.del(k);
      redis.destroy();
    }
  });

  it('exits non-zero with one clear line for a bad setting or bad arguments', async () => {
    const bad = await lookupCli(['profile', 'title_c', 'pc_store_c', 'x'], { CACHE_URL: 'memcached://nope' });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('Configuration: CACHE_URL must be a URL such as redis://127.0.0.1:6379');
    // A dataset name with a typo is told, not replaced by the demo data (or a store kept from before).
    const dataset = await lookupCli(['profile', 'title_c', 'pc_store_c', 'x'], { STATS_DATASET: 'examples/small-datset.jsonl' });
    expect(dataset.code).toBe(2);
    expect(dataset.stderr.trim()).toBe('Configuration: STATS_DATASET (examples/small-datset.jsonl) does not exist');
    const title = await lookupCli(['profile', 'title_z', 'pc_store_c', 'x']);
    expect(title.code).toBe(2);
    expect(title.stderr).toContain('unknown title "title_z"');
  });
});
