// Where the bot keeps what outlives one interaction: account links, the snapshots behind "since
// your last look" and who is in which server (for good), and the views behind paged replies (for a
// few minutes). Redis when CACHE_URL is set, shared by every bot process; otherwise the lasting ones
// in an SQLite file (they survive a restart) and views in memory.
import { randomBytes } from 'node:crypto';

import { Keyv } from 'keyv';
import type { Logger } from 'pino';
import { z } from 'zod';

import type { LinkStore, MemberStore, SnapshotStore, View, ViewStore } from '../../commands/index.js';
import { PLATFORM_SLUGS, TITLE_SLUGS, type TitleSlug } from '../catalog/index.js';
import { keyvOnRedis } from '../lookup/cache.js';
import { SqliteKeyvStore } from './sqlite-store.js';

/** How long the controls of a reply keep working. */
export const VIEW_TTL_MS = 15 * 60_000;
/** Members remembered per server, the latest kept: what a leaderboard can rank at most. */
export const MAX_MEMBERS_PER_SERVER = 1_000;

const LinkedAccountSchema = z.object({ platform: z.enum(PLATFORM_SLUGS), identifier: z.string().min(1), handle: z.string().min(1) });
const SnapshotSchema = z.object({
  at: z.iso.datetime(),
  platform: z.string(),
  identifier: z.string(),
  matches: z.number().optional(),
  wins: z.number().optional(),
  kd: z.number().optional(),
  winRate: z.number().optional(),
});
const MembersSchema = z.array(z.string()).max(MAX_MEMBERS_PER_SERVER);
const ViewSchema = z.object({ kind: z.enum(['profile', 'segments', 'matches', 'sessions', 'search']), title: z.enum(TITLE_SLUGS), platform: z.enum(PLATFORM_SLUGS), ownerId: z.string() }).loose();

export interface BotStores {
  links: LinkStore;
  views: ViewStore;
  snapshots: SnapshotStore;
  members: MemberStore;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** redis://... to share links and views between processes. */
  redisUrl?: string | undefined;
  namespace: string;
  /** The SQLite file for links when there is no Redis. */
  linksPath: string;
}

/** Values kept per Discord user and title (links, snapshots), read back through their schema: what does not parse is not there. */
function perUserAndTitle<T>(keyv: Keyv, schema: z.ZodType<T>) {
  const key = (userId: string, title: TitleSlug) => `${userId}:${title}`;
  return {
    async get(userId: string, title: TitleSlug): Promise<T | undefined> {
      const parsed = schema.safeParse(await keyv.get(key(userId, title)));
      return parsed.success ? parsed.data : undefined;
    },
    async set(userId: string, title: TitleSlug, value: T): Promise<void> {
      await keyv.set(key(userId, title), value);
    },
    async delete(userId: string, title: TitleSlug): Promise<boolean> {
      return keyv.delete(key(userId, title));
    },
  };
}

/**
 * Opens the stores. With Redis, waits up to `connectTimeoutMs` for it: a link made right after
 * start must not fail for a connection still being made. If Redis is not there, links and paged
 * replies answer with an error until it comes (lookups themselves go on, uncached).
 */
export async function createBotStores(options: StoreOptions & { connectTimeoutMs?: number; logger?: Logger | undefined }): Promise<BotStores> {
  let linksKeyv: Keyv;
  let viewsKeyv: Keyv;
  let snapshotsKeyv: Keyv;
  let membersKeyv: Keyv;
  const closers: (() => unknown)[] = [];
  if (options.redisUrl) {
    const opened = ['links', 'views', 'snapshots', 'members'].map((name) => keyvOnRedis(options.redisUrl!, `${options.namespace}-${name}`));
    [linksKeyv, viewsKeyv, snapshotsKeyv, membersKeyv] = opened.map((o) => o.keyv) as [Keyv, Keyv, Keyv, Keyv];
    closers.push(...opened.map((o) => o.close));
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('Redis did not answer in time')), options.connectTimeoutMs ?? 2_000).unref());
    try {
      await Promise.race([Promise.all(opened.map((o) => o.ready)), timeout]);
    } catch (e) {
      options.logger?.warn({ reason: (e as Error).message }, 'Redis unavailable: links and paged replies fail until it is back');
    }
  } else {
    const file = new SqliteKeyvStore(options.linksPath);
    linksKeyv = new Keyv({ store: file, namespace: `${options.namespace}-links` });
    snapshotsKeyv = new Keyv({ store: file, namespace: `${options.namespace}-snapshots` });
    membersKeyv = new Keyv({ store: file, namespace: `${options.namespace}-members` });
    viewsKeyv = new Keyv({ namespace: `${options.namespace}-views` });
    closers.push(() => file.close());
  }
  return {
    links: perUserAndTitle(linksKeyv, LinkedAccountSchema),
    snapshots: perUserAndTitle(snapshotsKeyv, SnapshotSchema),
    members: {
      // Read, add, write: two processes adding at once may lose one add, which the member's next
      // command in that server records again.
      async add(guildId, userId) {
        const parsed = MembersSchema.safeParse(await membersKeyv.get(guildId));
        const known = parsed.success ? parsed.data : [];
        if (known.at(-1) === userId) return;
        const next = [...known.filter((id) => id !== userId), userId].slice(-MAX_MEMBERS_PER_SERVER);
        await membersKeyv.set(guildId, next);
      },
      async list(guildId) {
        const parsed = MembersSchema.safeParse(await membersKeyv.get(guildId));
        return parsed.success ? parsed.data : [];
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
      await Promise.allSettled([linksKeyv, viewsKeyv, snapshotsKeyv, membersKeyv].map((k) => k.disconnect()));
      for (const close of closers) await close();
    },
  };
}
