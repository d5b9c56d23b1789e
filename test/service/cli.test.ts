// The service as a newcomer runs it: `npm run service -- ...`, a real process on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { ServiceConfigSchema } from '../../src/config.js';
import { envelopeOf, StatsProfileSchema } from '../../src/lookup/schemas.js';
import { smallLines } from '../fixtures/small-dataset.js';

const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.kill('SIGKILL');
});

/** Starts the service CLI and resolves with its base URL once it listens, and what it printed. */
function startCli(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/main.ts', '--port', '0', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (m?.[1]) resolve({ url: m[1], stderr: () => stderr, child });
    });
    child.on('exit', (code) => reject(new Error(`service exited with ${code}: ${stderr}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('npm run service', () => {
  it('serves the demo dataset when given no --data', async () => {
    const { url, stderr } = await startCli([]);
    expect(stderr()).toMatch(/imported \d+ records \(320 players, \d+ matches\), refused 0/);
    const res = await fetch(`${url}/v2/title_c/standard/profile/pc_store_c/Nova%232231`);
    expect(res.status).toBe(200);
    expect(envelopeOf(StatsProfileSchema).parse(await res.json()).data.platformInfo.platformUserHandle).toBe('Nova#2231');
  });

  it('serves a dataset file, reporting refused lines with their numbers and progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-cli-'));
    const file = join(dir, 'mine.jsonl');
    writeFileSync(file, [...smallLines().slice(0, 3), '{oops', ...smallLines().slice(3)].join('\n'));
    const { url, stderr } = await startCli(['--data', file]);
    expect(stderr()).toContain('line 4: not JSON');
    expect(stderr()).toMatch(/importing .*mine\.jsonl: 100%/);
    expect(stderr().match(/: 100%/g)).toHaveLength(1);
    expect(stderr()).toMatch(new RegExp(`imported ${smallLines().length} records .* refused 1`));
    const res = await fetch(`${url}/v2/title_a/standard/profile/pc_store_a/ashplays`);
    expect(res.status).toBe(200);
    // The line that says how to try it names a player of this dataset (not the demo's).
    const tried = /try: curl (\S+)/.exec(stderr())?.[1];
    expect(tried).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/title_a\/standard\/profile\//);
    expect((await fetch(tried!)).status).toBe(200);
  });

  it('says how to try it with a key when keys are required, and prints none', async () => {
    const { stderr } = await startCli([], { SERVICE_API_KEYS: 'cli-secret-key-1' });
    const tried = /try: curl -H 'TRN-Api-Key: <one of SERVICE_API_KEYS>' (\S+)/.exec(stderr())?.[1];
    expect(tried, stderr()).toBeDefined();
    expect(stderr()).not.toContain('cli-secret-key-1');
    expect((await fetch(tried!)).status).toBe(401);
    expect((await fetch(tried!, { headers: { 'TRN-Api-Key': 'cli-secret-key-1' } })).status).toBe(200);
  });

  it('keeps the store in a --db file across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-db-'));
    const file = join(dir, 'mine.jsonl');
    const db = join(dir, 'store.db');
    writeFileSync(file, smallLines().join('\n'));
    const first = await startCli(['--data', file, '--db', db]);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);
    const second = await startCli(['--db', db]);
    expect(second.stderr()).toContain('serving the existing store');
    expect(second.stderr()).toMatch(/the store holds 9 players and 9 matches/);
    expect((await fetch(`${second.url}/v2/title_d/standard/profile/pc_store_a/dusty_d`)).status).toBe(200);
  });

  it('requires the configured API key and never prints it', async () => {
    const { url, stderr } = await startCli(['--data', '/dev/null'], { SERVICE_API_KEYS: 'secret-key-1,secret-key-2' });
    expect(stderr()).toContain('(API keys required)');
    expect(stderr()).not.toContain('secret-key');
    expect((await fetch(`${url}/v2/title_c/standard/search?platform=pc_store_c&query=a`)).status).toBe(401);
    expect((await fetch(`${url}/v2/title_c/standard/search?platform=pc_store_c&query=a`, { headers: { 'TRN-Api-Key': 'secret-key-2' } })).status).toBe(200);
  });

  it('reads SERVICE_API_KEYS from .env, as .env.example says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-env-'));
    writeFileSync(join(dir, '.env'), 'SERVICE_API_KEYS=from-dot-env\n');
    const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'warn' };
    delete env.SERVICE_API_KEYS;
    delete env.ENV_FILE;
    // Run from the directory with the .env (tsx found by its path, as that directory has no node_modules).
    const tsx = pathToFileURL(join(process.cwd(), 'node_modules/tsx/dist/loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', tsx, join(process.cwd(), 'src/service/main.ts'), '--port', '0', '--data', '/dev/null'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+) \(API keys required\)/.exec(stderr);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`service exited with ${code}: ${stderr}`)));
    });
    const search = `${url}/v2/title_c/standard/search?platform=pc_store_c&query=a`;
    expect((await fetch(search)).status).toBe(401);
    expect((await fetch(search, { headers: { 'TRN-Api-Key': 'from-dot-env' } })).status).toBe(200);
  });

  it('exits non-zero with one clear line for bad arguments and configuration', async () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/main.ts', ...args], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const port = await run(['--port', 'eighty']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a port number');
    // `--port "$PORT"` with PORT unset, and numbers JavaScript reads but a port is not written as.
    for (const value of ['--port=', '--port=0x50', '--port=1e3']) expect((await run([value])).stderr, value).toContain('--port must be a port number');
    // On a free port: the default one (8787) may be another service's on a developer's machine.
    const missing = await run(['--port', '0', '--data', '/nonexistent/file.jsonl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read /nonexistent/file.jsonl');
    // A port already taken is told before the import, not after it.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const busy = await run(['--port', String((taken.address() as AddressInfo).port), '--data', '/dev/null']);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toMatch(/^cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
      expect(busy.stderr).not.toContain('imported');
      // And METRICS_PORT (the bot, reading the same .env, may hold it) the same way, before the import.
      const metricsBusy = await run(['--port', '0', '--data', '/dev/null'], { METRICS_PORT: String((taken.address() as AddressInfo).port) });
      expect(metricsBusy.code).toBe(2);
      expect(metricsBusy.stderr).toMatch(/^cannot listen on METRICS_PORT \d+ on 127\.0\.0\.1: .*EADDRINUSE/);
      expect(metricsBusy.stderr).not.toContain('imported');
      // Both on one port: each free alone, not together.
      const same = await run(['--port', '47123', '--data', '/dev/null'], { METRICS_PORT: '47123' });
      expect(same.code).toBe(2);
      expect(same.stderr.trim()).toBe("METRICS_PORT 47123 is the service's own --port: give the metrics another");
    } finally {
      taken.close();
    }
    const config = await run([], { SERVICE_RATE_LIMIT_PER_MINUTE: 'lots' });
    expect(config.code).toBe(2);
    expect(config.stderr.trim()).toBe('Configuration: SERVICE_RATE_LIMIT_PER_MINUTE must be a whole number (0 for none)');
  });

  it('prints its usage with --help, naming every setting it reads', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/main.ts', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    expect(await exitOf(child)).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run service -- /);
    for (const setting of Object.keys(ServiceConfigSchema.shape)) expect(stdout, setting).toContain(setting);
  });
});
