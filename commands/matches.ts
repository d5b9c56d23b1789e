// /stats <title> matches: recent matches, a page at a time, with a menu that opens a report.
import type { TitleSlug } from '../src/catalog/index.js';
import { MATCHES_PER_PAGE, errorReply, matchesReply, type Reply } from '../src/embeds/index.js';
import { playerOptions, type EndpointCommand, type ViewHandler } from './kind.js';
import { showReport } from './match.js';
import { onwardOf, openForPlayer, shownName } from './onward.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';
import { say } from '../src/locales/index.js';

type MatchesView = Extract<View, { kind: 'matches' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };
/** What is left of one deadline for a walk of several lookups, at least 1 ms (then each step gives up at once). */
const until = (deadline: number) => ({ deadlineMs: Math.max(1, deadline - Date.now()) });
/** The service pages 20 matches with a cursor; a reply page shows 10. */
const SERVICE_PAGE = 20;

async function render(view: MatchesView, stateId: string, page: number, deps: Deps, locale?: string): Promise<Reply> {
  // Walk the cursors (cached) to the service page that holds this reply page, within one deadline
  // for the whole walk: a page far along (a custom id can name page 9999) costs a timeout, not
  // thousands of lookups one after the other.
  const perService = SERVICE_PAGE / MATCHES_PER_PAGE;
  const servicePage = Math.floor(page / perService);
  const deadline = Date.now() + COMMAND_DEADLINE_MS;
  const player = shownName(view, deps, COMMAND_DEADLINE_MS);
  let r = await deps.lookup.matches(view.title, view.platform, view.player, undefined, until(deadline));
  for (let i = 0; i < servicePage && r.data?.metadata.next; i++)
    r = await deps.lookup.matches(view.title, view.platform, view.player, r.data.metadata.next, until(deadline));
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.handle ?? view.player, locale });
  const offset = (page % perService) * MATCHES_PER_PAGE;
  const shown = r.data.matches.slice(offset, offset + MATCHES_PER_PAGE);
  const hasMore = r.data.matches.length > offset + MATCHES_PER_PAGE || r.data.metadata.next !== null;
  return matchesReply(shown, {
    title: view.title,
    platform: view.platform,
    player: await player,
    meta: r.meta,
    page,
    hasMore,
    stateId,
    locale,
    onward: onwardOf(view, stateId, locale),
  });
}

export const matchesView: ViewHandler<MatchesView> = {
  render,
  // A report opened from the list marks the player (by every name their profile gives, usually
  // cached) and leads back to the list.
  open: async (view, stateId, id, deps, locale) => {
    const who = (await deps.lookup.profile(view.title, view.platform, view.player, call)).data?.platformInfo;
    const highlight = [view.player, view.handle, who?.platformUserId, who?.platformUserIdentifier, who?.platformUserHandle];
    return showReport(view.title, view.platform, id, deps, {
      highlight,
      locale,
      onward: { stateId, targets: [{ to: 'matches', label: say(locale, 'go.back', { label: say(locale, 'go.matches') }) }] },
    });
  },
};

export const matches = {
  kind: 'matches',
  description: 'Recent matches of a player',
  options: playerOptions,
  execute: (title: TitleSlug, input, deps) => openForPlayer('matches', title, input, deps, (view, id) => render(view, id, 0, deps, input.locale)),
} satisfies EndpointCommand;
