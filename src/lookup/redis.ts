// Redis as this project uses it (the lookup cache, the bot's links, views and session feed). Loaded
// only when a Redis URL is configured: the client library is a few MB of heap a bot on memory and
// SQLite does not need.
import KeyvRedis, { createClient } from '@keyv/redis';
import { Keyv } from 'keyv';

/**
 * A Redis client as this project uses them: commands fail at once while disconnected (no offline
 * queue), reconnecting forever. `ready` settles with the first connection; until then `lastError`
 * says why it has not come (connection refused, a password Redis does not take...), the URL's
 * password never in it (Redis quotes what AUTH was sent).
 */
export function redisClient(url: string) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000) },
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
export function keyvOnRedis(url: string, namespace: string): { keyv: Keyv; ready: Promise<unknown>; lastError: () => string | undefined; close: () => Promise<void> } {
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
