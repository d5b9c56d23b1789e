// Starts the real bot process for a test (its sources through tsx, or the build `npm start` runs),
// with only the settings the test gives: none of the machine's own LOOKUP_/CACHE_/DISCORD_ variables leak in.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run build` as `npm start` runs it first: the bot and the service compiled into dist/
 * (tsconfig.build.json). The compiler's run, for its status and output.
 */
export function buildDist(): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8', timeout: 170_000 });
}

/** A settings file of none: what a test starts reads it instead of the checkout's `.env`. */
export const NO_SETTINGS = 'test/no-settings.env';

/** The environment without the project's own settings, and without the checkout's `.env`. */
export function cleanEnv(): Record<string, string | undefined> {
  const kept = Object.entries(process.env).filter(
    ([k]) =>
      !/^(LOOKUP_|CACHE_|STATS_DATASET|STATS_STORE|DISCORD_|LINKS_DB|PREVIEW_DB|CONTROLS_|METRICS_|INTERACTIONS_|SHARD_|WEB_|PUBLIC_URL|VERIFY_|TOKEN_ENCRYPTION_KEY|LINKED_ROLES_)/.test(
        k,
      ),
  );
  return { ...Object.fromEntries(kept), ENV_FILE: NO_SETTINGS };
}

/** A links file of its own for each process. */
export const tempLinksDb = (): string => join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite');

export interface BotProcess {
  child: ChildProcess;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /**
   * Everything it printed, once that holds `text` or after `timeoutMs`. A log line travels through a
   * pipe (pino writes off the main thread): it may arrive a moment after the reply it goes with.
   */
  printed(text: string, timeoutMs?: number): Promise<string>;
  /**
   * Resolves once its embedded stats service has loaded its data (LOG_LEVEL info or lower). The bot
   * goes online after a 10 s wait for it at most, and the import runs at a lower priority than the
   * bot: on a busy machine the gateway is up before the data, and lookups meanwhile say "still
   * loading". A test of answers waits for this; one of the loading itself does not.
   */
  storeLoaded(timeoutMs?: number): Promise<void>;
}

/** `script`: the sources through tsx by default, or the built bot (`dist/src/bot/main.js`, what `npm start` runs). */
export function startBot(env: Record<string, string>, script = 'src/bot/main.ts'): BotProcess {
  let output = '';
  const child = spawn(process.execPath, script.endsWith('.ts') ? ['--import', 'tsx', script] : [script], {
    env: { ...cleanEnv(), LINKS_DB: tempLinksDb(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const printed = async (text: string, timeoutMs = 5_000): Promise<string> => {
    for (const until = Date.now() + timeoutMs; !output.includes(text) && Date.now() < until;) await new Promise((r) => setTimeout(r, 25));
    return output;
  };
  const storeLoaded = async (timeoutMs = 60_000): Promise<void> => {
    if (!(await printed('embedded stats service loaded', timeoutMs)).includes('embedded stats service loaded'))
      throw new Error(`the embedded stats service did not load within ${timeoutMs} ms:\n${output.slice(-2_000)}`);
  };
  return { child, output: () => output, printed, storeLoaded };
}
