// Ways onward: from a player's profile to their segments, matches or sessions and back, as buttons
// (`go:<stateId>:<kind>`). Which exist is the catalog's to say: the kinds the title has, on the
// player's platform (title_b's segments serve other platforms than its profile).
import { TITLES, findEndpoint, type TitleSlug } from '../src/catalog/index.js';
import type { Onward, Reply } from '../src/embeds/index.js';
import { segmentTypeName } from '../src/embeds/index.js';
import { say } from '../src/locales/index.js';
import { defaultSegmentType, isReply, resolveTarget } from './resolve.js';
import type { CommandInput, Deps, View, ViewKind } from './types.js';

/** The kinds a button can go to (`search`: from an empty profile, the players of that name). */
export const GO_KINDS = ['profile', 'segments', 'matches', 'sessions', 'search'] as const;
export type GoKind = (typeof GO_KINDS)[number];
export const isGoKind = (value: string): value is GoKind => (GO_KINDS as readonly string[]).includes(value);

/**
 * The player as a reply names them: the handle the view knows (a link's, a profile's), else the one
 * their profile gives (the lookup is cached; it runs beside the view's own), else what was typed. A
 * player picked from autocomplete arrives as an id (title_a's 7656…, a URL): the reply then reads
 * "Blaze", not "76561198000000030".
 */
export async function shownName(view: Extract<View, { player: string }>, deps: Deps, deadlineMs: number): Promise<string> {
  if (view.handle) return view.handle;
  if (!findEndpoint(view.title, 'profile')?.platforms.includes(view.platform)) return view.player;
  try {
    return (await deps.lookup.profile(view.title, view.platform, view.player, { deadlineMs })).data?.platformInfo.platformUserHandle || view.player;
  } catch (e) {
    // The client answers failures in its envelope: a throw is a defect, told to the operator; the reply goes on with what was typed.
    deps.logger.warn({ err: (e as Error).message, title: view.title }, 'a player’s handle could not be looked up: shown as typed');
    return view.player;
  }
}

function label(title: TitleSlug, to: GoKind, back: boolean, locale: string | undefined): string {
  switch (to) {
    case 'profile':
      return back ? say(locale, 'go.back', { label: say(locale, 'go.profile') }) : say(locale, 'go.profile');
    case 'segments': {
      const type = defaultSegmentType(title);
      return segmentTypeName(type, locale) ?? TITLES[title].segmentTypes.find((s) => s.type === type)?.name ?? type;
    }
    case 'matches':
      return back ? say(locale, 'go.back', { label: say(locale, 'go.matches') }) : say(locale, 'go.matches');
    case 'sessions':
      return say(locale, 'go.sessions');
    case 'search':
      return say(locale, 'go.search');
  }
}

/**
 * From a profile with nothing played (a namesake picked from a search, an account that never played
 * the title): the search for players of that name, where the title has one, and nothing else, since
 * its segments and matches would be as empty.
 */
export function emptyProfileOnward(view: Extract<View, { kind: 'profile' }>, stateId: string, locale?: string): Onward | undefined {
  return findEndpoint(view.title, 'search') && stateId
    ? { stateId, targets: [{ to: 'search', label: label(view.title, 'search', false, locale) }] }
    : undefined;
}

/** Where a view of a player can go: the profile's siblings from a profile, the profile from the others. */
export function onwardTargets(view: View, locale?: string): { to: GoKind; label: string }[] {
  if (view.kind === 'search') return [];
  const serves = (kind: GoKind) => findEndpoint(view.title, kind)?.platforms.includes(view.platform) === true;
  const kinds: GoKind[] = view.kind === 'profile' ? ['segments', 'matches', 'sessions'] : ['profile'];
  return kinds.filter(serves).map((to) => ({ to, label: label(view.title, to, view.kind !== 'profile', locale) }));
}

/** The buttons of a view kept under `stateId`; none when it has nowhere to go. */
export function onwardOf(view: View, stateId: string, locale?: string): Onward | undefined {
  const targets = onwardTargets(view, locale);
  return targets.length > 0 && stateId ? { stateId, targets } : undefined;
}

/**
 * Keeps a view (so that its controls can find it) and draws its first page. A view with no controls
 * at all is drawn without being kept; when the view store fails, the answer still goes out, without
 * controls (an empty state id draws none), and the failure is logged.
 */
export async function openView<V extends View>(view: V, deps: Deps, render: (view: V, stateId: string) => Promise<Reply>, hasControls = true): Promise<Reply> {
  let stateId = '';
  if (hasControls) {
    try {
      stateId = await deps.views.save(view);
    } catch (e) {
      deps.logger.warn({ err: (e as Error).message, view: view.kind }, 'view store unavailable; answering without controls');
    }
  }
  return render(view, stateId);
}

/** The view a button goes to, from the view it is on: same player, new owner, first page. */
export function viewFor(from: View, to: GoKind, ownerId: string): View | undefined {
  if (from.kind === 'search' || from.kind === 'match') return undefined;
  if (to === 'search') {
    const served = findEndpoint(from.title, 'search')?.platforms ?? [];
    const platform = served.find((p) => p === from.platform) ?? served[0];
    return platform ? { kind: 'search', title: from.title, platform, query: from.handle ?? from.player, ownerId } : undefined;
  }
  const player = { title: from.title, platform: from.platform, player: from.player, handle: from.handle, ownerId };
  if (to === 'segments') return { kind: 'segments', ...player, type: defaultSegmentType(from.title) };
  return { kind: to, ...player } satisfies View & { kind: Exclude<ViewKind, 'segments' | 'search'> };
}

type PlayerKind = 'profile' | 'matches' | 'sessions';

/**
 * The handler of a kind that shows one player: the player typed or linked, the view kept for its
 * controls (a profile only when it has somewhere to go), its first page drawn.
 */
export async function openForPlayer<K extends PlayerKind>(
  kind: K,
  title: TitleSlug,
  input: CommandInput,
  deps: Deps,
  render: (view: Extract<View, { kind: K }>, stateId: string) => Promise<Reply>,
): Promise<Reply> {
  const target = await resolveTarget(input, title, kind, deps);
  if (isReply(target)) return target;
  const textOnly = input.options.card === false ? { textOnly: true } : {};
  const view = { kind, title, platform: target.platform, player: target.player, handle: target.handle, ownerId: input.userId, ...textOnly } as Extract<
    View,
    { kind: K }
  >;
  return openView(view, deps, render, kind !== 'profile' || onwardTargets(view).length > 0);
}
