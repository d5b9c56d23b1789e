import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Many tests start real processes (the bot, the service, redis-server); on a busy shared machine
    // a start alone has taken 17 s. The tests wait for events, never for time, so headroom costs nothing.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // What the tests start reads this file of no settings, not the checkout's .env (test/helpers/bot.ts: NO_SETTINGS).
    env: { ENV_FILE: 'test/no-settings.env' },
    benchmark: { include: ['bench/**/*.bench.ts'] },
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      {
        // The service's suite again over PostgreSQL (127.0.0.1:5432, database test, a schema per
        // store, dropped after); it fails, not skips, when PostgreSQL cannot be reached.
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/service/**/*.test.ts'],
          // These never touch a store, or always the same one (the CLI over files and over PostgreSQL, the bot's embedded store).
          exclude: ['test/service/{aggregate,sessions,cli,embedded,dataset-fast-path,postgres-cli,postgres-silent,file-lines}.test.ts'],
          env: { TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
