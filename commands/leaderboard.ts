// /leaderboard <title> [stat]: the server's linked members ranked by a figure. Profiles come through
// the lookup cache and its single flight; a board looks up at most so many members, a few at a time,
// within the command's deadline, and counts those it could not rank.

import { FIGURE_INFO, findEndpoint, type Figure, type TitleSlug } from '../src/catalog/index.js';
import { daySnapshotOf, figure, figureLabel, leaderboardReply, namedSlug, notice, ratingTier, type BoardEntry, type Reply } from '../src/embeds/index.js';
import { overviewOf } from '../src/lookup/schemas.js';
import { recordMember } from './link.js';
import { stringOption, titleChoices, titleOf } from './resolve.js';
import { COMMAND_DEADLINE_MS, type Command, type CommandInput, type Deps, type LinkedAccount, type ServerSettings } from './types.js';
import { installableCommand } from './installs.js';
import { say } from '../src/locales/index.js';

/** Figures a board ranks by, more being better each time. */
export const BOARD_FIGURES: readonly Figure[] = [
  'kd',
  'winRate',
  'killsPerMatch',
  'damagePerMatch',
  'headshotRate',
  'accuracy',
  'rating',
  'healingPerMatch',
  'matchesPlayed',
  'wins',
  'kills',
  'timePlayed',
];
/** Matches a member needs to be ranked unless `min_matches` says otherwise: a figure of a few matches is luck. */
export const BOARD_MIN_MATCHES = 10;
/** Members a board looks up at most (the latest recorded); what one command may cost the service. */
export const MAX_BOARD_LOOKUPS = 50;
/** Lookups at once: a board shares the service with everyone else's commands. */
const CONCURRENCY = 4;

const isBoardFigure = (value: string): value is Figure => (BOARD_FIGURES as readonly string[]).includes(value);

/**
 * Time the members' links are read in at most (1,000 of them, 16 at a time, each up to the store's
 * own timeout): a store answering near that timeout once held a board for a minute. The rest of the
 * command's deadline is the lookups'.
 */
const LINKS_READ_MS = 3_000;

/** Runs `work` over `items`, `limit` at a time, in order of the items; none started after `until` (theirs stay undefined). */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>, until = Number.POSITIVE_INFINITY): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < items.length && Date.now() < until) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function entryOf(
  title: TitleSlug,
  f: Figure,
  userId: string,
  account: LinkedAccount,
  deadline: number,
  deps: Deps,
): Promise<{ entry: BoardEntry; fetchedAt?: number }> {
  const base = { userId, handle: account.handle, ...(account.verified ? { verified: true } : {}) };
  if (!findEndpoint(title, 'profile')?.platforms.includes(account.platform)) return { entry: { ...base, missing: 'no_profile' } };
  // Past the deadline a member is not looked up: a floor on each lookup's time let a slow service
  // hold a board of 50 members seconds past it, the floor once for each round of lookups.
  const left = deadline - Date.now();
  if (left <= 0) return { entry: { ...base, missing: 'timeout' } };
  const r = await deps.lookup.profile(title, account.platform, account.identifier, { deadlineMs: left });
  if (r.errors) return { entry: { ...base, missing: r.errors[0]!.kind } };
  const stats = overviewOf(r.data.segments)?.stats ?? {};
  // A linked member's day is kept in their history (for `period` and their form), without holding the board for it.
  if (deps.history && r.meta.source !== 'stale')
    void deps.history
      .record(title, account.platform, account.identifier, daySnapshotOf(stats, title, (deps.now ?? (() => new Date()))(), r.data.metadata.currentSeason))
      .catch((e: unknown) => deps.logger.warn({ err: (e as Error).message }, 'history store failed: a board member’s day not kept'));
  if (r.meta.source !== 'stale') deps.verification?.seen(userId, title, stats);
  const stat = figure(stats, title, f);
  const tier = ratingTier(figure(stats, title, 'rating'))?.name;
  const matches = figure(stats, title, 'matchesPlayed')?.value;
  if (stat && typeof stat.value === 'number')
    return {
      entry: { ...base, stat, ...(tier ? { tier } : {}), ...(typeof matches === 'number' && Number.isFinite(matches) ? { matches } : {}) },
      fetchedAt: r.meta.fetchedAt,
    };
  // What the board could rank this profile by instead, for the notice when nobody has the figure.
  const has = BOARD_FIGURES.filter((g) => typeof figure(stats, title, g)?.value === 'number');
  return { entry: { ...base, missing: 'no_figure', has }, fetchedAt: r.meta.fetchedAt };
}

