import { defineConfig } from 'vitest/config';

/**
 * The unit tier (`npm run test:unit`): tests that need no Redis, PostgreSQL, child process or
 * network server (worker threads and SQLite in memory are fine). A new test that fits goes here;
 * `npm test` runs every test, these included.
 */
const UNIT = [
  'test/config.test.ts',
  'test/verify/token-box.test.ts',
  'test/catalog/**/*.test.ts',
  'test/embeds/**/*.test.ts',
  'test/locales/**/*.test.ts',
  'test/observe/logger.test.ts',
  'test/helpers/interactions.test.ts',
  'test/discord-double/form.test.ts',
  'test/resilience/memory.test.ts',
  'test/bot/{card-budget,client,interaction-ledger,interaction-payload,router,signature,sqlite-store}.test.ts',
  'test/lookup/{answer-forms,real-shapes,stat-fast-path,warning-throttle}.test.ts',
  'test/service/{aggregate,dataset,file-lines,import-totals,memo,plans,ranked,ranks,sessions}.test.ts',
];

export default defineConfig({
  test: {
    // Many tests start real processes (the bot, the service, redis-server), which a busy machine
    // slows many times over. The tests wait for events, never for time, so headroom costs nothing.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Most files wait on the processes they start rather than compute: three at once keep two cores
    // busy (one, vitest's default here, left them idle half the time).
    maxWorkers: 3,
    // What the tests start reads this file of no settings, not the checkout's .env (test/helpers/bot.ts: NO_SETTINGS).
    // The embedded import at the bot's own priority: at 10 it waits on anything else the machine runs
    // (two busy loops starve it for minutes), and the tests wait for the data it loads.
    env: { ENV_FILE: 'test/no-settings.env', STATS_IMPORT_NICE: '0' },
    benchmark: { include: ['bench/**/*.bench.ts'] },
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      // Run alone by `npm run test:unit`; `npm test` leaves it out, the sqlite project having its files.
      { extends: true, test: { name: 'unit', include: UNIT, env: { TEST_STORE: 'sqlite' } } },
      {
        // The service's suite again over PostgreSQL (127.0.0.1:5432, database test, a schema per
        // store, dropped after); it fails, not skips, when PostgreSQL cannot be reached.
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/service/**/*.test.ts'],
          // These never touch a store, or always the same one (the CLI over files and over PostgreSQL, the bot's embedded store).
          exclude: ['test/service/{aggregate,sessions,cli,embedded,dataset-fast-path,postgres-cli,postgres-silent,file-lines,import-totals}.test.ts'],
          env: { TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
