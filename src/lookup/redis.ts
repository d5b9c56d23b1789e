// Redis as this project uses it (the lookup cache, the bot's links, views and session feed). Loaded
// only when a Redis URL is configured: the client library is a few MB of heap a bot on memory and
// SQLite does not need.
import KeyvRedis, { createClient } from '@keyv/redis';
import { Keyv } from 'keyv';

/**
 * Commands a client holds at most, sent or not yet answered: past it a command fails at once. A
 * Redis that accepts connections and stops answering (a failover's pause, a stalled process)
 * answers nothing, and each command stayed held after its caller's deadline: 20,000 reads held
 * 67 MB of heap. A healthy Redis answers in a millisecond, so a client holds a few.
 */
export const REDIS_QUEUE_MAX = 2_000;

/** How a client finds a Redis that stopped answering: a PING every `pingIntervalMs`, the connection dropped (and every held command failed) after `socketTimeoutMs` without a byte either way. */
export interface RedisLiveness {
  pingIntervalMs: number;
  socketTimeoutMs: number;
}
const LIVENESS: RedisLiveness = { pingIntervalMs: 5_000, socketTimeoutMs: 15_000 };

/**
 * A Redis client as this project uses them: commands fail at once while disconnected (no offline
 * queue) or while REDIS_QUEUE_MAX are held, reconnecting forever; a connection silent for
 * `socketTimeoutMs` is dropped and made again. `ready` settles with the first connection; until
 * then `lastError` says why it has not come (connection refused, a password Redis does not
 * take...), the URL's password never in it (Redis quotes what AUTH was sent).
 */
export function redisClient(url: string, liveness: RedisLiveness = LIVENESS) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: REDIS_QUEUE_MAX,
    pingInterval: liveness.pingIntervalMs,
    socket: {
      connectTimeout: 1_000,
      socketTimeout: liveness.socketTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000),
    },
  });
  let last: string | undefined;
  // node-redis reports every failed reconnect as an 'error' event; callers log the state changes.
  client.on('error', (e: Error) => (last = hidePassword(e.message || String(e), url)));
  const ready = client.connect();
  ready.catch(() => undefined);
  return { client, ready, lastError: () => last };
}

/** `text` without the password of `url` (as written and as decoded). */
function hidePassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (!password) return text;
  return [password, decodeURIComponent(password)].reduce((t, p) => t.split(p).join('***'), text);
}

/** Why Redis was not there within the wait: the wait, and the client's last error when it had one. */
export function notConnected(waited: Error, lastError: string | undefined): string {
  return lastError ? `${waited.message} (${lastError})` : waited.message;
}

/**
 * Keyv on Redis, as this project uses it (the lookup cache, the bot's links and views): its own
 * client whose commands fail at once while disconnected (no offline queue, so nothing waits on a
 * dead Redis), reconnecting forever so that everything resumes when Redis is back. `ready` settles
 * with the first connection; `close` drops the client (not a graceful close: that would wait for a
 * connection that may never come back).
 */
export function keyvOnRedis(
  url: string,
  namespace: string,
): { keyv: Keyv; ready: Promise<unknown>; lastError: () => string | undefined; close: () => Promise<void> } {
  const { client, ready, lastError } = redisClient(url);
  const store = new KeyvRedis(client, { throwOnConnectError: true, throwOnErrors: true });
  store.on('error', () => undefined);
  // Keyv hands its namespace to the adapter, which prefixes keys with it (`<namespace>::<key>`).
  const keyv = new Keyv({ store, namespace, useKeyPrefix: false, throwOnErrors: true });
  keyv.on('error', () => undefined);
  return {
    keyv,
    ready,
    lastError,
    close: () => {
      if (client.isOpen) client.destroy();
      return Promise.resolve();
    },
  };
}
