// Replies with controls: drawing page N of a view again (its buttons), opening what its menu picked,
// and going on to another view of the same player. Each kind's module owns its view; this is the
// table that finds it.
import { findEndpoint } from '../src/catalog/index.js';
import { notice, type Reply } from '../src/embeds/index.js';
import type { ViewHandler } from './kind.js';
import { matchView } from './match.js';
import { matchesView } from './matches.js';
import { isGoKind, viewFor } from './onward.js';
import { profileView } from './profile.js';
import { searchView } from './search.js';
import { segmentsView } from './segments.js';
import { sessionsView } from './sessions.js';
import type { Deps, View, ViewKind } from './types.js';
import { say } from '../src/locales/index.js';

const VIEWS: { [K in ViewKind]: ViewHandler<Extract<View, { kind: K }>> } = {
  profile: profileView,
  segments: segmentsView,
  matches: matchesView,
  sessions: sessionsView,
  search: searchView,
  match: matchView,
};

const handlerOf = <V extends View>(view: V) => VIEWS[view.kind] as unknown as ViewHandler<V>;

export function renderView(view: View, stateId: string, page: number, deps: Deps, locale?: string): Promise<Reply> {
  return handlerOf(view).render(view, stateId, page, deps, locale);
}

/** Opens what was picked from a view's menu: a match report, or a profile from search results. */
export function openFromView(view: View, stateId: string, value: string, deps: Deps, locale?: string): Promise<Reply> {
  const handler = handlerOf(view);
  return handler.open ? handler.open(view, stateId, value, deps, locale) : renderView(view, stateId, 0, deps, locale);
}

/** Where a button leads from a view (`go:<stateId>:<to>`): the same player's other view, first page, kept for its own controls. */
export async function goFromView(view: View, to: string, ownerId: string, deps: Deps, locale?: string): Promise<Reply> {
  const next = isGoKind(to) ? viewFor(view, to, ownerId) : undefined;
  if (!next) return notice(say(locale, 'bot.nowhere'));
  return renderView(next, await deps.views.save(next), 0, deps, locale);
}

/** The same view on another platform (`p:<platform>`), where the title serves that view there. */
function onPlatform(view: View, platform: string): View | undefined {
  if (view.kind === 'search' || view.kind === 'match') return undefined;
  const served = findEndpoint(view.title, view.kind)?.platforms.find((p) => p === platform);
  return served ? { ...view, platform: served } : undefined;
}

/** Turns a view into what its switch menu picked (`sw:<stateId>`), first page, kept for its own controls. */
export async function switchFromView(view: View, value: string, ownerId: string, deps: Deps, locale?: string): Promise<Reply> {
  const next = value.startsWith('p:') ? onPlatform(view, value.slice(2)) : handlerOf(view).switch?.(view, value);
  if (!next) return notice(say(locale, 'bot.nowhere'));
  const owned = { ...next, ownerId };
  return renderView(owned, await deps.views.save(owned), 0, deps, locale);
}
