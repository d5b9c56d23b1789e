// Starts the real bot process (`src/bot/main.ts`, as `npm start` runs it) for a test, with only the
// settings the test gives: none of the machine's own LOOKUP_/CACHE_/DISCORD_ variables leak in.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment without the project's own settings. */
export function cleanEnv(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LOOKUP_|CACHE_|STATS_DATASET|STATS_STORE|DISCORD_|LINKS_DB|CONTROLS_|METRICS_)/.test(k)));
}

/** A links file of its own for each process. */
export const tempLinksDb = (): string => join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite');

export interface BotProcess {
  child: ChildProcess;
  /** Everything it printed, stdout and stderr. */
  output(): string;
}

export function startBot(env: Record<string, string>): BotProcess {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bot/main.ts'], {
    env: { ...cleanEnv(), LINKS_DB: tempLinksDb(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}
