// `npm run lookup -- <method> <title> <platform> <identifier> [...]`: one lookup through the same
// client the bot uses, printed as the envelope it returns. Configured like the bot (.env).
import { parseArgs } from 'node:util';

import { pino } from 'pino';

import { isPlatform, isTitle, QUEUES, type Queue } from './catalog/index.js';
import { openLookupsOrExit } from './compose.js';
import { configOrExit, exitWith } from './cli.js';
import { loadDotEnv, loadLookupConfig } from './config.js';
import type { ApiResponse } from './lookup/client.js';

const USAGE = `Usage: npm run lookup -- <method> <title> <platform> <identifier> [options]
  profile   <title> <platform> <identifier>
  segments  <title> <platform> <identifier> <segmentType> [--queue ranked|social] [--season N]
  search    <title> <platform> <query>
  matches   title_a <platform> <identifier> [--next <cursor>]
  match     title_a <platform> <matchId>
  sessions  title_b <platform> <identifier>
  --twice   look up twice and print both (the second one comes from the cache)
  --help    print this
Prints each envelope ({ data, meta } or { errors, meta }) on stdout. Exits 0 when every lookup
answered data; 1 when one carries errors (not found, private, unauthorized, unavailable, ...:
printed all the same) or the lookups cannot start; 2 for a bad argument or setting.
Environment (see .env.example): LOOKUP_BASE_URL, LOOKUP_API_KEY, LOOKUP_TIMEOUT_MS, LOOKUP_PATH_VALUES,
  CACHE_URL, CACHE_NAMESPACE, CACHE_MAX_MB, STATS_DATASET, STATS_STORE, STATS_IMPORT_NICE, LOG_LEVEL;
  ENV_FILE for another file than .env.`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        queue: { type: 'string' },
        season: { type: 'string' },
        next: { type: 'string' },
        twice: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    exitWith(`${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [method, title, platform, identifier, segmentType] = positionals;
  if (!method || !title || !platform || identifier === undefined) exitWith(USAGE);
  if (!isTitle(title)) exitWith(`unknown title "${title}"\n${USAGE}`);
  if (!isPlatform(platform)) exitWith(`unknown platform "${platform}"\n${USAGE}`);
  if (values.queue !== undefined && !(QUEUES as readonly string[]).includes(values.queue)) exitWith(`--queue must be one of ${QUEUES.join(', ')}`);
  const season = values.season === undefined ? undefined : Number(values.season);
  if (season !== undefined && !Number.isInteger(season)) exitWith('--season must be a whole number');

  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadLookupConfig);
  const logger = pino({ level: config.LOG_LEVEL }, pino.destination(2));
  const lookups = await openLookupsOrExit(config, logger);
  const c = lookups.client;
  const once = (): Promise<ApiResponse<unknown>> => {
    switch (method) {
      case 'profile':
        return c.profile(title, platform, identifier);
      case 'segments':
        if (!segmentType) exitWith(`segments needs a segment type\n${USAGE}`);
        return c.segments(title, platform, identifier, segmentType, { queue: values.queue as Queue | undefined, season });
      case 'search':
        return c.search(title, platform, identifier);
      case 'matches':
        return c.matches(title, platform, identifier, values.next);
      case 'match':
        return c.match(title, platform, identifier);
      case 'sessions':
        return c.sessions(title, platform, identifier);
      default:
        exitWith(`unknown method "${method}"\n${USAGE}`);
    }
  };
  try {
    for (let i = 0; i < (values.twice ? 2 : 1); i++) {
      const answer = await once();
      process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      // A script (or CI) that runs a lookup learns from the exit code that it failed.
      if (answer.errors) process.exitCode = 1;
    }
  } finally {
    await lookups.close();
  }
}

await main();
