// Paged replies: drawing page N of a view (for the command itself and for its buttons) and opening
// an item picked from its menu. Each is the three steps: the view says what, the lookup fetches,
// an embed builder draws.
import {
  MATCHES_PER_PAGE,
  errorReply,
  matchReportReply,
  matchesReply,
  profileReply,
  searchReply,
  segmentsReply,
  sessionsReply,
  type Reply,
} from '../src/embeds/index.js';
import { profileCard, sessionCard, withCard } from '../src/cards/index.js';
import { COMMAND_DEADLINE_MS, type Deps, type View } from './types.js';

const call = { deadlineMs: COMMAND_DEADLINE_MS };

export async function renderView(view: View, stateId: string, page: number, deps: Deps): Promise<Reply> {
  const who = { title: view.title, platform: view.platform, player: 'player' in view ? view.player : view.query };
  switch (view.kind) {
    case 'segments': {
      const r = await deps.lookup.segments(view.title, view.platform, view.player, view.type, { queue: view.queue, season: view.season }, call);
      if (r.errors) return errorReply(r.errors[0]!, who);
      return segmentsReply(r.data, { ...view, filter: { queue: view.queue, season: view.season }, meta: r.meta, page, stateId });
    }
    case 'sessions': {
      const r = await deps.lookup.sessions(view.title, view.platform, view.player, call);
      if (r.errors) return errorReply(r.errors[0]!, who);
      const reply = sessionsReply(r.data.items, { ...view, meta: r.meta, page, stateId });
      if (!deps.cards || view.textOnly) return reply;
      // The card sets the latest session against the career: the profile, cached like any lookup.
      const career = await deps.lookup.profile(view.title, view.platform, view.player, call);
      return withCard(reply, sessionCard(r.data.items, view.title, view.platform, view.player, career.data), deps);
    }
    case 'search': {
      const r = await deps.lookup.search(view.title, view.platform, view.query, call);
      if (r.errors) return errorReply(r.errors[0]!, who);
      return searchReply(r.data, { ...view, meta: r.meta, page, stateId });
    }
    case 'matches': {
      // The service pages 20 matches with a cursor; a reply page shows 10. Walk the cursors (cached)
      // to the service page that holds this reply page.
      const perService = 20 / MATCHES_PER_PAGE;
      const servicePage = Math.floor(page / perService);
      let cursor: string | undefined;
      let r = await deps.lookup.matches(view.title, view.platform, view.player, undefined, call);
      for (let i = 0; i < servicePage && r.data?.metadata.next; i++) {
        cursor = r.data.metadata.next;
        r = await deps.lookup.matches(view.title, view.platform, view.player, cursor, call);
      }
      if (r.errors) return errorReply(r.errors[0]!, who);
      const offset = (page % perService) * MATCHES_PER_PAGE;
      const shown = r.data.matches.slice(offset, offset + MATCHES_PER_PAGE);
      const hasMore = r.data.matches.length > offset + MATCHES_PER_PAGE || r.data.metadata.next !== null;
      return matchesReply(shown, { ...view, meta: r.meta, page, hasMore, stateId });
    }
  }
}

/** Opens what was picked from a view's menu: a match report, or a profile from search results. */
export async function openFromView(view: View, value: string, deps: Deps): Promise<Reply> {
  switch (view.kind) {
    case 'matches': {
      const r = await deps.lookup.match(view.title, view.platform, value, call);
      if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform });
      return matchReportReply(r.data, view.title, r.meta);
    }
    case 'search': {
      const r = await deps.lookup.profile(view.title, view.platform, value, call);
      if (r.errors) return errorReply(r.errors[0]!, { title: view.title, platform: view.platform, player: value });
      return withCard(profileReply(r.data, view.title, r.meta), profileCard(r.data, view.title), deps);
    }
    case 'segments':
    case 'sessions':
      return renderView(view, '', 0, deps);
  }
}
