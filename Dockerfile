# The bot (and, with another command, the stats service) in a container: README, "Run it in Docker".
#   docker build -t player-stats-bot .
#   docker run -d --init --env-file .env -v player-stats-data:/app/.data player-stats-bot
# Node 20, as package.json's engines ask.

# Build stage: `npm ci` builds the SQLite driver (better-sqlite3) from source when no prebuilt binary
# can be fetched, which needs python3, make and g++; none of them reach the final image.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The bot and the service compiled to dist/ (what `npm start` and `npm run service` run); then the
# compiler, test and lint tools leave. tsx stays: the other commands run the TypeScript.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc's allocator keeps two pools of memory rather than one for each of the
# process's threads that allocates (up to 16 on two cores); the bot idled at 146 to 149 MB resident
# instead of 165 to 167 (README, "Left alone for weeks"). The systemd unit sets the same.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    LINKS_DB=/app/.data/links.sqlite \
    STATS_STORE=/app/.data/stats.sqlite
WORKDIR /app
COPY --from=build /app /app
# The one writable place: links, snapshots, the embedded service's store. Owned by the unprivileged
# `node` user of the image, which the process runs as.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
VOLUME ["/app/.data"]
# With METRICS_PORT set (and METRICS_HOST=0.0.0.0 for a scraper outside the container), /healthz
# answers while the process runs its loop; without it the check passes (nothing to ask).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# What `npm start` runs after its build, without npm in between: SIGTERM (docker stop) reaches the
# bot, which finishes the replies in flight and exits. Run with --init so that PID 1 reaps any child.
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=160", "dist/src/bot/main.js"]
