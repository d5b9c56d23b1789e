// `npm run service -- [--port 8787] [--host 127.0.0.1] [--data file.jsonl] [--db store.db]`
// Serves a dataset (or the demo dataset) over HTTP until interrupted.
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';

import { pino } from 'pino';

import { TITLE_SLUGS, buildPath, findEndpoint } from '../catalog/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { loadDotEnv, loadServiceConfig } from '../config.js';
import { startHealthServer, type HealthServer } from '../observe/health-server.js';
import { showingRefusals } from './import.js';
import { describeStore, loadStore } from './open-store.js';
import { createServiceMetrics } from './metrics.js';
import { startStatsServer, storeReadiness } from './server.js';
import type { Store } from './store-api.js';

const USAGE = `Usage: npm run service -- [--port 8787] [--host 127.0.0.1] [--data <file.jsonl>] [--db <store.db | postgres://...>]
  --data   JSON Lines dataset to import (default: the built-in demo dataset)
  --db     keep the store in this SQLite file across restarts, or in PostgreSQL (a postgres:// URL,
           shared by several service processes); default: in memory
  --port   port to listen on (default 8787; 0 picks a free one)
  --host   address to listen on (default 127.0.0.1)
  --help   print this
Environment (see .env.example): SERVICE_API_KEYS, SERVICE_RATE_LIMIT_PER_MINUTE, SERVICE_MAX_CONNECTIONS,
  SERVICE_IDLE_TIMEOUT_MS, METRICS_PORT (metrics and health on a listener of their own; off when unset),
  METRICS_HOST (default 127.0.0.1), LOG_LEVEL; ENV_FILE for another file than .env.
A port already in use (--port or METRICS_PORT) is told, exit 2, before the dataset is imported.`;

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        port: { type: 'string', default: '8787' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string' },
        db: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    exitWith(`${(e as Error).message}\n${USAGE}`);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Digits only: `--port "$PORT"` with PORT unset is empty, which Number() reads as 0 (a random port).
  const port = /^\d{1,5}$/.test(args.port) ? Number(args.port) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) exitWith(`--port must be a port number, not "${args.port}"`);

  // SERVICE_API_KEYS in .env, as .env.example says: without this the service listened open to anyone.
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadServiceConfig);
  const logger = pino({ level: config.LOG_LEVEL });
  await exitIfTaken(port, args.host, `${args.host}:${port}`);
  // The bot, reading the same .env, may well hold METRICS_PORT already.
  if (config.METRICS_PORT !== undefined && config.METRICS_PORT === port) exitWith(`METRICS_PORT ${port} is the service's own --port: give the metrics another`);
  if (config.METRICS_PORT) await exitIfTaken(config.METRICS_PORT, config.METRICS_HOST, `METRICS_PORT ${config.METRICS_PORT} on ${config.METRICS_HOST}`);
  const started = performance.now();
  let lastReport = 0;
  let lastPercent = -1;
  let loaded;
  try {
    loaded = await loadStore(
      { data: args.data, db: args.db, logger },
      {
        onRefused: showingRefusals(
          (r) => process.stderr.write(`line ${r.line}: ${r.reason}\n`),
          () => process.stderr.write('further refused lines are counted, not shown\n'),
        ),
        onBytes: (read, total) => {
          const now = performance.now();
          const percent = total === 0 ? 100 : Math.floor((read / total) * 100);
          // Every half second, and once at the end (told the last bytes more than once, it said 100% twice).
          if (percent === lastPercent || (now - lastReport < 500 && read < total)) return;
          lastReport = now;
          lastPercent = percent;
          process.stderr.write(`importing ${args.data}: ${percent}%\n`);
        },
      },
    );
  } catch (e) {
    exitWith(`cannot read ${args.data ?? describeStore(args.db ?? '')}: ${(e as Error).message}`);
  }
  const metrics = config.METRICS_PORT ? createServiceMetrics() : undefined;
  const store = metrics ? metrics.timed(loaded.store) : loaded.store;
  const summary = loaded.summary ?? { lines: 0, taken: 0, refused: 0, players: 0, matches: 0, refusedLines: [] };
  if (!loaded.summary) process.stderr.write(`serving the existing store ${describeStore(args.db ?? '')}\n`);
  const counts = await store.counts();
  process.stderr.write(
    `imported ${summary.taken} records (${summary.players} players, ${summary.matches} matches), refused ${summary.refused}` +
      ` in ${Math.round(performance.now() - started)} ms; the store holds ${counts.players} players and ${counts.matches} matches\n`,
  );
  if (!loaded.summary && counts.matches === 0)
    process.stderr.write(
      'the database holds no matches yet: a process started with --data <file.jsonl> imports them (examples/small-dataset.jsonl is a small one); the demo data is not put into a shared database unasked\n',
    );

  let service: Awaited<ReturnType<typeof startStatsServer>> | undefined;
  let health: HealthServer | undefined;
  // Handlers go in before the service says it listens: a signal that arrives between the two would
  // otherwise end the process without closing the store.
  const stop = () => {
    void Promise.allSettled([service?.close(), health?.close()])
      .then(() => store.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    service = await startStatsServer({
      store,
      port,
      host: args.host,
      apiKeys: config.SERVICE_API_KEYS,
      rateLimitPerMinute: config.SERVICE_RATE_LIMIT_PER_MINUTE,
      limits: { maxConnections: config.SERVICE_MAX_CONNECTIONS, idleTimeoutMs: config.SERVICE_IDLE_TIMEOUT_MS },
      logger,
      metrics: metrics?.requests,
    });
  } catch (e) {
    exitWith(`cannot listen on ${args.host}:${port}: ${(e as Error).message}`);
  }
  if (metrics && config.METRICS_PORT) {
    try {
      health = await startHealthServer({
        port: config.METRICS_PORT,
        host: config.METRICS_HOST,
        registry: metrics.registry,
        readiness: storeReadiness(store),
        logger,
      });
    } catch (e) {
      exitWith(`cannot listen on METRICS_PORT ${config.METRICS_PORT} on ${config.METRICS_HOST}: ${(e as Error).message}`);
    }
    process.stderr.write(`metrics and health on ${health.url} (/metrics, /healthz, /readyz)\n`);
  }
  const keyed = config.SERVICE_API_KEYS.length > 0;
  const sample = await samplePath(store).catch(() => undefined);
  process.stderr.write(
    `stats service listening on ${service.url}${keyed ? ' (API keys required)' : ''}\n` +
      (sample ? `try: curl${keyed ? " -H 'TRN-Api-Key: <one of SERVICE_API_KEYS>'" : ''} ${service.url}${sample}\n` : ''),
  );
}

/**
 * A port already taken is told now, with the line a failed listen gives later, not after an import
 * that may take minutes (the listeners bind once the store is loaded; another process could still
 * take the port meanwhile, which is then told the same way). Port 0 is never taken.
 */
async function exitIfTaken(port: number, host: string, what: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve) => {
    probe.once('error', (e) => exitWith(`cannot listen on ${what}: ${e.message}`));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** A profile this store answers (its first public player's), for the line that says how to try it. */
async function samplePath(store: Store): Promise<string | undefined> {
  for (const title of TITLE_SLUGS) {
    const profile = findEndpoint(title, 'profile');
    for (const platform of profile?.platforms ?? []) {
      const player = (await store.playersByHandlePrefix(title, platform, '', 5)).find((p) => p.private === 0);
      if (player && profile) return buildPath(profile.path, { platform, platformUserIdentifier: player.id });
    }
  }
  return undefined;
}

await main();
