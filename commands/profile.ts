// /stats <title> profile: a player's career, with buttons on to their segments, matches or sessions.
import type { TitleSlug } from '../src/catalog/index.js';
import { profileCard, withCard } from '../src/cards/index.js';
import { errorReply, profileReply, type Reply } from '../src/embeds/index.js';
import { cardOption, playerOptions, type EndpointCommand, type ViewHandler } from './kind.js';
import { onwardOf, onwardTargets, openForPlayer, openView } from './onward.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';

type ProfileView = Extract<View, { kind: 'profile' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };

async function render(view: ProfileView, stateId: string, deps: Deps, locale?: string): Promise<Reply> {
  const r = await deps.lookup.profile(view.title, view.platform, view.player, call);
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.handle ?? view.player });
  return withCard(profileReply(r.data, view.title, r.meta, { locale, onward: onwardOf(view, stateId) }), profileCard(r.data, view.title), deps, view.textOnly);
}

/** Shows a player's profile, kept as a view when it has somewhere to go on to. */
export function showProfile(view: ProfileView, deps: Deps, locale?: string): Promise<Reply> {
  return openView(view, deps, (v, id) => render(v, id, deps, locale), onwardTargets(view).length > 0);
}

export const profileView: ViewHandler<ProfileView> = {
  render: (view, stateId, _page, deps, locale) => render(view, stateId, deps, locale),
};

export const profile = {
  kind: 'profile',
  description: 'Career stats of a player',
  options: (sub, endpoint) => cardOption(playerOptions(sub, endpoint)),
  execute: (title: TitleSlug, input, deps) => openForPlayer('profile', title, input, deps, (view, id) => render(view, id, deps, input.locale)),
} satisfies EndpointCommand;
