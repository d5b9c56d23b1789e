// /stats <title> profile: a player's career, with buttons on to their segments, matches or sessions.
import { findEndpoint, type TitleSlug } from '../src/catalog/index.js';
import { profileCard, withCard } from '../src/cards/index.js';
import {
  PERIODS,
  daySnapshotOf,
  errorReply,
  figure,
  formOfMatches,
  formOfSessions,
  profileReply,
  sinceLines,
  snapshotOf,
  type DaySnapshot,
  type FormMatch,
  type Period,
  type Reply,
} from '../src/embeds/index.js';
import type { LookupMeta } from '../src/lookup/client.js';
import { overviewOf, type Stats } from '../src/lookup/schemas.js';
import { cardOption, playerOptions, type EndpointCommand, type ViewHandler } from './kind.js';
import { emptyProfileOnward, onwardOf, onwardTargets, openForPlayer, openView } from './onward.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';
import { en, say } from '../src/locales/index.js';

type ProfileView = Extract<View, { kind: 'profile' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };

/**
 * "Since your last look", when the profile is the viewer's own linked account: the lines comparing
 * it with the snapshot of their last look, and this look kept for the next (not a stale copy). A
 * store that fails is said in the reply, never passed over.
 */
async function sinceLastLook(
  view: ProfileView,
  stats: Stats,
  meta: LookupMeta,
  deps: Deps,
  locale?: string,
): Promise<{ own: boolean; lines: string[] | undefined }> {
  let linked;
  try {
    linked = await deps.links.get(view.ownerId, view.title);
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message }, 'link store failed: no "since your last look"');
    return { own: false, lines: undefined };
  }
  if (!linked || linked.platform !== view.platform || linked.identifier.toLowerCase() !== view.player.toLowerCase()) return { own: false, lines: undefined };
  // One's own career seen: a verified member's role connection follows it.
  if (meta.source !== 'stale') deps.verification?.seen(view.ownerId, view.title, stats);
  const current = snapshotOf(stats, view.title, linked, (deps.now ?? (() => new Date()))());
  try {
    const previous = await deps.snapshots.get(view.ownerId, view.title);
    if (meta.source !== 'stale') await deps.snapshots.set(view.ownerId, view.title, current);
    return { own: true, lines: sinceLines(previous, current, locale) };
  } catch (e) {
    deps.logger.warn({ err: (e as Error).message }, 'snapshot store failed');
    return { own: true, lines: [say(locale, 'since.notKept')] };
  }
}

/**
 * The player's kept days, and today's kept among them: for the viewer's own linked account, and for
 * any player whose history is kept already (a linked player someone looked up before, or one a
 * leaderboard ranked). A store that fails costs the history, never the profile.
 */
async function keptHistory(
  view: ProfileView,
  today: DaySnapshot,
  own: boolean,
  days: DaySnapshot[] | undefined,
  meta: LookupMeta,
  deps: Deps,
): Promise<{ days: DaySnapshot[] | undefined; keeping: boolean }> {
  if (!deps.history || days === undefined || !(own || days.length > 0) || meta.source === 'stale') return { days, keeping: false };
  const keeping = await deps.history.record(view.title, view.platform, view.player, today).then(
    () => true,
    (e: unknown) => {
      deps.logger.warn({ err: (e as Error).message }, 'history store failed: today’s look not kept');
      return false;
    },
  );
  return { days, keeping };
}

/**
 * The player's last matches, for the form lines: from the match list where the title has one, else
 * from its sessions; none where it has neither on this platform. Looked up beside the profile, and
 * left out (not an error) when it fails: the profile stands without it.
 */
const served = (view: ProfileView, kind: 'matches' | 'sessions') => findEndpoint(view.title, kind)?.platforms.includes(view.platform) === true;

async function recentMatches(view: ProfileView, deps: Deps): Promise<FormMatch[] | undefined> {
  if (served(view, 'matches')) {
    const r = await deps.lookup.matches(view.title, view.platform, view.player, undefined, call);
    return r.data ? formOfMatches(r.data.matches) : undefined;
  }
  if (served(view, 'sessions')) {
    const r = await deps.lookup.sessions(view.title, view.platform, view.player, call);
    return r.data ? formOfSessions(r.data) : undefined;
  }
  return undefined;
}

async function render(view: ProfileView, stateId: string, deps: Deps, locale?: string): Promise<Reply> {
  const [r, recent, days] = await Promise.all([
    deps.lookup.profile(view.title, view.platform, view.player, call),
    recentMatches(view, deps).catch((e: unknown) => {
      deps.logger.warn({ err: (e as Error).message }, 'recent matches failed: a profile without its form lines');
      return undefined;
    }),
    deps.history?.days(view.title, view.platform, view.player).catch((e: unknown) => {
      deps.logger.warn({ err: (e as Error).message }, 'history store failed: a profile without its history');
      return undefined;
    }),
  ]);
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.handle ?? view.player, locale });
  const stats = overviewOf(r.data.segments)?.stats ?? {};
  const since = await sinceLastLook(view, stats, r.meta, deps, locale);
  const today = daySnapshotOf(stats, view.title, (deps.now ?? (() => new Date()))(), r.data.metadata.currentSeason);
  const { days: kept, keeping } = await keptHistory(view, today, since.own, days, r.meta, deps);
  // Said only where the form comes from the history alone: elsewhere a failed match list costs the form today, not until tomorrow.
  const formFromHistory = !served(view, 'matches') && !served(view, 'sessions');
  const history = deps.history ? { days: kept, today, period: view.period, keeping: keeping && formFromHistory } : undefined;
  // Nothing played: its segments and matches would be as empty, and the player meant may be a namesake.
  const played = figure(stats, view.title, 'matchesPlayed')?.value;
  const empty = played === 0 || Object.keys(stats).length === 0;
  return withCard(
    profileReply(r.data, view.title, r.meta, {
      locale,
      onward: empty ? emptyProfileOnward(view, stateId, locale) : onwardOf(view, stateId, locale),
      // A period asked for replaces the lines since the last look, which are the default of one's own profile.
      since: view.period ? undefined : since.lines,
      recent,
      history,
    }),
    () => profileCard(r.data, view.title, locale, recent, kept ? [...kept.filter((d) => d.day < today.day), today] : undefined),
    deps,
    view.textOnly,
  );
}

/** Shows a player's profile, kept as a view when it has somewhere to go on to. */
export function showProfile(view: ProfileView, deps: Deps, locale?: string): Promise<Reply> {
  return openView(view, deps, (v, id) => render(v, id, deps, locale), onwardTargets(view).length > 0);
}

export const profileView: ViewHandler<ProfileView> = {
  render: (view, stateId, _page, deps, locale) => render(view, stateId, deps, locale),
};

const isPeriod = (value: unknown): value is Period => typeof value === 'string' && (PERIODS as readonly string[]).includes(value);

export const profile = {
  kind: 'profile',
  description: 'Career stats of a player',
  options: (sub, endpoint) => {
    cardOption(playerOptions(sub, endpoint));
    sub.addStringOption((o) =>
      o
        .setName('period')
        .setDescription('What changed over a day, a week, a month or the season')
        .addChoices(...PERIODS.map((p) => ({ name: en[`period.${p}`], value: p }))),
    );
  },
  execute: (title: TitleSlug, input, deps) => {
    const period = isPeriod(input.options.period) ? input.options.period : undefined;
    return openForPlayer('profile', title, input, deps, (view, id) => render(period ? { ...view, period } : view, id, deps, input.locale));
  },
} satisfies EndpointCommand;