/** The server's settings; a store that cannot say costs them for this board (the defaults), not the board, and is logged. */
async function serverSettings(guildId: string, deps: Deps): Promise<ServerSettings> {
  try {
    return (await deps.servers?.get(guildId)) ?? {};
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message, guildId }, 'server settings store failed: the board uses the defaults');
    return {};
  }
}

export const leaderboard = {
  data: installableCommand()
    .setName('leaderboard')
    .setDescription('This server’s linked members ranked by a figure')
    .addStringOption((o) =>
      o
        .setName('title')
        .setDescription('The title')
        .setRequired(true)
        .addChoices(...titleChoices),
    )
    .addStringOption((o) =>
      o
        .setName('stat')
        .setDescription('Rank by (default K/D)')
        .addChoices(...BOARD_FIGURES.map((f) => ({ name: FIGURE_INFO[f].label, value: f }))),
    )
    .addIntegerOption((o) =>
      o.setName('min_matches').setDescription(`Fewest matches to be ranked (default ${BOARD_MIN_MATCHES})`).setMinValue(0).setMaxValue(100_000),
    )
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const title = titleOf(input);
    if (typeof title !== 'string') return title;
    if (!input.guildId) return notice(say(input.locale, 'board.serverOnly'));
    const typed = stringOption(input, 'stat') ?? 'kd';
    if (!isBoardFigure(typed))
      return notice(say(input.locale, 'board.rankBy', { list: BOARD_FIGURES.map((f) => namedSlug(figureLabel(f, input.locale), f)).join(', ') }));
    await recordMember(input.guildId, input.userId, deps);
    const settings = await serverSettings(input.guildId, deps);
    const started = Date.now();
    const deadline = started + COMMAND_DEADLINE_MS - 1_000;
    const members = await deps.members.list(input.guildId);
    // Read the invoker first, then the latest recorded (the list's end) back: a store too slow to
    // read them all in time leaves out the least active, counted as not looked up.
    const order = [input.userId, ...members.filter((m) => m !== input.userId).reverse()];
    const read = await pooled(order, 16, async (userId) => ({ userId, account: await deps.links.get(userId, title) }), started + LINKS_READ_MS);
    const unread = read.filter((m) => m === undefined).length;
    const at = new Map(members.map((m, i) => [m, i]));
    const accountsRead = read
      .filter((m): m is { userId: string; account: LinkedAccount } => m?.account !== undefined)
      .sort((a, b) => (at.get(a.userId) ?? 0) - (at.get(b.userId) ?? 0));
    // One place an account: members linked to the same player (a shared or mistaken link) showed as
    // two identical rows. The invoker's link holds it, else the latest recorded member's.
    const accountOf = (m: { account: LinkedAccount }) => `${m.account.platform}\u0000${m.account.identifier.toLowerCase()}`;
    const holder = new Map<string, string>();
    for (const m of accountsRead) if (holder.get(accountOf(m)) !== input.userId) holder.set(accountOf(m), m.userId);
    const linked = accountsRead.filter((m) => holder.get(accountOf(m)) === m.userId);
    // The latest recorded first: a board of a big server ranks its most active members.
    const looked = linked.slice(-MAX_BOARD_LOOKUPS);
    const mine = linked.find((m) => m.userId === input.userId);
    if (mine && !looked.includes(mine)) looked[0] = mine;
    // A board of verified accounts only counts the others, without looking them up.
    const results = (
      await pooled(looked, CONCURRENCY, (m) =>
        settings.boardVerifiedOnly && !m.account.verified
          ? Promise.resolve({ entry: { userId: m.userId, handle: m.account.handle, missing: 'not_verified' as const } })
          : entryOf(title, typed, m.userId, m.account, deadline, deps),
      )
    ).filter((r) => r !== undefined);
    const fetched = results.flatMap((r) => (r.fetchedAt === undefined ? [] : [r.fetchedAt]));
    return leaderboardReply(
      results.map((r) => r.entry),
      {
        title,
        figure: typed,
        invokerId: input.userId,
        minMatches: typeof input.options.min_matches === 'number' ? input.options.min_matches : (settings.boardMinMatches ?? BOARD_MIN_MATCHES),
        notLookedUp: linked.length - looked.length,
        unread,
        oldestFetch: fetched.length > 0 ? Math.min(...fetched) : undefined,
        locale: input.locale,
      },
    );
  },
} satisfies Command;
