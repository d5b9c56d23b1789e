// Where the bot keeps what outlives one interaction: account links, the snapshots behind "since your
// last look" and who is in which server (for good), and the views behind paged replies (while their
// controls work). Redis when CACHE_URL is set, shared by every bot process; otherwise the lasting
// ones in an SQLite file (they survive a restart) and views in bounded memory.
// Every operation has a deadline, and a failure is told (StoreUnavailableError), never swallowed.
import { existsSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

import { Keyv } from 'keyv';
import type { Logger } from 'pino';
import { z } from 'zod';

import { WarningThrottle } from '../lookup/warning-throttle.js';
import {
  StoreUnavailableError,
  type FeedStore,
  type HistoryStore,
  type LinkStore,
  type MemberStore,
  type ServerSettingsStore,
  type SnapshotStore,
  type VerifyStore,
  type View,
  type ViewStore,
} from '../../commands/index.js';
import { PLATFORM_SLUGS, TITLE_SLUGS, type PlatformSlug, type TitleSlug } from '../catalog/index.js';
import { HISTORY_DAYS, withDay } from '../embeds/history.js';
import { withTimeout } from '../lookup/within.js';
import { BoundedMemoryStore } from '../lookup/memory-store.js';
import { moveFeedToRedis, redisFeedStore, sqliteFeedStore } from './feed-store.js';
import { LEDGER_TIMEOUT_MS, interactionLedger, type InteractionLedger } from './interaction-ledger.js';
import { SqliteKeyvStore } from './sqlite-store.js';
import { storeGuard } from './store-guard.js';

/** Random bytes drawn 4 KiB at a time: a view id per profile shown, without a call into the system's generator for each. */
let entropy = Buffer.alloc(0);
let used = 0;
/** 72 random bits, URL-safe: a view's id in its controls' custom ids. */
function viewId(): string {
  if (used + 9 > entropy.length) {
    entropy = randomBytes(4096);
    used = 0;
  }
  used += 9;
  return entropy.toString('base64url', used - 9, used);
}

/** How long the controls of a reply keep working unless configured (CONTROLS_TTL_MS). */
export const VIEW_TTL_MS = 5 * 60_000;
/** Views kept in memory at most unless configured (VIEWS_MAX_ENTRIES); the least recently used go first. */
export const DEFAULT_VIEWS_MAX_ENTRIES = 20_000;
/** How long one links or views operation may take unless configured (STORE_TIMEOUT_MS). */
export const DEFAULT_STORE_TIMEOUT_MS = 1_000;
/** Members remembered per server, the latest kept: what a leaderboard can rank at most. */
export const MAX_MEMBERS_PER_SERVER = 1_000;

const LinkedAccountSchema = z.object({
  platform: z.enum(PLATFORM_SLUGS),
  identifier: z.string().min(1),
  handle: z.string().min(1),
  verified: z.boolean().optional(),
});
const GrantSchema = z.object({
  sealed: z.string().min(1),
  pushed: z.record(z.string(), z.string()).optional(),
  pushedAt: z.number().optional(),
});
const StateSchema = z.object({ browser: z.string().min(1) });
const ServerSettingsSchema = z.object({
  boardMinMatches: z.number().int().min(0).optional(),
  boardVerifiedOnly: z.boolean().optional(),
  feedVerifiedOnly: z.boolean().optional(),
});
/** How long a `/verify` may take from its start to Discord's answer. */
export const VERIFY_STATE_TTL_MS = 10 * 60_000;
/**
 * Verifications under way at most in the SQLite file: anyone can open `/verify`, and each opening
 * is a row until it expires. Past this, a new one is refused (the member hears to try again).
 */
export const MAX_VERIFY_STATES = 10_000;
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
const HistorySchema = z
  .array(
    z.object({
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      matches: z.number().optional(),
      wins: z.number().optional(),
      kills: z.number().optional(),
      deaths: z.number().optional(),
      kd: z.number().optional(),
      winRate: z.number().optional(),
      rating: z.number().optional(),
      tier: z.string().max(100).optional(),
      season: z.number().int().optional(),
    }),
  )
  .max(HISTORY_DAYS + 1);
/** A player's history outlives its last day by a day, then goes: a player nobody looks up any more is not kept. */
const HISTORY_TTL_MS = (HISTORY_DAYS + 1) * 86_400_000;
const ViewSchema = z
  .object({
    kind: z.enum(['profile', 'segments', 'matches', 'sessions', 'search', 'match']),
    title: z.enum(TITLE_SLUGS),
    platform: z.enum(PLATFORM_SLUGS),
    ownerId: z.string(),
  })
  .loose();

export interface BotStores {
  links: LinkStore;
  views: ViewStore;
  snapshots: SnapshotStore;
  history: HistoryStore;
  members: MemberStore;
  /** The session feed's settings, opt-ins and poller state. */
  feed: FeedStore;
  /** Verification's states and members' sealed grants. */
  verify: VerifyStore;
  /** Servers' settings (`/settings`). */
  servers: ServerSettingsStore;
  /** The interactions taken already (each runs once): shared in Redis, else this process's memory (HTTP workers use it). */
  interactions: InteractionLedger;
  /** Resolves when the links and views stores each answer one read within the deadline (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** redis://... to share links and views between processes. */
  redisUrl?: string | undefined;
  namespace: string;
  /** The SQLite file for links when there is no Redis; with Redis, links found in it are moved there once. */
  linksPath: string;
  /** The setting that names `linksPath`, in the errors that name the file (LINKS_DB unless told). */
  linksSetting?: string;
  /** How long a view (the controls of a paged reply) lives. */
  viewTtlMs?: number;
  viewsMaxEntries?: number;
  /** Deadline of each links and views operation. */
  operationTimeoutMs?: number;
}

/**
 * Opens the stores. With Redis, waits up to `connectTimeoutMs` for it: a link made right after
 * start must not fail for a connection still being made. If Redis is not there, links and paged
 * replies answer with an error until it comes (lookups themselves go on, uncached). An SQLite file
 * that cannot be opened throws, naming the file; so does one that was moved to Redis
 * (`<file>.moved-to-redis`) and is asked for again without Redis, rather than starting empty.
 */
export async function createBotStores(options: StoreOptions & { connectTimeoutMs?: number; logger?: Logger | undefined }): Promise<BotStores> {
  let linksKeyv: Keyv;
  let viewsKeyv: Keyv;
  let snapshotsKeyv: Keyv;
  let historyKeyv: Keyv;
  let membersKeyv: Keyv;
  let grantsKeyv: Keyv;
  let statesKeyv: Keyv;
  let serversKeyv: Keyv;
  let feed: FeedStore;
  let interactions: InteractionLedger;
  /** Reads the links file itself, past its read cache (which would answer a probe from memory once it had). */
  let probeFile: (() => void) | undefined;
  /** In the file: deletes the verification states past their time, and says how many are left (Redis expires its own). */
  let sweepStates: (() => number) | undefined;
  const closers: (() => unknown)[] = [];
  const viewTtlMs = options.viewTtlMs ?? VIEW_TTL_MS;
  const timeoutMs = options.operationTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (options.redisUrl) {
    const { keyvOnRedis, notConnected, redisClient } = await import('../lookup/redis.js');
    const opened = ['links', 'views', 'snapshots', 'members', 'history', 'grants', 'verify-states', 'servers'].map((name) =>
      keyvOnRedis(options.redisUrl!, `${options.namespace}-${name}`),
    );
    [linksKeyv, viewsKeyv, snapshotsKeyv, membersKeyv, historyKeyv, grantsKeyv, statesKeyv, serversKeyv] = opened.map((o) => o.keyv) as [
      Keyv,
      Keyv,
      Keyv,
      Keyv,
      Keyv,
      Keyv,
      Keyv,
      Keyv,
    ];
    const redisFeed = await redisFeedStore(options.redisUrl, options.namespace, timeoutMs);
    feed = redisFeed;
    const ledger = redisClient(options.redisUrl);
    const warnings = new WarningThrottle();
    interactions = interactionLedger({
      redis: {
        client: ledger.client,
        namespace: options.namespace,
        timeoutMs: Math.min(timeoutMs, LEDGER_TIMEOUT_MS),
        onUnavailable: (e) => {
          const alikeLeftOut = warnings.take();
          if (alikeLeftOut !== undefined)
            options.logger?.warn(
              { err: e.message, alikeLeftOut },
              'Redis did not say whether an interaction was taken already: this process alone told replays apart',
            );
        },
      },
    });
    closers.push(
      ...opened.map((o) => o.close),
      () => redisFeed.close(),
      () => void (ledger.client.isOpen && ledger.client.destroy()),
    );
    let connected = false;
    try {
      await withTimeout(Promise.all([...opened.map((o) => o.ready), redisFeed.ready]), options.connectTimeoutMs ?? 2_000, 'connecting to Redis');
      connected = true;
    } catch (e) {
      options.logger?.warn(
        {
          reason: notConnected(
            e as Error,
            opened.map((o) => o.lastError()).find((m) => m !== undefined),
          ),
        },
        'Redis unavailable: links and paged replies fail until it is back',
      );
    }
    if (connected && existsSync(options.linksPath)) {
      try {
        const moved = await moveFeedToRedis(options.linksPath, feed);
        options.logger?.info(moved, 'session feed settings moved from LINKS_DB to Redis');
        await moveFileToRedis(
          options.linksPath,
          options.namespace,
          { links: linksKeyv, snapshots: snapshotsKeyv, members: membersKeyv, history: historyKeyv, grants: grantsKeyv, servers: serversKeyv },
          timeoutMs,
          options.logger,
        );
      } catch (e) {
        // The file keeps its name until every link is across, so the next start carries on.
        options.logger?.warn({ file: options.linksPath, reason: (e as Error).message }, 'LINKS_DB not moved to Redis: tried again at the next start');
      }
    }
  } else {
    // Without this, a start without CACHE_URL after the move made a new, empty file: every link gone, silently.
    const setting = options.linksSetting ?? 'LINKS_DB';
    const moved = `${options.linksPath}.moved-to-redis`;
    const wasMoved = options.linksPath !== ':memory:' && existsSync(moved);
    if (wasMoved && !existsSync(options.linksPath))
      throw new Error(
        `${setting} (${options.linksPath}) was moved to Redis (${moved}): set CACHE_URL again, or rename that file back to ${options.linksPath} to use it without Redis (links made since in Redis are not in it)`,
      );
    // Both there: a start that made the file anew before that was refused. Said at each start, since
    // the links of the moved file are not read until someone chooses which file to keep.
    if (wasMoved)
      options.logger?.warn(
        { file: options.linksPath, moved },
        `${setting} is used without Redis, beside a copy moved to Redis before: the links in that copy are not read (rename it back in place of ${setting} to use them, or set CACHE_URL)`,
      );
    let file: SqliteKeyvStore;
    try {
      file = new SqliteKeyvStore(options.linksPath);
    } catch (e) {
      throw new Error(`${setting} (${options.linksPath}) cannot be used: ${(e as Error).message.split('\n')[0] ?? ''}`);
    }
    probeFile = () => file.probe();
    linksKeyv = new Keyv({ store: file, namespace: `${options.namespace}-links`, throwOnErrors: true });
    linksKeyv.on('error', () => undefined);
    snapshotsKeyv = new Keyv({ store: file, namespace: `${options.namespace}-snapshots`, throwOnErrors: true });
    snapshotsKeyv.on('error', () => undefined);
    membersKeyv = new Keyv({ store: file, namespace: `${options.namespace}-members`, throwOnErrors: true });
    membersKeyv.on('error', () => undefined);
    historyKeyv = new Keyv({ store: file, namespace: `${options.namespace}-history`, throwOnErrors: true });
    historyKeyv.on('error', () => undefined);
    grantsKeyv = new Keyv({ store: file, namespace: `${options.namespace}-grants`, throwOnErrors: true });
    grantsKeyv.on('error', () => undefined);
    statesKeyv = new Keyv({ store: file, namespace: `${options.namespace}-verify-states`, throwOnErrors: true });
    statesKeyv.on('error', () => undefined);
    sweepStates = () => file.sweep(`${options.namespace}-verify-states:`, Date.now());
    serversKeyv = new Keyv({ store: file, namespace: `${options.namespace}-servers`, throwOnErrors: true });
    serversKeyv.on('error', () => undefined);
    interactions = interactionLedger();
    const fileFeed = sqliteFeedStore(options.linksPath, timeoutMs);
    feed = fileFeed;
    closers.push(() => fileFeed.close());
    const memory = new BoundedMemoryStore({ maxEntries: options.viewsMaxEntries ?? DEFAULT_VIEWS_MAX_ENTRIES });
    viewsKeyv = new Keyv({ store: memory, namespace: `${options.namespace}-views`, serialize: undefined, deserialize: undefined });
    closers.push(
      () => file.close(),
      () => memory.close(),
    );
  }
  const linkKey = (userId: string, title: TitleSlug) => `${userId}:${title}`;
  // Identifiers are case-insensitive: `Nova#2231` and `nova#2231` are one player's history.
  const playerKey = (title: TitleSlug, platform: PlatformSlug, identifier: string) => `${title}:${platform}:${identifier.toLowerCase()}`;
  const daysOf = async (key: string, told: 'store.historyUnreadable' | 'store.historyNotKept') => {
    const parsed = HistorySchema.safeParse(await guarded<unknown>(() => historyKeyv.get(key), told));
    return parsed.success ? parsed.data : [];
  };
  const guarded = storeGuard(timeoutMs, 'the links or views store');
  return {
    links: {
      async get(userId, title) {
        const value = await guarded<unknown>(() => linksKeyv.get(linkKey(userId, title)), 'store.linksUnreadable');
        const parsed = LinkedAccountSchema.safeParse(value);
        return parsed.success ? parsed.data : undefined;
      },
      async set(userId, title, account) {
        // Checked as it will be read back: a link `get` would not read is not saved, and the user hears so.
        if (!LinkedAccountSchema.safeParse(account).success) throw new StoreUnavailableError('store.linkNotSaved');
        const saved = await guarded(() => linksKeyv.set(linkKey(userId, title), account), 'store.linkNotSaved', 'store.saveLate');
        if (!saved) throw new StoreUnavailableError('store.linkNotSaved');
      },
      async delete(userId, title) {
        return guarded(() => linksKeyv.delete(linkKey(userId, title)), 'store.linkNotForgotten', 'store.saveLate');
      },
    },
    snapshots: {
      async get(userId, title) {
        const parsed = SnapshotSchema.safeParse(await guarded<unknown>(() => snapshotsKeyv.get(linkKey(userId, title)), 'store.lastLookUnreadable'));
        return parsed.success ? parsed.data : undefined;
      },
      async set(userId, title, snapshot) {
        const saved = await guarded(() => snapshotsKeyv.set(linkKey(userId, title), snapshot), 'store.lookNotKept');
        if (!saved) throw new StoreUnavailableError('store.lookNotKept');
      },
    },
    history: {
      days: (title, platform, identifier) => daysOf(playerKey(title, platform, identifier), 'store.historyUnreadable'),
      // Read, add, write: two processes recording one player on one day at once keep either look.
      async record(title, platform, identifier, today) {
        const key = playerKey(title, platform, identifier);
        const next = withDay(await daysOf(key, 'store.historyNotKept'), today);
        if (!(await guarded(() => historyKeyv.set(key, next, HISTORY_TTL_MS), 'store.historyNotKept'))) throw new StoreUnavailableError('store.historyNotKept');
      },
    },
    members: {
      // Read, add, write: two processes adding at once may lose one add, which the member's next
      // command in that server records again.
      async add(guildId, userId) {
        const told = 'store.membersNotRecorded';
        const parsed = MembersSchema.safeParse(await guarded<unknown>(() => membersKeyv.get(guildId), told));
        const known = parsed.success ? parsed.data : [];
        if (known.at(-1) === userId) return;
        const next = [...known.filter((id) => id !== userId), userId].slice(-MAX_MEMBERS_PER_SERVER);
        if (!(await guarded(() => membersKeyv.set(guildId, next), told))) throw new StoreUnavailableError(told);
      },
      async list(guildId) {
        const parsed = MembersSchema.safeParse(await guarded<unknown>(() => membersKeyv.get(guildId), 'store.membersUnreadable'));
        return parsed.success ? parsed.data : [];
      },
    },
    feed,
    verify: {
      async putState(state, record) {
        if (sweepStates && (await guarded(sweepStates, 'store.verifyNotKept')) >= MAX_VERIFY_STATES) throw new StoreUnavailableError('store.verifyNotKept');
        if (!(await guarded(() => statesKeyv.set(state, record, VERIFY_STATE_TTL_MS), 'store.verifyNotKept')))
          throw new StoreUnavailableError('store.verifyNotKept');
      },
      // Read, then delete: only the caller whose delete removed it has the state (a replay finds it gone).
      async takeState(state) {
        const parsed = StateSchema.safeParse(await guarded<unknown>(() => statesKeyv.get(state), 'store.verifyUnreadable'));
        if (!parsed.success) return undefined;
        return (await guarded(() => statesKeyv.delete(state), 'store.verifyUnreadable')) ? parsed.data : undefined;
      },
      async grant(userId) {
        const parsed = GrantSchema.safeParse(await guarded<unknown>(() => grantsKeyv.get(userId), 'store.verifyUnreadable'));
        return parsed.success ? parsed.data : undefined;
      },
      async setGrant(userId, grant) {
        if (!(await guarded(() => grantsKeyv.set(userId, grant), 'store.verifyNotKept'))) throw new StoreUnavailableError('store.verifyNotKept');
      },
      deleteGrant: (userId) => guarded(() => grantsKeyv.delete(userId), 'store.verifyNotKept', 'store.saveLate'),
    },
    servers: {
      async get(guildId) {
        const parsed = ServerSettingsSchema.safeParse(await guarded<unknown>(() => serversKeyv.get(guildId), 'store.settingsUnreadable'));
        return parsed.success ? parsed.data : {};
      },
      async set(guildId, settings) {
        if (!(await guarded(() => serversKeyv.set(guildId, settings), 'store.settingsNotSaved', 'store.saveLate')))
          throw new StoreUnavailableError('store.settingsNotSaved');
      },
    },
    interactions,
    views: {
      async save(view) {
        const id = viewId();
        await guarded(() => viewsKeyv.set(id, view, viewTtlMs), 'store.viewNotSaved');
        return id;
      },
      async load(id) {
        const parsed = ViewSchema.safeParse(await guarded(() => viewsKeyv.get(id), 'store.viewsUnreadable'));
        return parsed.success ? (parsed.data as unknown as View) : undefined;
      },
    },
    ping: async () => {
      const links = probeFile ? Promise.resolve().then(probeFile) : linksKeyv.get('readiness-probe');
      await withTimeout(Promise.all([links, viewsKeyv.get('readiness-probe')]), timeoutMs, 'the links and views stores');
    },
    close: async () => {
      await Promise.allSettled([linksKeyv, viewsKeyv, snapshotsKeyv, membersKeyv, historyKeyv, grantsKeyv, statesKeyv, serversKeyv].map((k) => k.disconnect()));
      for (const close of closers) await close();
    },
  };
}

/** What the SQLite file keeps per user or server besides the feed, each under `<namespace>-<kind>:`. */
const KEPT = {
  links: LinkedAccountSchema,
  snapshots: SnapshotSchema,
  members: MembersSchema,
  history: HistorySchema,
  grants: GrantSchema,
  servers: ServerSettingsSchema,
} as const;
type KeptKind = keyof typeof KEPT;
const KEPT_KEY = /^(.*)-(links|snapshots|members|history|grants|servers):(.+)$/;

/**
 * Moves the links, last looks (snapshots) and server members kept in the SQLite file into Redis,
 * once: a link or last look already in Redis wins, a server's members are the two lists together
 * (the file's first), and the file is renamed to `<file>.moved-to-redis` so that a link removed
 * later does not come back. Keys of another CACHE_NAMESPACE than today's (one set when the file was
 * written) are moved too, after today's: one file belongs to one bot, whatever it was called then.
 */
async function moveFileToRedis(path: string, namespace: string, redis: Record<KeptKind, Keyv>, timeoutMs: number, logger: Logger | undefined): Promise<void> {
  let file: SqliteKeyvStore;
  try {
    file = new SqliteKeyvStore(path);
  } catch (e) {
    logger?.warn({ file: path, reason: (e as Error).message }, 'LINKS_DB cannot be read: its links were not moved to Redis');
    return;
  }
  const moved = { links: 0, snapshots: 0, members: 0, history: 0, grants: 0, servers: 0 };
  let kept = 0;
  const otherNamespaces = new Set<string>();
  const within = <T>(work: Promise<T>, what: string) => withTimeout(work, timeoutMs, what);
  try {
    const entries = [...file.entries()]
      .map(([key, text]) => ({ match: KEPT_KEY.exec(key), text }))
      .filter((e): e is { match: RegExpExecArray; text: string } => e.match !== null)
      // Today's namespace first, so that its link wins over an older name's for the same user.
      .sort((a, b) => Number(a.match[1] !== namespace) - Number(b.match[1] !== namespace));
    for (const { match, text } of entries) {
      const [, from, kind, id] = match as unknown as [string, string, KeptKind, string];
      const parsed = KEPT[kind].safeParse((JSON.parse(text) as { value?: unknown }).value);
      if (!parsed.success) continue;
      if (from !== namespace) otherNamespaces.add(from);
      const there: unknown = await within(redis[kind].get(id), `reading ${kind} from Redis`);
      if (kind === 'members') {
        const known = MembersSchema.safeParse(there);
        const both = [...(parsed.data as string[]), ...(known.success ? known.data : [])];
        const members = both.filter((m, i) => both.lastIndexOf(m) === i).slice(-MAX_MEMBERS_PER_SERVER);
        await within(redis.members.set(id, members), 'writing members to Redis');
        moved.members++;
      } else if (there !== undefined) kept++;
      else {
        await within(redis[kind].set(id, parsed.data, kind === 'history' ? HISTORY_TTL_MS : undefined), `writing ${kind} to Redis`);
        moved[kind]++;
      }
    }
  } finally {
    file.close();
  }
  const done = `${path}.moved-to-redis`;
  renameSync(path, done);
  logger?.info(
    {
      moved: moved.links,
      snapshots: moved.snapshots,
      histories: moved.history,
      grants: moved.grants,
      serverSettings: moved.servers,
      servers: moved.members,
      alreadyInRedis: kept,
      ...(otherNamespaces.size > 0 ? { otherNamespaces: [...otherNamespaces] } : {}),
      file: done,
    },
    'links moved from LINKS_DB to Redis',
  );
}
