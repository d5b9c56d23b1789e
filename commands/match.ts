// /stats <title> match: the report of one match, the player looked up marked.
import { LIMITS, agoText, errorReply, matchLabel, matchReportReply, notice, playerPicked, type Onward, type Reply } from '../src/embeds/index.js';
import type { PlatformSlug, TitleSlug } from '../src/catalog/index.js';
import { choice, matchesTyped } from './choices.js';
import { platformOption, type EndpointCommand, type ViewHandler } from './kind.js';
import { openView } from './onward.js';
import { showProfile } from './profile.js';
import { choosePlatform, endpointOf, isReply, stringOption } from './resolve.js';
import { AUTOCOMPLETE_DEADLINE_MS, COMMAND_DEADLINE_MS, type AutocompleteInput, type Choice, type Deps, type View } from './types.js';
import { say } from '../src/locales/index.js';

const call = { deadlineMs: COMMAND_DEADLINE_MS };

export interface ReportFor {
  /** The player the report is read for, by any of their names, marked in it. */
  highlight?: readonly (string | null | undefined)[] | undefined;
  /** The way back, when the report was opened from a list. */
  onward?: Onward | undefined;
  /** A kept match view's state id: a menu opens each player's profile (a report asked by its id leads on that way). */
  playersStateId?: string | undefined;
  locale?: string | undefined;
}

export async function showReport(title: TitleSlug, platform: PlatformSlug, id: string, deps: Deps, options: ReportFor = {}): Promise<Reply> {
  const r = await deps.lookup.match(title, platform, id, call);
  if (r.errors) return errorReply(r.errors[0]!, { title, platform, locale: options.locale });
  return matchReportReply(r.data, title, r.meta, { ...options, platform });
}

type MatchView = Extract<View, { kind: 'match' }>;

/** A report asked by its id: drawn again for its menu, which opens the profile of the player picked. */
export const matchView: ViewHandler<MatchView> = {
  render: (view, stateId, _page, deps, locale) => showReport(view.title, view.platform, view.id, deps, { playersStateId: stateId, locale }),
  async open(view, _stateId, value, deps, locale) {
    const picked = playerPicked(value);
    const platform = endpointOf(view.title, 'profile').platforms.find((p) => p === picked?.platform);
    if (!picked || !platform) return notice(say(locale, 'bot.nowhere'));
    return showProfile({ kind: 'profile', title: view.title, platform, player: picked.identifier, ownerId: view.ownerId }, deps, locale);
  },
};

/** Your recent matches (of your linked account), those matching what was typed, then the text itself. */
async function matchChoices(title: TitleSlug, input: AutocompleteInput, deps: Deps): Promise<Choice[]> {
  const typed = input.focused.value.trim();
  const linked = await deps.links.get(input.userId, title);
  const out: Choice[] = [];
  if (linked && endpointOf(title, 'matches').platforms.includes(linked.platform)) {
    const r = await deps.lookup.matches(title, linked.platform, linked.identifier, undefined, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
    for (const m of r.data?.matches ?? []) {
      // When first (two matches of one map and mode told apart, and what a phone keeps of a long
      // choice), then where and how it went; K/D/A left to the report.
      const { label: where, description: how } = matchLabel(m, title, input.locale, { withScore: false });
      const label = [agoText(m.metadata.timestamp, input.locale), where, how].filter(Boolean).join(' · ');
      if (matchesTyped(typed, m.attributes.id, label)) out.push(choice(label, m.attributes.id));
      if (out.length >= LIMITS.choices - 1) break;
    }
  }
  if (typed && typed.length <= LIMITS.choiceValue && !out.some((c) => c.value === typed)) out.push(choice(typed, typed));
  return out;
}

export const match = {
  kind: 'match',
  description: 'The report of one match',
  options(sub, endpoint) {
    sub.addStringOption((o) =>
      o.setName('id').setDescription('Match id (pick one of your recent matches)').setRequired(true).setMaxLength(100).setAutocomplete(true),
    );
    platformOption(sub, endpoint);
  },
  async execute(title: TitleSlug, input, deps) {
    const id = stringOption(input, 'id');
    if (!id) return notice(say(input.locale, 'match.typeId'));
    const platform = await choosePlatform(input, endpointOf(title, 'match'), deps);
    if (isReply(platform)) return platform;
    const linked = await deps.links.get(input.userId, title);
    // Kept so that its menu can open each player's profile: a report asked by id leads on from there.
    const view: MatchView = { kind: 'match', title, platform, id, ownerId: input.userId };
    return openView(view, deps, (_, stateId) =>
      showReport(title, platform, id, deps, { highlight: [linked?.identifier, linked?.handle], playersStateId: stateId, locale: input.locale }),
    );
  },
  autocomplete: async (title, input, deps) => (input.focused.name === 'id' ? matchChoices(title, input, deps) : undefined),
} satisfies EndpointCommand;
