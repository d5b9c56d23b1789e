// /stats <title> search: players by name or id; one result opens their profile at once.
import { PLATFORM_SLUGS, findEndpoint, type PlatformSlug, type TitleSlug } from '../src/catalog/index.js';
import { RESULTS_PER_PAGE, errorReply, figure, notice, searchReply, type Reply } from '../src/embeds/index.js';
import { overviewOf, type SearchResult } from '../src/lookup/schemas.js';
import { platformOption, type EndpointCommand, type ViewHandler } from './kind.js';
import { openView } from './onward.js';
import { showProfile } from './profile.js';
import { choosePlatform, endpointOf, isReply, stringOption } from './resolve.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';
import { say } from '../src/locales/index.js';

type SearchView = Extract<View, { kind: 'search' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };

/** How long the list waits for the shown players' match counts: a count not in by then is left out, not waited for. */
const PLAYED_DEADLINE_MS = 1_500;

/**
 * The matches each shown result has played in the title (0 for an account the service has no
 * profile of), so that a namesake who never played it is not picked blind. Profiles come through
 * the cache (opening one next is then instant); one not answered in time is left out.
 */
async function playedOf(view: SearchView, results: readonly SearchResult[], deps: Deps): Promise<Map<string, number>> {
  const played = new Map<string, number>();
  const served = findEndpoint(view.title, 'profile')?.platforms ?? [];
  await Promise.all(
    results.map(async (result) => {
      const platform = served.find((p) => p === (result.platformSlug ?? view.platform));
      if (!platform) return;
      const r = await deps.lookup.profile(view.title, platform, result.platformUserIdentifier, { deadlineMs: PLAYED_DEADLINE_MS }).catch(() => undefined);
      if (r?.errors?.[0]?.kind === 'not_found') played.set(result.platformUserIdentifier, 0);
      const n = r?.data ? figure(overviewOf(r.data.segments)?.stats ?? {}, view.title, 'matchesPlayed')?.value : undefined;
      if (typeof n === 'number') played.set(result.platformUserIdentifier, n);
    }),
  );
  return played;
}

async function render(view: SearchView, stateId: string, page: number, deps: Deps, locale?: string): Promise<Reply> {
  const r = await deps.lookup.search(view.title, view.platform, view.query, call);
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.query, locale });
  const shown = r.data.slice(page * RESULTS_PER_PAGE, (page + 1) * RESULTS_PER_PAGE);
  return searchReply(r.data, { ...view, meta: r.meta, page, stateId, locale, played: await playedOf(view, shown, deps) });
}

/**
 * The profile of a search result, on the platform the result names when the profile endpoint serves
 * it, named by the handle the search gave (a private player's reply has no other: "WraithMain keeps
 * their stats private", not their id).
 */
function openResult(
  view: SearchView,
  result: { identifier: string; handle?: string | undefined; platform: string | null },
  deps: Deps,
  ownerId: string,
  locale?: string,
): Promise<Reply> {
  const served = endpointOf(view.title, 'profile').platforms;
  const on = served.find((p) => p === result.platform) ?? view.platform;
  return showProfile(
    { kind: 'profile', title: view.title, platform: on, player: result.identifier, handle: result.handle || undefined, ownerId },
    deps,
    locale,
  );
}

export const searchView: ViewHandler<SearchView> = {
  render,
  async open(view, _stateId, identifier, deps, locale) {
    // The list's own answer, from the cache: the handle of the player picked from its menu.
    const listed = (await deps.lookup.search(view.title, view.platform, view.query, call)).data?.find((p) => p.platformUserIdentifier === identifier);
    return openResult(view, { identifier, handle: listed?.platformUserHandle, platform: null }, deps, view.ownerId, locale);
  },
};

export const search = {
  kind: 'search',
  description: 'Find a player',
  options(sub, endpoint) {
    sub.addStringOption((o) =>
      o.setName('query').setDescription('Name, id or (PC Store A) profile URL').setRequired(true).setMaxLength(200).setAutocomplete(true),
    );
    platformOption(sub, endpoint);
  },
  async execute(title: TitleSlug, input, deps) {
    const query = stringOption(input, 'query');
    if (!query) return notice(say(input.locale, 'search.typeQuery'));
    const platform = await choosePlatform(input, endpointOf(title, 'search'), deps);
    if (isReply(platform)) return platform;
    const view: SearchView = { kind: 'search', title, platform, query, ownerId: input.userId };
    const r = await deps.lookup.search(title, platform, query, call);
    // Told at once: the list below would ask the service again (a failure is not cached), doubling the wait.
    if (r.errors) return errorReply(r.errors[0]!, { title, platform, player: query, locale: input.locale });
    // One player found: their profile, not a list of one.
    const only = r.data?.length === 1 ? r.data[0] : undefined;
    if (only) {
      const slug = PLATFORM_SLUGS.find<PlatformSlug>((p): p is PlatformSlug => p === only.platformSlug);
      return openResult(
        view,
        { identifier: only.platformUserIdentifier, handle: only.platformUserHandle, platform: slug ?? null },
        deps,
        input.userId,
        input.locale,
      );
    }
    return openView(view, deps, (v, id) => render(v, id, 0, deps, input.locale));
  },
} satisfies EndpointCommand;
