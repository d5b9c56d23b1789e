// /stats <title> sessions: play sessions (matches 45 minutes or less apart), the latest read
// against the player's career.
import type { TitleSlug } from '../src/catalog/index.js';
import { overviewOf } from '../src/lookup/schemas.js';
import { sessionCard, withCard } from '../src/cards/index.js';
import { errorReply, sessionsReply, type Reply } from '../src/embeds/index.js';
import { cardOption, playerOptions, type EndpointCommand, type ViewHandler } from './kind.js';
import { onwardOf, openForPlayer } from './onward.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';

type SessionsView = Extract<View, { kind: 'sessions' }>;

const call = { deadlineMs: COMMAND_DEADLINE_MS };

async function render(view: SessionsView, stateId: string, page: number, deps: Deps, locale?: string): Promise<Reply> {
  // The career is a second lookup (usually cached); the sessions stand without it.
  const [r, career] = await Promise.all([
    deps.lookup.sessions(view.title, view.platform, view.player, call),
    deps.lookup.profile(view.title, view.platform, view.player, call),
  ]);
  if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: view.handle ?? view.player, locale });
  const reply = sessionsReply(r.data.items, {
    title: view.title,
    platform: view.platform,
    player: view.handle ?? career.data?.platformInfo.platformUserHandle ?? view.player,
    meta: r.meta,
    page,
    stateId,
    career: career.data ? overviewOf(career.data.segments)?.stats : undefined,
    locale,
    onward: onwardOf(view, stateId, locale),
  });
  return withCard(reply, () => sessionCard(r.data.items, view.title, view.platform, view.handle ?? view.player, career.data, locale), deps, view.textOnly);
}

export const sessionsView: ViewHandler<SessionsView> = { render };

export const sessions = {
  kind: 'sessions',
  description: 'Play sessions: matches played close together',
  options: (sub, endpoint) => cardOption(playerOptions(sub, endpoint)),
  execute: (title: TitleSlug, input, deps) => openForPlayer('sessions', title, input, deps, (view, id) => render(view, id, 0, deps, input.locale)),
} satisfies EndpointCommand;
