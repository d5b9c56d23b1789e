// The bot as it ships: what `npm start` runs, the compiled bot (dist/, `npm run build`) with the Node
// flags of package.json's start script. Every bench that starts the bot starts this one.
import { readFileSync } from 'node:fs';

import { buildDist } from '../test/helpers/bot.js';

const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');

/** The Node flags of `npm start`. */
export const SHIPPED_FLAGS = start.filter((w) => w.startsWith('--max-'));

/**
 * The environment the recipes give the bot beside its settings (the systemd unit's `Environment=`
 * lines, which the image's ENV repeats: test/deploy.test.ts): the allocator's pools.
 */
export const SHIPPED_ENV: Record<string, string> = Object.fromEntries(
  [...readFileSync('deploy/player-stats-bot.service', 'utf8').matchAll(/^Environment=([A-Z_]+)=(\S*)$/gm)].map((m) => [m[1]!, m[2]!]),
);

let built = false;

/** Builds the bot (as `npm start` does first) once per bench run; returns the script `npm start` runs. */
export function shippedBot(): string {
  if (!built) {
    const build = buildDist();
    if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
    built = true;
  }
  return start.at(-1)!;
}
