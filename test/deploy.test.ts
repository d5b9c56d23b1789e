// The process recipes (README, "Running it") run what `npm start` and `npm run service` run: the
// same Node flags and script, so that a flag changed in package.json cannot be forgotten in them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const start = scripts.start!.split(' ').slice(1);
const unitLine = (file: string) => /^ExecStart=(.*)$/m.exec(readFileSync(file, 'utf8'))?.[1]?.split(' ') ?? [];

describe('the process recipes', () => {
  it('the systemd unit runs npm start’s command, with its settings from an EnvironmentFile and restarts on failure', () => {
    const unit = readFileSync('deploy/player-stats-bot.service', 'utf8');
    expect(unitLine('deploy/player-stats-bot.service').slice(1)).toEqual(start);
    expect(unit).toMatch(/^EnvironmentFile=/m);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^NoNewPrivileges=yes$/m);
    expect(unit).toMatch(/^ProtectSystem=strict$/m);
    expect(unit).toMatch(/^ReadWritePaths=.*\.data$/m);
  });

  it('the service unit runs npm run service’s script', () => {
    const service = scripts.service!.split(' ').slice(1);
    expect(unitLine('deploy/player-stats-service.service').slice(1, 1 + service.length)).toEqual(service);
  });

  it('npm start and npm run service build what they run first; the image builds it once', () => {
    expect(scripts.prestart).toBe('npm run build');
    expect(scripts.preservice).toBe('npm run build');
    expect(start.at(-1)).toMatch(/^dist\//);
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^RUN npm run build && npm prune --omit=dev/m);
  });

  it('the image and the unit give the bot the same environment beside its settings (the allocator’s pools)', () => {
    const unit = [...readFileSync('deploy/player-stats-bot.service', 'utf8').matchAll(/^Environment=(\S+)$/gm)].map((m) => m[1]);
    expect(unit).toContain('MALLOC_ARENA_MAX=2');
    const env = /^ENV ((?:.*\\\n)*.*)$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1]?.split(/\s*\\\n\s*/) ?? [];
    for (const setting of unit) expect(env).toContain(setting);
  });

  it('the image runs npm start’s command as a non-root user, with the data volume and a health check', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(cmd.slice(1)).toEqual(start);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/app\/\.data"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*deploy\/healthcheck\.mjs/m);
    expect(dockerfile).toMatch(/^FROM node:20/m);
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
    for (const path of ['.env', '.data/', 'node_modules/', '.git/']) expect(ignored).toContain(path);
  });

  it('the health check reads a blank METRICS_PORT as unset (healthy: nothing to ask), as the bot does', () => {
    const check = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['deploy/healthcheck.mjs'], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 10_000 }).status;
    expect(check({})).toBe(0);
    expect(check({ METRICS_PORT: ' ' })).toBe(0);
    // Nothing listens on port 9: unhealthy.
    expect(check({ METRICS_PORT: '9' })).toBe(1);
  });
});
