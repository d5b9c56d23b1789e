// Where the bot keeps what outlives one interaction: account links (for good) and the views behind
// paged replies (for a few minutes). Redis when CACHE_URL is set, shared by every bot process;
// otherwise links in an SQLite file (they survive a restart) and views in memory.
import { randomBytes } from 'node:crypto';

import { Keyv } from 'keyv';
import type { Logger } from 'pino';
import { z } from 'zod';

import type { LinkStore, View, ViewStore } from '../../commands/index.js';
import { PLATFORM_SLUGS, TITLE_SLUGS, type TitleSlug } from '../catalog/index.js';
import { keyvOnRedis } from '../lookup/cache.js';
import { SqliteKeyvStore } from './sqlite-store.js';

/** How long the controls of a reply keep working. */
export const VIEW_TTL_MS = 15 * 60_000;

const LinkedAccountSchema = z.object({ platform: z.enum(PLATFORM_SLUGS), identifier: z.string().min(1), handle: z.string().min(1) });
const ViewSchema = z.object({ kind: z.enum(['profile', 'segments', 'matches', 'sessions', 'search']), title: z.enum(TITLE_SLUGS), platform: z.enum(PLATFORM_SLUGS), ownerId: z.string() }).loose();

export interface BotStores {
  links: LinkStore;
  views: ViewStore;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** redis://... to share links and views between processes. */
  redisUrl?: string | undefined;
  namespace: string;
  /** The SQLite file for links when there is no Redis. */
  linksPath: string;
}

/**
 * Opens the stores. With Redis, waits up to `connectTimeoutMs` for it: a link made right after
 * start must not fail for a connection still being made. If Redis is not there, links and paged
 * replies answer with an error until it comes (lookups themselves go on, uncached).
 */
export async function createBotStores(options: StoreOptions & { connectTimeoutMs?: number; logger?: Logger | undefined }): Promise<BotStores> {
  let linksKeyv: Keyv;
  let viewsKeyv: Keyv;
  const closers: (() => unknown)[] = [];
  if (options.redisUrl) {
    const links = keyvOnRedis(options.redisUrl, `${options.namespace}-links`);
    const views = keyvOnRedis(options.redisUrl, `${options.namespace}-views`);
    linksKeyv = links.keyv;
    viewsKeyv = views.keyv;
    closers.push(links.close, views.close);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('Redis did not answer in time')), options.connectTimeoutMs ?? 2_000).unref());
    try {
      await Promise.race([Promise.all([links.ready, views.ready]), timeout]);
    } catch (e) {
      options.logger?.warn({ reason: (e as Error).message }, 'Redis unavailable: links and paged replies fail until it is back');
    }
  } else {
    const file = new SqliteKeyvStore(options.linksPath);
    linksKeyv = new Keyv({ store: file, namespace: `${options.namespace}-links` });
    viewsKeyv = new Keyv({ namespace: `${options.namespace}-views` });
    closers.push(() => file.close());
  }
  const linkKey = (userId: string, title: TitleSlug) => `${userId}:${title}`;
  return {
    links: {
      async get(userId, title) {
        const parsed = LinkedAccountSchema.safeParse(await linksKeyv.get(linkKey(userId, title)));
        return parsed.success ? parsed.data : undefined;
      },
      async set(userId, title, account) {
        await linksKeyv.set(linkKey(userId, title), account);
      },
      async delete(userId, title) {
        return linksKeyv.delete(linkKey(userId, title));
      },
    },
    views: {
      async save(view) {
        const id = randomBytes(9).toString('base64url');
        await viewsKeyv.set(id, view, VIEW_TTL_MS);
        return id;
      },
      async load(id) {
        const parsed = ViewSchema.safeParse(await viewsKeyv.get(id));
        return parsed.success ? (parsed.data as unknown as View) : undefined;
      },
    },
    close: async () => {
      await Promise.allSettled([linksKeyv.disconnect(), viewsKeyv.disconnect()]);
      for (const close of closers) await close();
    },
  };
}
